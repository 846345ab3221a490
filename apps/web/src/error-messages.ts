/**
 * Errors as people read them, in every locale: a sentence for each code the API answers with (the
 * controller's `errorCodes`, apps/controller/src/http/errors.ts; test/i18n-complete.test.ts fails when a
 * code has no sentence here), and for the reasons a probe or a monitor's run fails (HTTP 500 becomes
 * "HTTP 500 Internal Server Error"). A 400's per-field messages: field-messages.ts.
 */
import { type Locale, messages } from "./i18n.js";

/** The sentence for each API error code, plus the dashboard's own (`network`: the server not reached). */
export const apiErrorSentences = {
  en: {
    validation_error: "Some of what you entered is not valid.",
    unknown_field: "The request carried a field the service does not know.",
    malformed_json: "The request could not be read (malformed JSON).",
    malformed_request: "The request could not be read.",
    invalid_signature: "The signature does not match.",
    unauthorized: "You are not signed in, or your session has ended: please sign in.",
    mcp_token_not_accepted: "An MCP token cannot be used here: use an API key or sign in.",
    forbidden: "You are not allowed to do this.",
    email_not_verified: "Verify your email address first: follow the link in the mail we sent you.",
    insufficient_scope: "This key lacks the permission this needs.",
    not_found: "Not found: it may have been deleted, or the address is wrong.",
    method_not_allowed: "This action is not supported here.",
    not_acceptable: "The service cannot answer in the format asked for.",
    request_timeout: "The request took too long to arrive: try again.",
    conflict: "This conflicts with something that already exists (a name or address in use?).",
    payload_too_large: "What you sent is too large.",
    unsupported_media_type: "The request's content type is not supported.",
    expectation_failed: "The service does not support the Expect header sent.",
    target_not_allowed: "This target is not allowed: private, local and reserved addresses cannot be probed.",
    unprocessable: "The request is understood but cannot be carried out.",
    rate_limited: "Too many requests: wait a moment and try again.",
    quota_exceeded: "Your plan's quota is used up for now.",
    headers_too_large: "The request's headers are too large.",
    internal_error: "Something went wrong on the server: try again later.",
    upstream_error: "A service this depends on answered with an error.",
    no_nodes_available: "No probe node is available for this right now.",
    billing_not_configured: "Billing is not set up on this server.",
    source_unavailable: "The data source for this lookup is not available right now.",
    unavailable: "The service is briefly unavailable: try again in a few seconds.",
    upstream_timeout: "A service this depends on did not answer in time.",
    network: "The server could not be reached: check your connection and try again.",
    unknown: "The request failed (HTTP {status}).",
  },
  cn: {
    validation_error: "输入的内容有误。",
    unknown_field: "请求包含服务无法识别的字段。",
    malformed_json: "无法读取请求（JSON 格式错误）。",
    malformed_request: "无法读取请求。",
    invalid_signature: "签名校验失败。",
    unauthorized: "尚未登录或登录已过期，请重新登录。",
    mcp_token_not_accepted: "此处不能使用 MCP 令牌：请使用 API 密钥或登录。",
    forbidden: "你没有执行此操作的权限。",
    email_not_verified: "请先验证邮箱：点击我们发给你的邮件中的链接。",
    insufficient_scope: "此密钥没有该操作所需的权限。",
    not_found: "未找到：可能已被删除，或地址有误。",
    method_not_allowed: "此处不支持该操作。",
    not_acceptable: "服务无法以所请求的格式响应。",
    request_timeout: "请求传输超时，请重试。",
    conflict: "与已有内容冲突（名称或地址已被使用？）。",
    payload_too_large: "提交的内容过大。",
    unsupported_media_type: "不支持该请求的内容类型。",
    expectation_failed: "服务不支持请求中的 Expect 头。",
    target_not_allowed: "不允许该目标：不能探测私有、本地或保留地址。",
    unprocessable: "请求格式正确，但无法执行。",
    rate_limited: "请求过于频繁，请稍后再试。",
    quota_exceeded: "当前套餐的配额已用完。",
    headers_too_large: "请求头过大。",
    internal_error: "服务器内部出错，请稍后重试。",
    upstream_error: "所依赖的上游服务返回了错误。",
    no_nodes_available: "当前没有可用的探测节点。",
    billing_not_configured: "此服务器未启用计费。",
    source_unavailable: "此查询的数据源暂时不可用。",
    unavailable: "服务暂时不可用，请几秒后重试。",
    upstream_timeout: "所依赖的上游服务响应超时。",
    network: "无法连接服务器：请检查网络后重试。",
    unknown: "请求失败（HTTP {status}）。",
  },
  tw: {
    validation_error: "輸入的內容有誤。",
    unknown_field: "請求包含服務無法識別的欄位。",
    malformed_json: "無法讀取請求（JSON 格式錯誤）。",
    malformed_request: "無法讀取請求。",
    invalid_signature: "簽章驗證失敗。",
    unauthorized: "尚未登入或登入已過期，請重新登入。",
    mcp_token_not_accepted: "此處不能使用 MCP 權杖：請使用 API 金鑰或登入。",
    forbidden: "你沒有執行此操作的權限。",
    email_not_verified: "請先驗證電子郵件：點擊我們寄給你的郵件中的連結。",
    insufficient_scope: "此金鑰沒有該操作所需的權限。",
    not_found: "找不到：可能已被刪除，或網址有誤。",
    method_not_allowed: "此處不支援該操作。",
    not_acceptable: "服務無法以所要求的格式回應。",
    request_timeout: "請求傳輸逾時，請重試。",
    conflict: "與現有內容衝突（名稱或位址已被使用？）。",
    payload_too_large: "送出的內容過大。",
    unsupported_media_type: "不支援該請求的內容類型。",
    expectation_failed: "服務不支援請求中的 Expect 標頭。",
    target_not_allowed: "不允許該目標：不能探測私有、本機或保留位址。",
    unprocessable: "請求格式正確，但無法執行。",
    rate_limited: "請求過於頻繁，請稍後再試。",
    quota_exceeded: "目前方案的配額已用完。",
    headers_too_large: "請求標頭過大。",
    internal_error: "伺服器內部發生錯誤，請稍後重試。",
    upstream_error: "所依賴的上游服務回傳了錯誤。",
    no_nodes_available: "目前沒有可用的探測節點。",
    billing_not_configured: "此伺服器未啟用計費。",
    source_unavailable: "此查詢的資料來源暫時無法使用。",
    unavailable: "服務暫時無法使用，請幾秒後重試。",
    upstream_timeout: "所依賴的上游服務回應逾時。",
    network: "無法連線到伺服器：請檢查網路後重試。",
    unknown: "請求失敗（HTTP {status}）。",
  },
} satisfies Record<Locale, Record<string, string>>;

