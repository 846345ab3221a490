import { useState } from "preact/hooks";
import { call } from "../../api.js";
import { describedBy, FieldError, FormError, invalid } from "../../components/account-form-error.js";
import { messages } from "../../i18n.js";
import { createBody, fieldPaths, type Monitor, type MonitorType, monitorTypes } from "./monitor-shape.js";

const t = messages({
  en: {
    create: "Create a monitor",
    name: "Name",
    type: "Type",
    url: "URL",
    host: "Host name or IP",
    domain: "Domain",
    port: "Port",
    interval: "Interval (seconds)",
    intervalHint: "empty: the plan's default",
    method: "Method",
    expected: "Expected status codes",
    expectedHint: "comma-separated codes or classes, e.g. 200, 3xx",
    keyword: "Keyword the body must contain",
    count: "Echo requests per run",
    recordType: "Record type",
    expectedValue: "Expected answer",
    maxHops: "Maximum hops",
    rounds: "mtr rounds per run",
    maxLoss: "Most loss at the target (%)",
    more: "More settings",
    nodeCount: "Nodes per run",
    failures: "Failing runs before down",
    timeout: "Timeout (ms)",
    optional: "optional",
    creating: "Creating…",
    createButton: "Create monitor",
    created: "Monitor {name} created.",
  },
  cn: {
    create: "创建监控",
    name: "名称",
    type: "类型",
    url: "URL",
    host: "主机名或 IP",
    domain: "域名",
    port: "端口",
    interval: "间隔（秒）",
    intervalHint: "留空：使用套餐默认值",
    method: "请求方法",
    expected: "期望的状态码",
    expectedHint: "以逗号分隔的状态码或类别，例如 200, 3xx",
    keyword: "响应正文必须包含的关键字",
    count: "每次运行的回显请求数",
    recordType: "记录类型",
    expectedValue: "期望的解析结果",
    maxHops: "最大跳数",
    rounds: "每次运行的 mtr 轮数",
    maxLoss: "目标最大丢包率（%）",
    more: "更多设置",
    nodeCount: "每次运行的节点数",
    failures: "判定故障前的连续失败次数",
    timeout: "超时（毫秒）",
    optional: "可选",
    creating: "创建中…",
    createButton: "创建监控",
    created: "监控 {name} 已创建。",
  },
  tw: {
    create: "建立監控",
    name: "名稱",
    type: "類型",
    url: "URL",
    host: "主機名稱或 IP",
    domain: "網域",
    port: "連接埠",
    interval: "間隔（秒）",
    intervalHint: "留空：使用方案預設值",
    method: "請求方法",
    expected: "預期的狀態碼",
    expectedHint: "以逗號分隔的狀態碼或類別，例如 200, 3xx",
    keyword: "回應內容必須包含的關鍵字",
    count: "每次執行的回應請求數",
    recordType: "記錄類型",
    expectedValue: "預期的解析結果",
    maxHops: "最大躍點數",
    rounds: "每次執行的 mtr 輪數",
    maxLoss: "目標最大丟包率（%）",
    more: "更多設定",
    nodeCount: "每次執行的節點數",
    failures: "判定異常前的連續失敗次數",
    timeout: "逾時（毫秒）",
    optional: "選填",
    creating: "建立中…",
    createButton: "建立監控",
    created: "監控 {name} 已建立。",
  },
});

const methods = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"];
const recordTypes = ["A", "AAAA", "MX", "TXT", "NS", "CNAME", "SOA"];

/** The type's settings as text fields; only those filled in are sent (numbers as numbers). */
type Settings = Record<string, string>;
const numeric = new Set([
  "count",
  "max_hops",
  "rounds",
  "max_loss_percent",
  "node_count",
  "failure_threshold",
  "timeout_ms",
]);

function configFrom(type: MonitorType, s: Settings): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  const keys: Record<MonitorType, string[]> = {
    http: ["method", "expected_status", "keyword", "timeout_ms"],
    ping: ["count", "timeout_ms"],
    tcp: ["timeout_ms"],
    dns: ["expected_value", "timeout_ms"],
    traceroute: ["max_hops"],
    mtr: ["rounds", "max_hops", "max_loss_percent"],
  };
  for (const k of [...keys[type], "node_count", "failure_threshold"]) {
    const v = (s[k] ?? "").trim();
    if (v === "" || (k === "method" && v === "GET")) continue;
    if (k === "expected_status")
      config[k] = v
        .split(/[\s,]+/)
        .filter(Boolean)
        .map((x) => (/^\d+$/.test(x) ? Number(x) : x));
    else config[k] = numeric.has(k) ? Number(v) : v;
  }
  return config;
}

