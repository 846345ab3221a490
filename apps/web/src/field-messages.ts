import { type Locale, messages } from "./i18n.js";

/**
 * What the API says about one field (the `message` of a `{path, message}` detail), in the current locale:
 * the messages zod and the routes give most often; any other stays as the API wrote it.
 */
export const fieldMessages = {
  en: {
    required: "required",
    unknownField: "not a field the service knows",
    expected: "expected {type}",
    whole: "expected a whole number",
    number: "expected a number",
    minChars: "at least {n} characters",
    maxChars: "at most {n} characters",
    maxBytes: "at most {n} bytes",
    minItems: "at least {n} items",
    maxItems: "at most {n} items",
    atLeast: "at least {n}",
    atMost: "at most {n}",
    oneOf: "one of: {list}",
    email: "not a valid email address",
    url: "not a valid URL",
    httpUrl: "must be an http:// or https:// URL",
    blank: "must not be blank",
    host: "must be a host name or an IP address",
    hostPort: "must be host or host:port",
    port: "port must be 1–65535",
    format: "not in the expected format",
    slugTaken: "another page has this slug",
    domainTaken: "another page has this domain",
    afterStart: "must be after the start",
    wrongPassword: "the current password is wrong",
    timeZone: "not a time zone name (e.g. Europe/Berlin, UTC)",
    noMonitor: "no monitor {id}",
    subscribed: "this URL already subscribes to the page",
    more: "… and {n} more",
  },
  cn: {
    required: "必填",
    unknownField: "服务无法识别此字段",
    expected: "应为{type}",
    whole: "应为整数",
    number: "应为数字",
    minChars: "至少 {n} 个字符",
    maxChars: "最多 {n} 个字符",
    maxBytes: "最多 {n} 字节",
    minItems: "至少 {n} 项",
    maxItems: "最多 {n} 项",
    atLeast: "不能小于 {n}",
    atMost: "不能大于 {n}",
    oneOf: "须为以下之一：{list}",
    email: "邮箱地址无效",
    url: "URL 无效",
    httpUrl: "须为 http:// 或 https:// 开头的 URL",
    blank: "不能为空",
    host: "须为主机名或 IP 地址",
    hostPort: "须为主机或 主机:端口",
    port: "端口须在 1–65535 之间",
    format: "格式不正确",
    slugTaken: "其他页面已使用此 slug",
    domainTaken: "其他页面已使用此域名",
    afterStart: "须晚于开始时间",
    wrongPassword: "当前密码不正确",
    timeZone: "不是有效的时区名称（如 Asia/Shanghai、UTC）",
    noMonitor: "没有监控 {id}",
    subscribed: "此 URL 已订阅该页面",
    more: "……还有 {n} 项",
  },
  tw: {
    required: "必填",
    unknownField: "服務無法識別此欄位",
    expected: "應為{type}",
    whole: "應為整數",
    number: "應為數字",
    minChars: "至少 {n} 個字元",
    maxChars: "最多 {n} 個字元",
    maxBytes: "最多 {n} 位元組",
    minItems: "至少 {n} 項",
    maxItems: "最多 {n} 項",
    atLeast: "不能小於 {n}",
    atMost: "不能大於 {n}",
    oneOf: "須為以下之一：{list}",
    email: "電子郵件地址無效",
    url: "URL 無效",
    httpUrl: "須為 http:// 或 https:// 開頭的 URL",
    blank: "不能為空白",
    host: "須為主機名稱或 IP 位址",
    hostPort: "須為主機或 主機:連接埠",
    port: "連接埠須在 1–65535 之間",
    format: "格式不正確",
    slugTaken: "其他頁面已使用此 slug",
    domainTaken: "其他頁面已使用此網域",
    afterStart: "須晚於開始時間",
    wrongPassword: "目前的密碼不正確",
    timeZone: "不是有效的時區名稱（如 Asia/Taipei、UTC）",
    noMonitor: "沒有監控 {id}",
    subscribed: "此 URL 已訂閱該頁面",
    more: "……還有 {n} 項",
  },
} satisfies Record<Locale, Record<string, string>>;

