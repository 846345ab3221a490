import { ApiError } from "../api.js";
import { messages } from "../i18n.js";
import { ErrorBox } from "../ui.js";

const t = messages({
  en: {
    fields: "Please check:",
    tooMany: "Too many attempts: wait a while before trying again.",
    network: "The server could not be reached: check your connection and try again.",
  },
  cn: {
    fields: "请检查：",
    tooMany: "尝试次数过多：请稍后再试。",
    network: "无法连接服务器：请检查网络后重试。",
  },
  tw: {
    fields: "請檢查：",
    tooMany: "嘗試次數過多：請稍後再試。",
    network: "無法連線到伺服器：請檢查網路後重試。",
  },
});

interface Detail {
  path: string;
  message: string;
}

/** The `{path, message}` entries of a 400's `details` (validation errors name the fields that failed). */
export function fieldDetails(error: unknown): Detail[] {
  if (!(error instanceof ApiError) || !Array.isArray(error.details)) return [];
  return error.details.filter(
    (d): d is Detail => typeof d === "object" && d !== null && typeof (d as Detail).path === "string",
  );
}

/** Whether the error names one of `paths` (e.g. `body.email`): for `aria-invalid` on that field. */
export function invalid(error: unknown, ...paths: string[]): true | undefined {
  return fieldDetails(error).some((d) => paths.some((p) => d.path === p || d.path.startsWith(`${p}.`)))
    ? true
    : undefined;
}

/**
 * A form's error: the API's message and code (ErrorBox), a plain-language hint for the status when the
 * page has one (`hints[401]`), and each field path the API named with its message.
 */
export function FormError({ error, hints = {} }: { error: unknown; hints?: Record<number, string> }) {
  if (!error) return null;
  const status = error instanceof ApiError ? error.status : undefined;
  const hint =
    status === undefined
      ? undefined
      : (hints[status] ?? (status === 429 ? t("tooMany") : status === 0 ? t("network") : undefined));
  const details = fieldDetails(error);
  return (
    <div>
      <ErrorBox error={error} />
      {hint ? <p class="bad">{hint}</p> : null}
      {details.length > 0 ? (
        <div class="bad">
          {t("fields")}
          <ul>
            {details.map((d) => (
              <li>
                <code>{d.path}</code>: {d.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}
