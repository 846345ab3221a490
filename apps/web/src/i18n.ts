/**
 * The dashboard's languages: English, Simplified Chinese (`cn`) and Traditional Chinese (`tw`), the
 * locales the API's profiles use. Each page owns its strings: `messages({en, cn, tw})` gives it a `t`
 * reading the current locale, which the shell sets before every render.
 */
export const locales = ["en", "cn", "tw"] as const;
export type Locale = (typeof locales)[number];

const STORAGE_KEY = "vantage.locale";
/** The browser's parts this file uses, typed here so that its tests type-check without the DOM library. */
const browser = globalThis as unknown as {
  localStorage?: { getItem(key: string): string | null; setItem(key: string, value: string): void };
  navigator?: { language?: string };
  document?: { documentElement: { lang: string } };
};
let current: Locale = initialLocale();

function initialLocale(): Locale {
  const saved = browser.localStorage?.getItem(STORAGE_KEY);
  if (saved && (locales as readonly string[]).includes(saved)) return saved as Locale;
  const lang = (browser.navigator?.language ?? "en").toLowerCase();
  if (lang.startsWith("zh")) return /tw|hk|mo|hant/.test(lang) ? "tw" : "cn";
  return "en";
}

export function locale(): Locale {
  return current;
}

export function setLocale(l: Locale): void {
  current = l;
  browser.localStorage?.setItem(STORAGE_KEY, l);
  if (browser.document)
    browser.document.documentElement.lang = l === "en" ? "en" : l === "cn" ? "zh-Hans" : "zh-Hant";
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

/** A date and time in the browser's time zone; `short`: the locale's short form, no seconds ("6/5/25, 2:02 PM"). */
export function formatTime(iso: string | number | Date, short = false): string {
  return new Date(iso).toLocaleString(
    current === "en" ? "en" : current === "cn" ? "zh-CN" : "zh-TW",
    short ? { dateStyle: "short", timeStyle: "short" } : undefined,
  );
}

const unitNames = messages({
  en: { d: "{n} d", h: "{n} h", min: "{n} min", s: "{n} s", ms: "{n} ms", bits: "{n} bits" },
  cn: { d: "{n} 天", h: "{n} 小时", min: "{n} 分钟", s: "{n} 秒", ms: "{n} 毫秒", bits: "{n} 位" },
  tw: { d: "{n} 天", h: "{n} 小時", min: "{n} 分鐘", s: "{n} 秒", ms: "{n} 毫秒", bits: "{n} 位元" },
});
export type Unit = "d" | "h" | "min" | "s" | "ms" | "bits";

/** A number of a unit in the current locale: `formatUnit(3, "h")` is "3 h", "3 小时", "3 小時". */
export function formatUnit(n: number, unit: Unit, digits = 0): string {
  return unitNames(unit, { n: formatNumber(n, digits) });
}

/**
 * A duration given in seconds as people say it, by its two largest units: "7 h 38 min", "2 d 3 h",
 * "5 min 12 s", "45 s" (and "7 小时 38 分钟" in Chinese).
 */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const parts: [number, Unit][] = [
    [Math.floor(s / 86_400), "d"],
    [Math.floor((s % 86_400) / 3600), "h"],
    [Math.floor((s % 3600) / 60), "min"],
    [s % 60, "s"],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  if (first < 0) return formatUnit(0, "s");
  return parts
    .slice(first, first + 2)
    .filter(([n]) => n > 0)
    .map(([n, u]) => formatUnit(n, u))
    .join(" ");
}