const typeNames = {
  en: { string: "text", number: "a number", boolean: "true or false", array: "a list", object: "an object" },
  cn: { string: "文本", number: "数字", boolean: "是或否", array: "列表", object: "对象" },
  tw: { string: "文字", number: "數字", boolean: "是或否", array: "清單", object: "物件" },
} satisfies Record<Locale, Record<string, string>>;

const field = messages<keyof typeof fieldMessages.en>(fieldMessages);
const typeName = messages<keyof typeof typeNames.en>(typeNames);

/** `[pattern, translate(match)]`, first match wins. */
const fieldPatterns: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/^Invalid input: expected \w+, received undefined$/, () => field("required")],
  [/^Required$/i, () => field("required")],
  [/^unknown field$/, () => field("unknownField")],
  [/^expected a whole number$|expected int, received/, () => field("whole")],
  [/^expected a number$/, () => field("number")],
  [
    /^Invalid input: expected (string|number|boolean|array|object), received \w+$/,
    (m) => field("expected", { type: typeName(m[1] as "string") }),
  ],
  [/^Too small: expected string to have >=?(\d+) characters?$/, (m) => field("minChars", { n: m[1]! })],
  [/^Too big: expected string to have <=?(\d+) characters?$/, (m) => field("maxChars", { n: m[1]! })],
  [/^must be at most (\d+) characters$/, (m) => field("maxChars", { n: m[1]! })],
  [/^must be at least (\d+) characters$/, (m) => field("minChars", { n: m[1]! })],
  [/^must be at most (\d+) bytes/, (m) => field("maxBytes", { n: m[1]! })],
  [/^Too small: expected array to have >=?(\d+) items?$/, (m) => field("minItems", { n: m[1]! })],
  [/^Too big: expected array to have <=?(\d+) items?$/, (m) => field("maxItems", { n: m[1]! })],
  [/^Too small: expected (?:number|int|bigint) to be >=?(-?[\d.]+)$/, (m) => field("atLeast", { n: m[1]! })],
  [/^Too big: expected (?:number|int|bigint) to be <=?(-?[\d.]+)$/, (m) => field("atMost", { n: m[1]! })],
  [/^Invalid option: expected one of (.+)$/, (m) => field("oneOf", { list: m[1]!.replaceAll('"', "") })],
  [/^Invalid email|^not a valid email address$/i, () => field("email")],
  [/^Invalid URL$/i, () => field("url")],
  [/^must be an http:\/\/ or https:\/\/ URL$/, () => field("httpUrl")],
  [/^must not be blank$/, () => field("blank")],
  [/^must be a host name or an IP address/, () => field("host")],
  [/^must be host or host:port/, () => field("hostPort")],
  [/^port must be 1–65535$/, () => field("port")],
  [/^Invalid string: must match pattern/, () => field("format")],
  [/^another page has this slug$/, () => field("slugTaken")],
  [/^another page has this domain$/, () => field("domainTaken")],
  [/^must be after starts_at$/, () => field("afterStart")],
  [/^the current password is wrong$/, () => field("wrongPassword")],
  [/^not an IANA time zone/, () => field("timeZone")],
  [/^no monitor (\S+)$/, (m) => field("noMonitor", { id: m[1]! })],
  [/^this URL already subscribes to the page$/, () => field("subscribed")],
  [/^… and (\d+) more issues?$/, (m) => field("more", { n: m[1]! })],
];

/** A field's message from the API in the current locale (as written when no translation is known). */
export function fieldMessageText(message: string): string {
  for (const [re, tr] of fieldPatterns) {
    const m = message.match(re);
    if (m) return tr(m);
  }
  return message;
}
