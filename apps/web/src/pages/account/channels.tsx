import { useState } from "preact/hooks";
import { call } from "../../api.js";
import { ConfirmButton } from "../../components/account-confirm.js";
import { FormError, invalid } from "../../components/account-form-error.js";
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

function ChannelForm({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState("");
  const [type, setType] = useState<ChannelType>("webhook");
  const [url, setUrl] = useState("");
  const [secret, setSecret] = useState(newWebhookSecret);
  const [to, setTo] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    const config =
      type === "webhook"
        ? { url: url.trim(), secret: secret.trim() }
        : type === "slack"
          ? { webhook_url: url.trim() }
          : { to: to.split(/[\s,;]+/).filter(Boolean) };
    try {
      await call("POST", "/v1/alert-channels", { body: { name: name.trim(), type, config } });
      setName("");
      setUrl("");
      setTo("");
      setSecret(newWebhookSecret());
      onCreated();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  const cfg = (k: string) => `body.config.${k}`;
  return (
    <form class="stack" onSubmit={submit} aria-label={t("create")}>
      <h3 style={{ margin: "8px 0 0", fontSize: "1rem" }}>{t("create")}</h3>
      <label>
        {t("type")}
        <select value={type} onChange={(e) => setType(e.currentTarget.value as ChannelType)}>
          {channelTypes.map((x) => (
            <option value={x}>{t(x)}</option>
          ))}
        </select>
      </label>
      <label>
        {t("name")}
        <input
          required
          maxLength={100}
          value={name}
          aria-invalid={invalid(error, "body.name")}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </label>
      {type === "email" ? (
        <label>
          {t("to")}
          <textarea
            required
            rows={2}
            value={to}
            aria-invalid={invalid(error, cfg("to"))}
            onInput={(e) => setTo(e.currentTarget.value)}
          />
        </label>
      ) : (
        <label>
          {type === "webhook" ? t("url") : t("slackUrl")}
          <input
            type="url"
            required
            inputMode="url"
            spellcheck={false}
            value={url}
            aria-invalid={invalid(error, cfg(type === "webhook" ? "url" : "webhook_url"))}
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
        </label>
      )}
      {type === "webhook" ? (
        <div class="row">
          <label style={{ flex: "1 1 260px" }}>
            {t("secret")}
            <input
              required
              spellcheck={false}
              value={secret}
              aria-invalid={invalid(error, cfg("secret"))}
              aria-describedby="webhook-secret-hint"
              onInput={(e) => setSecret(e.currentTarget.value)}
              style={{ fontFamily: "ui-monospace, monospace" }}
            />
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
      <FormError error={error} />
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
