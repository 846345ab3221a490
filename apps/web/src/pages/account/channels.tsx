import { useState } from "preact/hooks";
import { call } from "../../api.js";
import { ConfirmButton } from "../../components/account-confirm.js";
import { describedBy, FieldError, FormError, invalid } from "../../components/account-form-error.js";
import { formatTime, messages } from "../../i18n.js";
import { Card, ErrorBox, Loading } from "../../ui.js";
import {
  type Channel,
  type ChannelType,
  channelTypes,
  newWebhookSecret,
  type TestResult,
} from "./alert-shape.js";

const t = messages({
  en: {
    title: "Channels",
    none: "No channels yet.",
    name: "Name",
    type: "Type",
    settings: "Settings",
    webhook: "Webhook",
    email: "Email",
    slack: "Slack",
    url: "URL to POST to",
    secret: "Signing secret (whsec_…)",
    generate: "Generate",
    secretHint: "Keep a copy: the receiver checks signatures with it, and it is never shown again.",
    to: "Recipients (one per line or comma-separated)",
    slackUrl: "Slack incoming webhook URL",
    dingtalk: "DingTalk",
    feishu: "Feishu / Lark",
    wecom: "WeCom",
    pagerduty: "PagerDuty",
    sms: "SMS",
    dingtalkUrl: "DingTalk robot webhook URL",
    feishuUrl: "Feishu / Lark bot webhook URL",
    wecomUrl: "WeCom group robot webhook URL",
    signSecret: "Signing secret (optional)",
    routingKey: "Integration key (routing key)",
    severity: "Severity",
    sevDefault: "Critical (default)",
    critical: "Critical",
    error: "Error",
    warning: "Warning",
    info: "Info",
    accountSid: "Account SID",
    authToken: "Auth token",
    from: "Sending number (E.164, such as +14155550100)",
    smsTo: "Numbers to text (E.164, one per line or comma-separated, at most 5)",
    howTo: "Where to find these",
    hint_webhook:
      "Vantage POSTs a JSON event signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature headers); your receiver checks the signature with the secret below.",
    hint_email: "Alerts are mailed from this server's sender address to at most 10 recipients.",
    hint_slack:
      "In Slack: open api.slack.com/apps → your app (or Create New App) → Incoming Webhooks → Add New Webhook to Workspace, pick the channel, and copy the https://hooks.slack.com/services/… URL. The URL is the credential: it is stored sealed.",
    hint_dingtalk:
      "In the DingTalk group: Group settings → Bots → Add Robot → Custom (Webhook). Under Security Settings tick “Additional Signature” (加签) and copy its SEC… secret, then copy the Webhook URL (…/robot/send?access_token=…). Vantage signs every message with the secret.",
    hint_feishu:
      "In the Feishu / Lark group: Settings → Bots → Add Bot → Custom Bot. Copy the webhook URL (…/open-apis/bot/v2/hook/…); under Security settings turn on “Set signature verification” and copy that secret. Vantage signs every message with it.",
    hint_wecom:
      "In the WeCom group chat: ⋯ → Group Robots → Add → New robot, then copy its webhook URL (…/cgi-bin/webhook/send?key=…). WeCom robots have no signing: the key in the URL is the credential, stored sealed.",
    hint_pagerduty:
      "In PagerDuty: Services → your service → Integrations → Add an integration → Events API V2, then copy the 32-character Integration Key. A down alert opens an incident, up resolves it.",
    hint_sms:
      "Through a Twilio-compatible Messages API (this server's VANTAGE_SMS_API_URL). In the Twilio Console copy the Account SID and Auth Token, and use a number of the account as the sender. One message per recipient, charged by your provider.",
    create: "Add a channel",
    creating: "Adding…",
    createButton: "Add channel",
    test: "Send test",
    testNamed: "Send a test to {name}",
    testing: "Sending…",
    testOk: "Test sent{status}.",
    testFailed: "Test failed{status}: {reason}",
    remove: "Delete",
    removeNamed: "Delete {name}",
    removeQuestion: "Delete {name}? It leaves every policy that names it.",
    actions: "Actions",
    delivery: "Delivery",
    deliveryOk: "Delivering",
    failing: "Failing since {since}: {error}",
    nextTry: "Next try {at}; {n} waiting.",
  },
  cn: {
    title: "通知渠道",
    none: "还没有通知渠道。",
    name: "名称",
    type: "类型",
    settings: "设置",
    webhook: "Webhook",
    email: "邮件",
    slack: "Slack",
    url: "接收 POST 的 URL",
    secret: "签名密钥（whsec_…）",
    generate: "生成",
    secretHint: "请保存一份：接收方用它校验签名，之后不会再显示。",
    to: "收件人（每行一个或以逗号分隔）",
    slackUrl: "Slack 传入 Webhook URL",
    dingtalk: "钉钉",
    feishu: "飞书",
    wecom: "企业微信",
    pagerduty: "PagerDuty",
    sms: "短信",
    dingtalkUrl: "钉钉机器人 Webhook 地址",
    feishuUrl: "飞书机器人 Webhook 地址",
    wecomUrl: "企业微信群机器人 Webhook 地址",
    signSecret: "签名密钥（可选）",
    routingKey: "集成密钥（Routing Key）",
    severity: "严重程度",
    sevDefault: "严重（默认）",
    critical: "严重",
    error: "错误",
    warning: "警告",
    info: "信息",
    accountSid: "账户 SID",
    authToken: "认证令牌（Auth Token）",
    from: "发送号码（E.164 格式，如 +8613800138000）",
    smsTo: "接收号码（E.164 格式，每行一个或以逗号分隔，最多 5 个）",
    howTo: "在哪里获取",
    hint_webhook:
      "Vantage 以 POST 发送 JSON 事件，并按 Standard Webhooks 签名（webhook-id、webhook-timestamp、webhook-signature 请求头）；接收方用下面的密钥校验签名。",
    hint_email: "告警邮件由本服务器的发件地址发出，最多 10 个收件人。",
    hint_slack:
      "在 Slack 中：打开 api.slack.com/apps → 你的应用（或 Create New App）→ Incoming Webhooks → Add New Webhook to Workspace，选择频道，复制 https://hooks.slack.com/services/… 地址。该地址即凭据，会加密保存。",
    hint_dingtalk:
      "在钉钉群中：群设置 → 机器人 → 添加机器人 → 自定义（通过 Webhook 接入）。在安全设置中勾选“加签”并复制 SEC… 开头的密钥，再复制 Webhook 地址（…/robot/send?access_token=…）。Vantage 会用该密钥为每条消息签名。",
    hint_feishu:
      "在飞书群中：设置 → 群机器人 → 添加机器人 → 自定义机器人。复制 Webhook 地址（…/open-apis/bot/v2/hook/…）；在安全设置中开启“签名校验”并复制密钥。Vantage 会用它为每条消息签名。",
    hint_wecom:
      "在企业微信群聊中：右上角 ⋯ → 群机器人 → 添加 → 新创建一个机器人，复制其 Webhook 地址（…/cgi-bin/webhook/send?key=…）。企业微信机器人不支持签名：地址中的 key 即凭据，会加密保存。",
    hint_pagerduty:
      "在 PagerDuty 中：Services → 你的服务 → Integrations → Add an integration → Events API V2，复制 32 位的 Integration Key。故障告警会创建事件，恢复时自动解决。",
    hint_sms:
      "通过兼容 Twilio 的短信接口（本服务器的 VANTAGE_SMS_API_URL）发送。在 Twilio 控制台复制 Account SID 和 Auth Token，并使用该账户下的号码作为发送号码。每个接收号码一条短信，费用由短信服务商收取。",
    create: "添加渠道",
    creating: "添加中…",
    createButton: "添加渠道",
    test: "发送测试",
    testNamed: "向 {name} 发送测试",
    testing: "发送中…",
    testOk: "测试已发送{status}。",
    testFailed: "测试失败{status}：{reason}",
    remove: "删除",
    removeNamed: "删除 {name}",
    removeQuestion: "删除 {name}？它将从所有引用它的策略中移除。",
    actions: "操作",
    delivery: "投递",
    deliveryOk: "正常",
    failing: "自 {since} 起失败：{error}",
    nextTry: "下次尝试 {at}；{n} 条等待中。",
  },
  tw: {
    title: "通知管道",
    none: "還沒有通知管道。",
    name: "名稱",
    type: "類型",
    settings: "設定",
    webhook: "Webhook",
    email: "電子郵件",
    slack: "Slack",
    url: "接收 POST 的 URL",
    secret: "簽章密鑰（whsec_…）",
    generate: "產生",
    secretHint: "請保存一份：接收端用它驗證簽章，之後不會再顯示。",
    to: "收件人（每行一個或以逗號分隔）",
    slackUrl: "Slack 傳入 Webhook URL",
    dingtalk: "釘釘",
    feishu: "飛書",
    wecom: "企業微信",
    pagerduty: "PagerDuty",
    sms: "簡訊",
    dingtalkUrl: "釘釘機器人 Webhook 網址",
    feishuUrl: "飛書機器人 Webhook 網址",
    wecomUrl: "企業微信群機器人 Webhook 網址",
    signSecret: "簽章密鑰（選填）",
    routingKey: "整合金鑰（Routing Key）",
    severity: "嚴重程度",
    sevDefault: "嚴重（預設）",
    critical: "嚴重",
    error: "錯誤",
    warning: "警告",
    info: "資訊",
    accountSid: "帳戶 SID",
    authToken: "驗證權杖（Auth Token）",
    from: "發送號碼（E.164 格式，如 +886912345678）",
    smsTo: "接收號碼（E.164 格式，每行一個或以逗號分隔，最多 5 個）",
    howTo: "在哪裡取得",
    hint_webhook:
      "Vantage 以 POST 傳送 JSON 事件，並依 Standard Webhooks 簽章（webhook-id、webhook-timestamp、webhook-signature 標頭）；接收端用下方的密鑰驗證簽章。",
    hint_email: "告警郵件由本伺服器的寄件地址寄出，最多 10 位收件人。",
    hint_slack:
      "在 Slack 中：開啟 api.slack.com/apps → 你的應用程式（或 Create New App）→ Incoming Webhooks → Add New Webhook to Workspace，選擇頻道，複製 https://hooks.slack.com/services/… 網址。該網址即憑證，會加密保存。",
    hint_dingtalk:
      "在釘釘群組中：群組設定 → 機器人 → 新增機器人 → 自訂（透過 Webhook 接入）。在安全設定中勾選「加簽」並複製 SEC… 開頭的密鑰，再複製 Webhook 網址（…/robot/send?access_token=…）。Vantage 會用該密鑰為每則訊息簽章。",
    hint_feishu:
      "在飛書群組中：設定 → 群組機器人 → 新增機器人 → 自訂機器人。複製 Webhook 網址（…/open-apis/bot/v2/hook/…）；在安全設定中開啟「簽名校驗」並複製密鑰。Vantage 會用它為每則訊息簽章。",
    hint_wecom:
      "在企業微信群聊中：右上角 ⋯ → 群機器人 → 新增 → 新建一個機器人，複製其 Webhook 網址（…/cgi-bin/webhook/send?key=…）。企業微信機器人不支援簽章：網址中的 key 即憑證，會加密保存。",
    hint_pagerduty:
      "在 PagerDuty 中：Services → 你的服務 → Integrations → Add an integration → Events API V2，複製 32 位的 Integration Key。故障告警會建立事件，恢復時自動解決。",
    hint_sms:
      "透過相容 Twilio 的簡訊介面（本伺服器的 VANTAGE_SMS_API_URL）傳送。在 Twilio 主控台複製 Account SID 和 Auth Token，並以該帳戶下的號碼作為發送號碼。每個接收號碼一則簡訊，費用由簡訊服務商收取。",
    create: "新增管道",
    creating: "新增中…",
    createButton: "新增管道",
    test: "傳送測試",
    testNamed: "向 {name} 傳送測試",
    testing: "傳送中…",
    testOk: "測試已傳送{status}。",
    testFailed: "測試失敗{status}：{reason}",
    remove: "刪除",
    removeNamed: "刪除 {name}",
    removeQuestion: "刪除 {name}？它將從所有引用它的政策中移除。",
    actions: "操作",
    delivery: "投遞",
    deliveryOk: "正常",
    failing: "自 {since} 起失敗：{error}",
    nextTry: "下次嘗試 {at}；{n} 則等待中。",
  },
});

