import { useEffect, useRef, useState } from "preact/hooks";
import { messages } from "../i18n.js";

const t = messages({
  en: { cancel: "Cancel" },
  cn: { cancel: "取消" },
  tw: { cancel: "取消" },
});

/**
 * A destructive action behind a second, explicit click: the button turns into the question with "yes"
 * (focused) and "cancel"; Escape or cancel puts the button back with the focus on it. No `confirm()`
 * dialog: it blocks the page and cannot be styled or translated.
 */
export function ConfirmButton({
  label,
  question,
  yes,
  onConfirm,
  accessibleLabel,
}: {
  label: string;
  question: string;
  yes: string;
  onConfirm: () => Promise<void> | void;
  /** The trigger's accessible name when `label` alone is ambiguous in a list ("Revoke key1"). */
  accessibleLabel?: string;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const yesRef = useRef<HTMLButtonElement>(null);
  const triggerRef = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef(false);
  useEffect(() => {
    if (asking) yesRef.current?.focus();
    else if (returnFocus.current) {
      returnFocus.current = false;
      triggerRef.current?.focus();
    }
  }, [asking]);
  const cancel = () => {
    returnFocus.current = true;
    setAsking(false);
  };
  if (!asking) {
    return (
      <button
        type="button"
        class="secondary"
        ref={triggerRef}
        aria-label={accessibleLabel}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
    );
  }
  return (
    <fieldset
      aria-label={question}
      class="row"
      style={{ display: "inline-flex", alignItems: "center", border: "none", padding: 0, margin: 0 }}
      onKeyDown={(e) => {
        if (e.key === "Escape") cancel();
      }}
    >
      <span>{question}</span>
      <button
        type="button"
        class="danger"
        ref={yesRef}
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {yes}
      </button>
      <button type="button" class="secondary" onClick={cancel}>
        {t("cancel")}
      </button>
    </fieldset>
  );
}
