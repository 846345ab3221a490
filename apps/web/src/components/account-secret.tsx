import { useEffect, useRef, useState } from "preact/hooks";
import { messages } from "../i18n.js";

const t = messages({
  en: {
    title: "Your new key",
    warning: "Copy it now: this is the only time it is shown. Store it somewhere safe.",
    copy: "Copy",
    copied: "Copied to the clipboard.",
    manual: "Could not copy automatically: the key is selected, press Ctrl+C (⌘C) to copy it.",
    done: "I have stored it",
    secret: "Secret key",
  },
  cn: {
    title: "新密钥",
    warning: "请立即复制：密钥只显示这一次。请妥善保存。",
    copy: "复制",
    copied: "已复制到剪贴板。",
    manual: "无法自动复制：密钥已选中，请按 Ctrl+C（⌘C）复制。",
    done: "我已保存",
    secret: "密钥",
  },
  tw: {
    title: "新金鑰",
    warning: "請立即複製：金鑰只會顯示這一次。請妥善保存。",
    copy: "複製",
    copied: "已複製到剪貼簿。",
    manual: "無法自動複製：金鑰已選取，請按 Ctrl+C（⌘C）複製。",
    done: "我已保存",
    secret: "金鑰",
  },
});

/**
 * A secret the API shows once: in a read-only field (focus selects it all), a copy button (the clipboard
 * API, else the text selected for the user to copy) and a warning that it will not be shown again.
 */
export function SecretOnce({ secret, onDone }: { secret: string; onDone: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<"" | "ok" | "manual">("");
  useEffect(() => input.current?.focus(), []);
  const selectAll = () => input.current?.select();
  async function copy() {
    try {
      if (!navigator.clipboard) throw new Error("no clipboard");
      await navigator.clipboard.writeText(secret);
      setCopied("ok");
    } catch {
      input.current?.focus();
      selectAll();
      let ok = false;
      try {
        ok = document.execCommand("copy");
      } catch {
        ok = false;
      }
      setCopied(ok ? "ok" : "manual");
    }
  }
  return (
    <div class="card" style={{ borderColor: "var(--warn)" }} data-testid="new-secret">
      <h2>{t("title")}</h2>
      <p class="warn" role="alert">
        {t("warning")}
      </p>
      <div class="row">
        <label style={{ flex: "1 1 260px" }}>
          <span class="sr-only">{t("secret")}</span>
          <input
            ref={input}
            readOnly
            value={secret}
            spellcheck={false}
            autocomplete="off"
            onFocus={selectAll}
            onClick={selectAll}
            style={{ fontFamily: "ui-monospace, SFMono-Regular, Menlo, monospace", width: "100%" }}
          />
        </label>
        <button type="button" onClick={copy}>
          {t("copy")}
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          {t("done")}
        </button>
      </div>
      <p role="status" class={copied === "ok" ? "ok" : copied === "manual" ? "warn" : "muted"}>
        {copied === "ok" ? t("copied") : copied === "manual" ? t("manual") : ""}
      </p>
    </div>
  );
}
