import { ApiError } from "../api.js";
import { fieldMessageText } from "../field-messages.js";
import { messages } from "../i18n.js";
import { ErrorBox } from "../ui.js";

const t = messages({
  en: { fields: "Please check:" },
  cn: { fields: "请检查：" },
  tw: { fields: "請檢查：" },
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

const matches = (d: Detail, paths: string[]) => paths.some((p) => d.path === p || d.path.startsWith(`${p}.`));

/** Whether the error names one of `paths` (e.g. `body.email`): for `aria-invalid` on that field. */
export function invalid(error: unknown, ...paths: string[]): true | undefined {
  return fieldDetails(error).some((d) => matches(d, paths)) ? true : undefined;
}

/**
 * What the API said about one field, in the current locale, to sit right by that field (give the input
 * `aria-describedby={describedBy(error, path)}`); nothing when the error names no such field. `path` may
 * list the field's names in either form (`["body.target", "body.url"]`).
 */
export function FieldError({ error, path }: { error: unknown; path: string | string[] }) {
  const paths = typeof path === "string" ? [path] : path;
  const mine = fieldDetails(error).filter((d) => matches(d, paths));
  if (mine.length === 0) return null;
  return (
    <span class="bad field-error" id={fieldErrorId(paths[0]!)} data-field-error={paths[0]}>
      {mine.map((d) => fieldMessageText(d.message)).join("; ")}
    </span>
  );
}

export const fieldErrorId = (path: string) => `err-${path.replace(/[^A-Za-z0-9_-]/g, "-")}`;

/** The id of the field's FieldError when the error names the field (for `aria-describedby`). */
export const describedBy = (error: unknown, ...paths: string[]) =>
  invalid(error, ...paths) && fieldErrorId(paths[0]!);

/**
 * A form's error: a sentence for the API's code (ErrorBox), a plain-language hint for the status when the
 * page has one (`hints[401]`), and each field the API named with its message, once. Fields the form shows
 * by their input with FieldError are listed in `placed` and left out here.
 */
export function FormError({
  error,
  hints = {},
  placed = [],
}: {
  error: unknown;
  hints?: Record<number, string>;
  placed?: string[];
}) {
  if (!error) return null;
  const status = error instanceof ApiError ? error.status : undefined;
  const hint = status === undefined ? undefined : hints[status];
  const details = fieldDetails(error).filter((d) => !matches(d, placed));
  return (
    <div>
      <ErrorBox error={error} />
      {hint ? <p class="bad">{hint}</p> : null}
      {details.length > 0 ? (
        <div class="bad" data-testid="error-details">
          {t("fields")}
          <ul>
            {details.map((d) => (
              <li>
                <code>{d.path}</code>: {fieldMessageText(d.message)}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}