/** The create form: type, target (as the type names it), interval, name and the type's basic settings. */
export function MonitorForm({ onCreated }: { onCreated: (m: Monitor) => void }) {
  const [name, setName] = useState("");
  const [type, setType] = useState<MonitorType>("http");
  const [target, setTarget] = useState("");
  const [port, setPort] = useState("");
  const [interval, setEvery] = useState("");
  const [recordType, setRecordType] = useState("A");
  const [settings, setSettings] = useState<Settings>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const set = (k: string) => (e: { currentTarget: { value: string } }) =>
    setSettings({ ...settings, [k]: e.currentTarget.value });
  const configPath = (k: string) => `body.config.${k}`;
  const numberField = (k: string, label: string, min: number, max: number) => (
    <label>
      {label}
      <input
        type="number"
        inputMode="numeric"
        min={min}
        max={max}
        name={k}
        placeholder={t("optional")}
        value={settings[k] ?? ""}
        aria-invalid={invalid(error, configPath(k))}
        aria-describedby={describedBy(error, configPath(k))}
        onInput={set(k)}
      />
      <FieldError error={error} path={configPath(k)} />
    </label>
  );

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const body = createBody({
        name,
        type,
        target,
        port,
        interval,
        recordType,
        config: configFrom(type, settings),
      });
      const m = await call<Monitor>("POST", "/v1/monitors", { body });
      setName("");
      setTarget("");
      setPort("");
      setSettings({});
      onCreated(m);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const targetLabel = type === "http" ? t("url") : type === "dns" ? t("domain") : t("host");
  return (
    <form class="stack" onSubmit={submit} aria-label={t("create")}>
      <label>
        {t("type")}
        <select name="type" value={type} onChange={(e) => setType(e.currentTarget.value as MonitorType)}>
          {monitorTypes.map((x) => (
            <option value={x}>{x.toUpperCase()}</option>
          ))}
        </select>
      </label>
      <label>
        {targetLabel}
        <input
          name="target"
          required
          type={type === "http" ? "url" : "text"}
          inputMode={type === "http" ? "url" : "text"}
          autocapitalize="off"
          spellcheck={false}
          placeholder={type === "http" ? "https://" : ""}
          value={target}
          aria-invalid={invalid(error, ...fieldPaths.target)}
          aria-describedby={describedBy(error, ...fieldPaths.target)}
          onInput={(e) => setTarget(e.currentTarget.value)}
        />
        <FieldError error={error} path={fieldPaths.target} />
      </label>
      {type === "tcp" ? (
        <label>
          {t("port")}
          <input
            name="port"
            type="number"
            inputMode="numeric"
            min={1}
            max={65535}
            required
            value={port}
            aria-invalid={invalid(error, ...fieldPaths.port)}
            aria-describedby={describedBy(error, ...fieldPaths.port)}
            onInput={(e) => setPort(e.currentTarget.value)}
          />
          <FieldError error={error} path={fieldPaths.port} />
        </label>
      ) : null}
      <label>
        {t("name")}
        <input
          name="name"
          required
          maxLength={100}
          value={name}
          aria-invalid={invalid(error, ...fieldPaths.name)}
          aria-describedby={describedBy(error, ...fieldPaths.name)}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <FieldError error={error} path={fieldPaths.name} />
      </label>
      <label>
        {t("interval")}
        <input
          name="interval"
          type="number"
          inputMode="numeric"
          min={1}
          max={86400}
          placeholder={t("intervalHint")}
          value={interval}
          aria-invalid={invalid(error, ...fieldPaths.interval)}
          aria-describedby={describedBy(error, ...fieldPaths.interval)}
          onInput={(e) => setEvery(e.currentTarget.value)}
        />
        <FieldError error={error} path={fieldPaths.interval} />
      </label>
      {type === "http" ? (
        <>
          <label>
            {t("method")}
            <select name="method" value={settings.method ?? "GET"} onChange={set("method")}>
              {methods.map((m) => (
                <option value={m}>{m}</option>
              ))}
            </select>
          </label>
          <label>
            {t("expected")}
            <input
              name="expected_status"
              placeholder={t("expectedHint")}
              value={settings.expected_status ?? ""}
              aria-invalid={invalid(error, configPath("expected_status"))}
              aria-describedby={describedBy(error, configPath("expected_status"))}
              onInput={set("expected_status")}
            />
            <FieldError error={error} path={configPath("expected_status")} />
          </label>
          <label>
            {t("keyword")}
            <input
              name="keyword"
              placeholder={t("optional")}
              value={settings.keyword ?? ""}
              aria-invalid={invalid(error, configPath("keyword"))}
              aria-describedby={describedBy(error, configPath("keyword"))}
              onInput={set("keyword")}
            />
            <FieldError error={error} path={configPath("keyword")} />
          </label>
        </>
      ) : null}
      {type === "ping" ? numberField("count", t("count"), 1, 10) : null}
      {type === "dns" ? (
        <>
          <label>
            {t("recordType")}
            <select
              name="record_type"
              value={recordType}
              onChange={(e) => setRecordType(e.currentTarget.value)}
            >
              {recordTypes.map((r) => (
                <option value={r}>{r}</option>
              ))}
            </select>
          </label>
          <label>
            {t("expectedValue")}
            <input
              name="expected_value"
              placeholder={t("optional")}
              value={settings.expected_value ?? ""}
              aria-invalid={invalid(error, configPath("expected_value"))}
              aria-describedby={describedBy(error, configPath("expected_value"))}
              onInput={set("expected_value")}
            />
            <FieldError error={error} path={configPath("expected_value")} />
          </label>
        </>
      ) : null}
      {type === "traceroute" || type === "mtr" ? numberField("max_hops", t("maxHops"), 1, 64) : null}
      {type === "mtr" ? numberField("rounds", t("rounds"), 1, 100) : null}
      {type === "mtr" ? numberField("max_loss_percent", t("maxLoss"), 0, 100) : null}
      <details>
        <summary>{t("more")}</summary>
        <div class="stack" style={{ marginTop: "8px" }}>
          {numberField("node_count", t("nodeCount"), 1, 10)}
          {numberField("failure_threshold", t("failures"), 1, 10)}
          {type !== "traceroute" && type !== "mtr"
            ? numberField("timeout_ms", t("timeout"), 100, 30000)
            : null}
        </div>
      </details>
      <div>
        <button type="submit" disabled={busy}>
          {busy ? t("creating") : t("createButton")}
        </button>
      </div>
      <FormError
        error={error}
        placed={[
          ...fieldPaths.target,
          ...fieldPaths.port,
          ...fieldPaths.name,
          ...fieldPaths.interval,
          ...["expected_status", "keyword", "expected_value", "count", "max_hops"].map(configPath),
        ]}
      />
    </form>
  );
}

export const createdMessage = (name: string) => t("created", { name });
export const monitorFormTitle = () => t("create");
