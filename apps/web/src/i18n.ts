/**
 * The dashboard's languages: English, Simplified Chinese (`cn`) and Traditional Chinese (`tw`), the
 * locales the API's profiles use. Each page owns its strings: `messages({en, cn, tw})` gives it a `t`
 * reading the current locale, which the shell sets before every render.
 */
export const locales = ["en", "cn", "tw"] as const;
export type Locale = (typeof locales)[number];

const STORAGE_KEY = "vantage.locale";
let current: Locale = initialLocale();

function initialLocale(): Locale {
  const saved = globalThis.localStorage?.getItem(STORAGE_KEY);
  if (saved && (locales as readonly string[]).includes(saved)) return saved as Locale;
  const lang = (globalThis.navigator?.language ?? "en").toLowerCase();
  if (lang.startsWith("zh")) return /tw|hk|mo|hant/.test(lang) ? "tw" : "cn";
  return "en";
}

export function locale(): Locale {
  return current;
}

export function setLocale(l: Locale): void {
  current = l;
  globalThis.localStorage?.setItem(STORAGE_KEY, l);
  document.documentElement.lang = l === "en" ? "en" : l === "cn" ? "zh-Hans" : "zh-Hant";
}

/** `{name}` placeholders are replaced by `vars`. */
export type Translate<K extends string> = (key: K, vars?: Record<string, string | number>) => string;

export function messages<K extends string>(table: Record<Locale, Record<K, string>>): Translate<K> {
  return (key, vars) => {
    let s = table[current][key] ?? table.en[key] ?? key;
    if (vars) for (const [k, v] of Object.entries(vars)) s = s.replaceAll(`{${k}}`, String(v));
    return s;
  };
}

/** Numbers and dates in the current locale. */
export function formatNumber(n: number, digits = 0): string {
  return n.toLocaleString(current === "en" ? "en" : current === "cn" ? "zh-CN" : "zh-TW", {
    maximumFractionDigits: digits,
  });
}

export function formatTime(iso: string | number | Date): string {
  return new Date(iso).toLocaleString(current === "en" ? "en" : current === "cn" ? "zh-CN" : "zh-TW");
}