type ApiErrorKey = keyof typeof apiErrorSentences.en;
const sentence = messages<ApiErrorKey>(apiErrorSentences);
const hasSentence = (code: string): code is ApiErrorKey => Object.hasOwn(apiErrorSentences.en, code);

/**
 * The sentence for an error: an API error (api.ts's ApiError: `status` and `code`) by its code, by its
 * status when the code is not known; any other error by its message.
 */
export function errorSentence(error: unknown): string {
  const e = error as { status?: unknown; code?: unknown; message?: unknown } | null | undefined;
  if (e && typeof e === "object" && typeof e.status === "number" && typeof e.code === "string") {
    return hasSentence(e.code) && e.code !== "unknown"
      ? sentence(e.code)
      : sentence("unknown", { status: e.status });
  }
  return String(e?.message ?? error);
}

/** Reasons a probe or a monitor's run fails: the probes' error codes and the monitors' own checks. */
export const runErrorSentences = {
  en: {
    target_not_allowed: "target not allowed",
    dns_resolution_failed: "the name did not resolve",
    connection_refused: "connection refused",
    host_unreachable: "host unreachable",
    network_unreachable: "network unreachable",
    timeout: "timed out",
    tls_error: "TLS handshake failed",
    icmp_unavailable: "ICMP not available on the node",
    ipv6_unavailable: "IPv6 not available on the node",
    resources_exhausted: "the node was out of resources",
    too_many_redirects: "too many redirects",
    packet_too_big: "packet too big for the path (DF set)",
    invalid_target: "invalid target",
    probe_error: "the probe failed",
    unexpected_status: "unexpected HTTP status",
    unexpectedStatusCode: "HTTP {code} {reason}",
    keyword_missing: "keyword not found",
    keyword_present: "keyword found (it should be absent)",
    packet_loss: "packet loss above the limit",
    unexpected_answer: "unexpected DNS answer",
    node_offline: "the node is offline",
    node_busy: "the node was busy",
    node_timeout: "the node did not answer in time",
    node_error: "the node could not be reached",
    transport_lost: "the connection to the node was lost",
    incompatible_version: "the node's agent is too old or too new",
    probe_quarantined: "held back: this probe crashed an agent before",
  },
  cn: {
    target_not_allowed: "不允许的目标",
    dns_resolution_failed: "域名无法解析",
    connection_refused: "连接被拒绝",
    host_unreachable: "主机不可达",
    network_unreachable: "网络不可达",
    timeout: "超时",
    tls_error: "TLS 握手失败",
    icmp_unavailable: "节点无法使用 ICMP",
    ipv6_unavailable: "节点不支持 IPv6",
    resources_exhausted: "节点资源耗尽",
    too_many_redirects: "重定向次数过多",
    packet_too_big: "数据包超过路径 MTU（已设置 DF）",
    invalid_target: "目标无效",
    probe_error: "探测失败",
    unexpected_status: "HTTP 状态码不符合预期",
    unexpectedStatusCode: "HTTP {code} {reason}",
    keyword_missing: "未找到关键词",
    keyword_present: "出现了不应出现的关键词",
    packet_loss: "丢包率超过上限",
    unexpected_answer: "DNS 应答不符合预期",
    node_offline: "节点离线",
    node_busy: "节点繁忙",
    node_timeout: "节点未及时响应",
    node_error: "无法连接节点",
    transport_lost: "与节点的连接中断",
    incompatible_version: "节点的代理版本不兼容",
    probe_quarantined: "已暂缓：此探测曾导致代理崩溃",
  },
  tw: {
    target_not_allowed: "不允許的目標",
    dns_resolution_failed: "網域無法解析",
    connection_refused: "連線被拒絕",
    host_unreachable: "主機無法連線",
    network_unreachable: "網路無法連線",
    timeout: "逾時",
    tls_error: "TLS 交握失敗",
    icmp_unavailable: "節點無法使用 ICMP",
    ipv6_unavailable: "節點不支援 IPv6",
    resources_exhausted: "節點資源耗盡",
    too_many_redirects: "重新導向次數過多",
    packet_too_big: "封包超過路徑 MTU（已設定 DF）",
    invalid_target: "目標無效",
    probe_error: "探測失敗",
    unexpected_status: "HTTP 狀態碼不符合預期",
    unexpectedStatusCode: "HTTP {code} {reason}",
    keyword_missing: "找不到關鍵字",
    keyword_present: "出現了不應出現的關鍵字",
    packet_loss: "封包遺失率超過上限",
    unexpected_answer: "DNS 回應不符合預期",
    node_offline: "節點離線",
    node_busy: "節點忙碌",
    node_timeout: "節點未及時回應",
    node_error: "無法連線到節點",
    transport_lost: "與節點的連線中斷",
    incompatible_version: "節點的代理程式版本不相容",
    probe_quarantined: "已暫緩：此探測曾導致代理程式當機",
  },
} satisfies Record<Locale, Record<string, string>>;