export const channelTypeLabel = (type: string) =>
  (channelTypes as readonly string[]).includes(type) ? t(type as ChannelType) : type;

function summary(c: Channel): string {
  return Object.entries(c.config)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(", ") : String(v)}`)
    .join(" · ");
}

/** Whether the channel's alerts go out; when failing, since when, why, and when it is tried next. */
function DeliveryState({ d }: { d: Channel["delivery"] }) {
  if (!d) return null;
  if (!d.failing) return <span class="ok">{t("deliveryOk")}</span>;
  return (
    <span class="bad">
      {t("failing", {
        since: d.failing_since ? formatTime(d.failing_since) : "?",
        error: d.last_error ?? "",
      })}{" "}
      {t("nextTry", { at: d.next_attempt_at ? formatTime(d.next_attempt_at) : "?", n: String(d.queued) })}
    </span>
  );
}

function ChannelRow({ c, onChanged }: { c: Channel; onChanged: () => void }) {
  const [result, setResult] = useState<TestResult>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const id = encodeURIComponent(c.id);
  async function test() {
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    try {
      setResult(await call<TestResult>("POST", `/v1/alert-channels/${id}/test`));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  const status = result?.status != null ? ` (HTTP ${result.status})` : "";
  return (
    <tr data-channel-id={c.id}>
      <td>{c.name}</td>
      <td>{channelTypeLabel(c.type)}</td>
      <td style={{ wordBreak: "break-all" }}>{summary(c)}</td>
      <td>
        <DeliveryState d={c.delivery} />
      </td>
      <td>
        <div class="row">
          <button
            type="button"
            class="secondary"
            disabled={busy}
            aria-label={t("testNamed", { name: c.name })}
            onClick={test}
          >
            {busy ? t("testing") : t("test")}
          </button>
          <ConfirmButton
            label={t("remove")}
            accessibleLabel={t("removeNamed", { name: c.name })}
            question={t("removeQuestion", { name: c.name })}
            yes={t("remove")}
            onConfirm={async () => {
              try {
                await call("DELETE", `/v1/alert-channels/${id}`);
                onChanged();
              } catch (err) {
                setError(err);
              }
            }}
          />
        </div>
        <div role="status">
          {result ? (
            <span class={result.ok ? "ok" : "bad"}>
              {result.ok ? t("testOk", { status }) : t("testFailed", { status, reason: result.reason ?? "" })}
            </span>
          ) : null}
        </div>
        <ErrorBox error={error} />
      </td>
    </tr>
  );
}

type Key = Parameters<typeof t>[0];

/** One setting of a channel type's form: its config key, how it is entered, and its label. */
interface Field {
  key: string;
  kind: "url" | "text" | "list" | "severity";
  label: Key;
  optional?: boolean;
  placeholder?: string;
  /** Secrets and keys: monospace, no spell-check or autofill. */
  mono?: boolean;
}

/** The settings each type's config takes (the controller's channels/<type>.ts schemas). */
const fields: Record<ChannelType, Field[]> = {
  webhook: [{ key: "url", kind: "url", label: "url", placeholder: "https://example.com/hooks/vantage" }],
  email: [{ key: "to", kind: "list", label: "to" }],
  slack: [
    { key: "webhook_url", kind: "url", label: "slackUrl", placeholder: "https://hooks.slack.com/services/…" },
  ],
  dingtalk: [
    {
      key: "webhook_url",
      kind: "url",
      label: "dingtalkUrl",
      placeholder: "https://oapi.dingtalk.com/robot/send?access_token=…",
    },
    { key: "secret", kind: "text", label: "signSecret", optional: true, placeholder: "SEC…", mono: true },
  ],
  feishu: [
    {
      key: "webhook_url",
      kind: "url",
      label: "feishuUrl",
      placeholder: "https://open.feishu.cn/open-apis/bot/v2/hook/…",
    },
    { key: "secret", kind: "text", label: "signSecret", optional: true, mono: true },
  ],
  wecom: [
    {
      key: "webhook_url",
      kind: "url",
      label: "wecomUrl",
      placeholder: "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=…",
    },
  ],
  pagerduty: [
    { key: "routing_key", kind: "text", label: "routingKey", mono: true },
    { key: "severity", kind: "severity", label: "severity", optional: true },
  ],
  sms: [
    { key: "account_sid", kind: "text", label: "accountSid", mono: true },
    { key: "auth_token", kind: "text", label: "authToken", mono: true },
    { key: "from", kind: "text", label: "from", placeholder: "+14155550100" },
    { key: "to", kind: "list", label: "smsTo" },
  ],
};

const severities = ["critical", "error", "warning", "info"] as const;

/** The config the API takes from the form's values: lists split, blank optional settings left out. */
function configOf(
  type: ChannelType,
  values: Record<string, string>,
  secret: string,
): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const f of fields[type]) {
    const v = (values[f.key] ?? "").trim();
    if (f.optional && !v) continue;
    config[f.key] = f.kind === "list" ? v.split(/[\s,;]+/).filter(Boolean) : v;
  }
  if (type === "webhook") config.secret = secret.trim();
  return config;
}

function FieldInput({
  f,
  value,
  error,
  onInput,
}: {
  f: Field;
  value: string;
  error: unknown;
  onInput: (v: string) => void;
}) {
  const path = `body.config.${f.key}`;
  const bad = invalid(error, path);
  if (f.kind === "list")
    return (
      <label>
        {t(f.label)}
        <textarea
          required
          rows={2}
          value={value}
          aria-invalid={bad}
          aria-describedby={describedBy(error, path)}
          onInput={(e) => onInput(e.currentTarget.value)}
        />
        <FieldError error={error} path={path} />
      </label>
    );
  if (f.kind === "severity")
    return (
      <label>
        {t(f.label)}
        <select
          value={value}
          aria-invalid={bad}
          aria-describedby={describedBy(error, path)}
          onChange={(e) => onInput(e.currentTarget.value)}
        >
          <option value="">{t("sevDefault")}</option>
          {severities.map((x) => (
            <option value={x}>{t(x)}</option>
          ))}
        </select>
        <FieldError error={error} path={path} />
      </label>
    );
  return (
    <label>
      {t(f.label)}
      <input
        type={f.kind === "url" ? "url" : "text"}
        required={!f.optional}
        inputMode={f.kind === "url" ? "url" : undefined}
        spellcheck={false}
        autoComplete="off"
        placeholder={f.placeholder}
        value={value}
        aria-invalid={bad}
        aria-describedby={describedBy(error, path)}
        onInput={(e) => onInput(e.currentTarget.value)}
        style={f.mono ? { fontFamily: "ui-monospace, monospace" } : undefined}
      />
      <FieldError error={error} path={path} />
    </label>
  );
}

function ChannelForm({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState("");
  const [type, setType] = useState<ChannelType>("webhook");
  const [values, setValues] = useState<Record<string, string>>({});
  const [secret, setSecret] = useState(newWebhookSecret);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    const config = configOf(type, values, secret);
    try {
      await call("POST", "/v1/alert-channels", { body: { name: name.trim(), type, config } });
      setName("");
      setValues({});
      setSecret(newWebhookSecret());
      onCreated();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  return (
    <form class="stack" onSubmit={submit} aria-label={t("create")}>
      <h3 style={{ margin: "8px 0 0", fontSize: "1rem" }}>{t("create")}</h3>
      <label>
        {t("type")}
        <select
          value={type}
          onChange={(e) => {
            setType(e.currentTarget.value as ChannelType);
            setValues({});
            setError(undefined);
          }}
        >
          {channelTypes.map((x) => (
            <option value={x}>{t(x)}</option>
          ))}
        </select>
      </label>
      <section class="hint" aria-label={t("howTo")}>
        <p class="muted" style={{ margin: 0 }}>
          {t(`hint_${type}`)}
        </p>
      </section>
      <label>
        {t("name")}
        <input
          required
          maxLength={100}
          value={name}
          aria-invalid={invalid(error, "body.name")}
          aria-describedby={describedBy(error, "body.name")}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <FieldError error={error} path="body.name" />
      </label>
      {fields[type].map((f) => (
        <FieldInput
          key={`${type}.${f.key}`}
          f={f}
          value={values[f.key] ?? ""}
          error={error}
          onInput={(v) => setValues((old) => ({ ...old, [f.key]: v }))}
        />
      ))}
      {type === "webhook" ? (
        <div class="row">
          <label style={{ flex: "1 1 260px" }}>
            {t("secret")}
            <input
              required
              spellcheck={false}
              value={secret}
              aria-invalid={invalid(error, "body.config.secret")}
              aria-describedby={["webhook-secret-hint", describedBy(error, "body.config.secret")]
                .filter(Boolean)
                .join(" ")}
              onInput={(e) => setSecret(e.currentTarget.value)}
              style={{ fontFamily: "ui-monospace, monospace" }}
            />
            <FieldError error={error} path="body.config.secret" />
          </label>
          <button type="button" class="secondary" onClick={() => setSecret(newWebhookSecret())}>
            {t("generate")}
          </button>
          <p id="webhook-secret-hint" class="muted" style={{ margin: 0, flexBasis: "100%" }}>
            {t("secretHint")}
          </p>
        </div>
      ) : null}
      <div>
        <button type="submit" disabled={busy}>
          {busy ? t("creating") : t("createButton")}
        </button>
      </div>
      <FormError
        error={error}
        placed={[
          "body.name",
          ...fields[type].map((f) => `body.config.${f.key}`),
          ...(type === "webhook" ? ["body.config.secret"] : []),
        ]}
      />
    </form>
  );
}

export function Channels({
  channels,
  onChanged,
}: {
  channels: { data?: { items: Channel[] }; error?: unknown; reload: () => void };
  onChanged: () => void;
}) {
  return (
    <Card title={t("title")}>
      {channels.error ? (
        <ErrorBox error={channels.error} onRetry={channels.reload} />
      ) : !channels.data ? (
        <Loading />
      ) : channels.data.items.length === 0 ? (
        <p class="muted">{t("none")}</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{t("name")}</th>
                <th scope="col">{t("type")}</th>
                <th scope="col">{t("settings")}</th>
                <th scope="col">{t("delivery")}</th>
                <th scope="col">{t("actions")}</th>
              </tr>
            </thead>
            <tbody>
              {channels.data.items.map((c) => (
                <ChannelRow key={c.id} c={c} onChanged={onChanged} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ChannelForm onCreated={onChanged} />
    </Card>
  );
}
