import { useState } from "preact/hooks";
import { call } from "../../api.js";
import { ConfirmButton } from "../../components/account-confirm.js";
import { formatTime } from "../../i18n.js";
import { Card, DataTable, ErrorBox, Loading } from "../../ui.js";
import { type Channel, type ChannelType, channelTypes, type TestResult } from "./alert-shape.js";
import { ChannelForm } from "./channel-form.js";
import { t } from "./channel-messages.js";

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
        <DataTable heads={[t("name"), t("type"), t("settings"), t("delivery"), t("actions")]}>
          {channels.data.items.map((c) => (
            <ChannelRow key={c.id} c={c} onChanged={onChanged} />
          ))}
        </DataTable>
      )}
      <ChannelForm onCreated={onChanged} />
    </Card>
  );
}
