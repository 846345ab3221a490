import { call, form } from "../../api.js";
import { formatDuration, formatNumber, formatTime, messages } from "../../i18n.js";
import { Card, ErrorBox, Loading, useLoad } from "../../ui.js";
import { pageSize } from "./monitor-shape.js";

const t = messages({
  en: {
    plan: "Plan",
    period: "This period: {start} – {end}",
    usage: "Use this period",
    probes: "Probes",
    lookups: "Lookups",
    reputation: "IP reputation",
    alert_tests: "Alert test sends",
    units: "{n} {unit} this period, {today} today",
    minute: "per minute",
    hour: "per hour",
    day: "per day",
    credential: "for this sign-in",
    account: "for the account",
    usedOf: "{used} of {limit} used",
    resets: "resets in {d}",
    unlimited: "no limit",
    resources: "What you keep",
    monitors: "Monitors",
    channels: "Alert channels",
    keys: "API keys",
    minInterval: "Shortest monitor interval: {d}",
    free: "Free",
    pro: "Pro",
    business: "Business",
    "u_node-probes": "probes on nodes",
    u_lookups: "lookups",
    "u_reputation calls": "reputation checks",
    "u_test sends": "test sends",
  },
  cn: {
    plan: "套餐",
    period: "本周期：{start} – {end}",
    usage: "本周期用量",
    probes: "探测",
    lookups: "查询",
    reputation: "IP 信誉",
    alert_tests: "告警测试发送",
    units: "本周期 {n} {unit}，今日 {today}",
    minute: "每分钟",
    hour: "每小时",
    day: "每天",
    credential: "按本次登录计",
    account: "按账号计",
    usedOf: "已用 {used} / {limit}",
    resets: "{d}后重置",
    unlimited: "不限",
    resources: "资源数量",
    monitors: "监控",
    channels: "通知渠道",
    keys: "API 密钥",
    minInterval: "监控最短间隔：{d}",
    free: "免费版",
    pro: "专业版",
    business: "商业版",
    "u_node-probes": "次节点探测",
    u_lookups: "次查询",
    "u_reputation calls": "次信誉查询",
    "u_test sends": "次测试发送",
  },
  tw: {
    plan: "方案",
    period: "本週期：{start} – {end}",
    usage: "本週期用量",
    probes: "探測",
    lookups: "查詢",
    reputation: "IP 信譽",
    alert_tests: "告警測試傳送",
    units: "本週期 {n} {unit}，今日 {today}",
    minute: "每分鐘",
    hour: "每小時",
    day: "每天",
    credential: "依本次登入計",
    account: "依帳號計",
    usedOf: "已用 {used} / {limit}",
    resets: "{d}後重設",
    unlimited: "不限",
    resources: "資源數量",
    monitors: "監控",
    channels: "通知管道",
    keys: "API 金鑰",
    minInterval: "監控最短間隔：{d}",
    free: "免費版",
    pro: "專業版",
    business: "商業版",
    "u_node-probes": "次節點探測",
    u_lookups: "次查詢",
    "u_reputation calls": "次信譽查詢",
    "u_test sends": "次測試傳送",
  },
});

type Family = "probes" | "lookups" | "reputation" | "alert_tests";
export interface Usage {
  plan: "free" | "pro" | "business";
  period: { start: string; end: string };
  usage: { family: Family; unit: string; units: number; calls: number; today_units: number }[];
  limits: {
    family: Family;
    window: "minute" | "hour" | "day";
    per: "credential" | "account";
    limit: number;
    used: number;
    remaining: number;
    reset_s: number;
  }[];
  plan_limits: {
    monitors: number | null;
    alert_channels: number | null;
    api_keys: number | null;
    min_monitor_interval_s: number;
    [k: string]: number | null;
  };
}

const unitKeys = ["node-probes", "lookups", "reputation calls", "test sends"] as const;
/** A metering unit in words ("probes on nodes", not the API's `node-probes`). */
const unitLabel = (unit: string) =>
  (unitKeys as readonly string[]).includes(unit) ? t(`u_${unit as (typeof unitKeys)[number]}`) : unit;