/** HTTP reason phrases (RFC 9110), the words after a status code: kept in English as servers send them. */
export const httpReasons: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  418: "I'm a teapot",
  421: "Misdirected Request",
  422: "Unprocessable Content",
  425: "Too Early",
  426: "Upgrade Required",
  429: "Too Many Requests",
  451: "Unavailable For Legal Reasons",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
  505: "HTTP Version Not Supported",
  301: "Moved Permanently",
  302: "Found",
  303: "See Other",
  304: "Not Modified",
  307: "Temporary Redirect",
  308: "Permanent Redirect",
};

const run = messages<keyof typeof runErrorSentences.en>(runErrorSentences);
const hasRunSentence = (code: string): code is keyof typeof runErrorSentences.en =>
  Object.hasOwn(runErrorSentences.en, code) && code !== "unexpectedStatusCode";

/**
 * Why a run or a probe failed, in words: `unexpected_status` with the status code is "HTTP 500 Internal
 * Server Error"; a code without a sentence (a newer agent's) stays as it is.
 */
export function runErrorText(code: string, statusCode?: number | null): string {
  if (code === "unexpected_status" && typeof statusCode === "number") {
    return run("unexpectedStatusCode", { code: statusCode, reason: httpReasons[statusCode] ?? "" }).trim();
  }
  return hasRunSentence(code) ? run(code) : code;
}
