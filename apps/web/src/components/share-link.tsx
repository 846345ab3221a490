import { useState } from "preact/hooks";
import { messages } from "../i18n.js";

const t = messages({
  en: {
    share: "Link to this task",
    copy: "Copy link",
    copied: "Copied",
    failed: "Copy failed: select the link",
  },
  cn: { share: "任务链接", copy: "复制链接", copied: "已复制", failed: "复制失败：请手动选择链接" },
  tw: { share: "任務連結", copy: "複製連結", copied: "已複製", failed: "複製失敗：請手動選取連結" },
});

/** `#/tasks/<id>` as a full link anyone can open, with a copy button. */
export function ShareLink({ taskId }: { taskId: string }) {
  const [note, setNote] = useState("");
  const hash = `#/tasks/${encodeURIComponent(taskId)}`;
  const url = `${location.origin}${location.pathname}${hash}`;
  const copy = () =>
    navigator.clipboard?.writeText(url).then(
      () => setNote(t("copied")),
      () => setNote(t("failed")),
    ) ?? setNote(t("failed"));
  return (
    <p class="row">
      <span class="muted">{t("share")}:</span>
      <a href={hash} data-testid="share-link" class="anywhere">
        {url}
      </a>
      <button type="button" class="secondary" onClick={copy}>
        {t("copy")}
      </button>
      <span class="muted" role="status">
        {note}
      </span>
    </p>
  );
}