export const planLabel = (plan: string) =>
  plan === "free" || plan === "pro" || plan === "business" ? t(plan) : plan;

/** A used-of-limit bar (`<meter>`: read out as a value by screen readers) and the figures in words. */
function Bar({
  label,
  used,
  limit,
  extra,
}: {
  label: string;
  used: number;
  limit: number | null;
  extra?: string;
}) {
  return (
    <div style={{ marginBottom: "10px" }} data-usage={label}>
      <div class="row" style={{ justifyContent: "space-between" }}>
        <span>{label}</span>
        <span class="muted">
          {limit == null
            ? `${formatNumber(used)} · ${t("unlimited")}`
            : t("usedOf", { used: formatNumber(used), limit: formatNumber(limit) })}
          {extra ? ` · ${extra}` : ""}
        </span>
      </div>
      {limit != null && limit > 0 ? (
        <meter
          min={0}
          max={limit}
          value={Math.min(used, limit)}
          high={limit * 0.8}
          optimum={0}
          aria-label={label}
          style={{ width: "100%", height: "12px" }}
        />
      ) : null}
    </div>
  );
}

/** How many monitors, channels and keys the account holds, for the plan's counts. */
async function counts(): Promise<{ monitors: number; channels: number; keys: number }> {
  const [monitors, channels, keys] = await Promise.all([
    call<{ total: number }>("GET", `/v1/monitors?${pageSize}=1`),
    call<{ total: number }>("GET", `/v1/alert-channels?${pageSize}=1`),
    form === "a"
      ? call<{ total: number }>("GET", "/v1/account/api-keys?limit=1").then((r) => r.total)
      : call<{ items: unknown[] }>("GET", "/v1/account/api-keys").then((r) => r.items.length),
  ]);
  return { monitors: monitors.total, channels: channels.total, keys };
}

export function UsageCards({ usage }: { usage: { data?: Usage; error?: unknown; reload: () => void } }) {
  const held = useLoad(counts);
  if (usage.error) return <ErrorBox error={usage.error} onRetry={usage.reload} />;
  if (!usage.data) return <Loading />;
  const u = usage.data;
  return (
    <>
      <Card title={t("plan")}>
        <p style={{ fontSize: "1.3rem", margin: "0 0 4px" }} data-plan={u.plan}>
          <strong>{planLabel(u.plan)}</strong>
        </p>
        <p class="muted" style={{ margin: 0 }}>
          {t("period", { start: formatTime(u.period.start), end: formatTime(u.period.end) })}
        </p>
      </Card>
      <div class="grid2">
        <Card title={t("usage")}>
          {u.usage.map((f) => (
            <section data-family={f.family} style={{ marginBottom: "12px" }}>
              <h3 style={{ fontSize: "1rem", margin: "0 0 4px" }}>{t(f.family)}</h3>
              <p class="muted" style={{ margin: "0 0 6px" }}>
                {t("units", {
                  n: formatNumber(f.units),
                  unit: unitLabel(f.unit),
                  today: formatNumber(f.today_units),
                })}
              </p>
              {u.limits
                .filter((l) => l.family === f.family)
                .map((l) => (
                  <Bar
                    label={`${t(l.window)} (${t(l.per)})`}
                    used={l.used}
                    limit={l.limit}
                    extra={t("resets", { d: formatDuration(l.reset_s) })}
                  />
                ))}
            </section>
          ))}
        </Card>
        <Card title={t("resources")}>
          {held.error ? <ErrorBox error={held.error} onRetry={held.reload} /> : null}
          <Bar label={t("monitors")} used={held.data?.monitors ?? 0} limit={u.plan_limits.monitors} />
          <Bar label={t("channels")} used={held.data?.channels ?? 0} limit={u.plan_limits.alert_channels} />
          <Bar label={t("keys")} used={held.data?.keys ?? 0} limit={u.plan_limits.api_keys} />
          <p class="muted">{t("minInterval", { d: formatDuration(u.plan_limits.min_monitor_interval_s) })}</p>
        </Card>
      </div>
    </>
  );
}
