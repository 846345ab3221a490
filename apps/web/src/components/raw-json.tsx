import { messages } from "../i18n.js";

const t = messages({
  en: { raw: "Raw JSON" },
  cn: { raw: "原始 JSON" },
  tw: { raw: "原始 JSON" },
});

/** The API's answer as it came, folded away for those who want it. */
export function RawJson({ value }: { value: unknown }) {
  return (
    <details>
      <summary>{t("raw")}</summary>
      <pre>{JSON.stringify(value, null, 2)}</pre>
    </details>
  );
}
