import { useState } from "preact/hooks";
import { call } from "../../api.js";
import { describedBy, FieldError, FormError, invalid } from "../../components/account-form-error.js";
import { type ChannelType, channelTypes, newWebhookSecret } from "./alert-shape.js";
import { t } from "./channel-messages.js";

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

export function ChannelForm({ onCreated }: { onCreated: () => void }) {
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
