import { formatNumber, locale } from "../i18n.js";
import { flag } from "../ui.js";

const names = new Map<string, Intl.DisplayNames | null>();

/** A country's name in the current language (`ZZ`: "Unknown Region"), or the code when none is known. */
export function countryName(code: string | null | undefined): string {
  if (!code) return "";
  const l = locale();
  let dn = names.get(l);
  if (dn === undefined) {
    try {
      dn = new Intl.DisplayNames([l === "en" ? "en" : l === "cn" ? "zh-Hans" : "zh-Hant"], {
        type: "region",
      });
    } catch {
      dn = null;
    }
    names.set(l, dn);
  }
  try {
    return dn?.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

/** "🇩🇪 Germany" (no flag for codes that are no country, such as ZZ). */
export function countryLabel(code: string | null | undefined): string {
  if (!code) return "";
  const f = /^zz$/i.test(code) ? "" : flag(code);
  return f ? `${f} ${countryName(code)}` : countryName(code);
}

/** Milliseconds as people read them: "0.41 ms", "84.2 ms", "1,204 ms". */
export function ms(n: number | null | undefined): string {
  if (n === null || n === undefined) return "—";
  return `${formatNumber(n, n < 10 ? 2 : n < 1000 ? 1 : 0)} ms`;
}
