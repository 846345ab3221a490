import { ApiError } from "../api.js";
import { fieldMessageText } from "../field-messages.js";
import { messages } from "../i18n.js";
import { ErrorBox } from "../ui.js";

const t = messages({
  en: { retryAfter: "You can try again in {s} s." },
  cn: { retryAfter: "{s} 秒后可以重试。" },
  tw: { retryAfter: "{s} 秒後可以重試。" },
});

/**
 * ErrorBox, plus what the API's `details` say, each once: the fields at fault with their messages in the
 * current locale, or when to try again after a 429.
 */
export function ApiErrorBox({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  if (!error) return null;
  const details = error instanceof ApiError ? error.details : undefined;
  const fields = Array.isArray(details)
    ? (details as { path?: string; message?: string }[]).filter((d) => d && typeof d === "object")
    : [];
  const retry =
    details && typeof details === "object" && !Array.isArray(details)
      ? (details as { retry_after_s?: number }).retry_after_s
      : undefined;
  return (
    <>
      <ErrorBox error={error} {...(onRetry ? { onRetry } : {})} />
      {fields.length ? (
        <ul class="bad" data-testid="error-details">
          {fields.map((d, i) => (
            <li key={i}>
              {d.path ? <code>{d.path}</code> : null} {fieldMessageText(String(d.message ?? ""))}
            </li>
          ))}
        </ul>
      ) : null}
      {typeof retry === "number" ? <p class="muted">{t("retryAfter", { s: retry })}</p> : null}
    </>
  );
}
