import { messages } from "../i18n.js";
import { Badge, Facts } from "./facts.js";
import { rangeName } from "./ip-view.js";
import { countryLabel } from "./place.js";

const t = messages({
  en: {
    score: "Risk score {s} of 100",
    notApplicable: "Not scored",
    risk: "Risk level",
    low: "Low",
    medium: "Medium",
    high: "High",
    critical: "Critical",
    not_applicable: "Not applicable",
    reservedNote: "A special address, {range}: nothing is checked for it.",
    capped: "The evidence adds up to more than 100; the score is capped.",
    ip: "IP address",
    domain: "Resolved from",
    types: "Kinds",
    country: "Country",
    asn: "AS number",
    isp: "AS organisation",
    evidence: "Evidence",
    noEvidence: "No signal found anything against this address.",
    weight: "+{w}",
    checked: "Signals checked",
    unavailable: "Signals unavailable (not counted)",
    versions: "Data versions",
    cached: "From cache",
    yes: "yes",
  },
  cn: {
    score: "风险分 {s}（满分 100）",
    notApplicable: "不评分",
    risk: "风险等级",
    low: "低",
    medium: "中",
    high: "高",
    critical: "严重",
    not_applicable: "不适用",
    reservedNote: "特殊地址（{range}），不做任何检查。",
    capped: "证据合计超过 100，分数按 100 计。",
    ip: "IP 地址",
    domain: "解析自",
    types: "类别",
    country: "国家/地区",
    asn: "AS 号",
    isp: "AS 所属组织",
    evidence: "证据",
    noEvidence: "所有信号均未发现该地址的问题。",
    weight: "+{w}",
    checked: "已检查的信号",
    unavailable: "不可用的信号（未计入）",
    versions: "数据版本",
    cached: "来自缓存",
    yes: "是",
  },
  tw: {
    score: "風險分 {s}（滿分 100）",
    notApplicable: "不評分",
    risk: "風險等級",
    low: "低",
    medium: "中",
    high: "高",
    critical: "嚴重",
    not_applicable: "不適用",
    reservedNote: "特殊位址（{range}），不做任何檢查。",
    capped: "證據合計超過 100，分數以 100 計。",
    ip: "IP 位址",
    domain: "解析自",
    types: "類別",
    country: "國家/地區",
    asn: "AS 編號",
    isp: "AS 所屬組織",
    evidence: "證據",
    noEvidence: "所有訊號均未發現該位址的問題。",
    weight: "+{w}",
    checked: "已檢查的訊號",
    unavailable: "無法使用的訊號（未計入）",
    versions: "資料版本",
    cached: "來自快取",
    yes: "是",
  },
});

export interface Reputation {
  ip: string;
  query: string;
  domain: string | null;
  score: number | null;
  score_capped: boolean;
  risk_level: "low" | "medium" | "high" | "critical" | "not_applicable";
  types: string[];
  evidence: { signal: string; description: string; weight: number }[];
  country: string | null;
  asn: string | null;
  isp: string | null;
  reserved: boolean;
  range: string | null;
  signals_checked: string[];
  signals_unavailable: { signal: string; reason: string }[];
  data_versions: Record<string, string>;
  cached: boolean;
}

const tone = { low: "ok", medium: "warn", high: "bad", critical: "bad", not_applicable: "muted" } as const;

/** IP reputation: the score and its level first, then the evidence that makes it up. */
export function ReputationView({ d }: { d: Reputation }) {
  return (
    <>
      <div class="verdict">
        <Badge
          tone={tone[d.risk_level]}
          label={d.score === null ? t("notApplicable") : t("score", { s: d.score })}
        >
          {d.score === null ? "—" : d.score}
        </Badge>
        <div>
          <div class="muted">{t("risk")}</div>
          <strong class={`verdict-level ${tone[d.risk_level]}`} data-testid="risk-level">
            {t(d.risk_level)}
          </strong>
        </div>
      </div>
      {d.reserved ? <p>{t("reservedNote", { range: d.range ? rangeName(d.range) : "" })}</p> : null}
      {d.score_capped ? <p class="muted">{t("capped")}</p> : null}
      <Facts
        rows={[
          [t("ip"), <code>{d.ip}</code>],
          [t("domain"), d.domain],
          [t("types"), d.types.join(", ")],
          [t("country"), d.country ? countryLabel(d.country) : null],
          [t("asn"), d.asn],
          [t("isp"), d.isp],
          [t("cached"), d.cached ? t("yes") : null],
        ]}
      />
      {!d.reserved ? (
        <>
          <h3 class="subhead">{t("evidence")}</h3>
          {d.evidence.length === 0 ? (
            <p class="ok">{t("noEvidence")}</p>
          ) : (
            <ul class="list" data-testid="evidence">
              {d.evidence.map((e) => (
                <li key={e.signal}>
                  <strong>{t("weight", { w: e.weight })}</strong> {e.description}{" "}
                  <code class="code">{e.signal}</code>
                </li>
              ))}
            </ul>
          )}
        </>
      ) : null}
      {d.signals_checked.length ? (
        <p class="muted">
          {t("checked")}: {d.signals_checked.join(", ")}
        </p>
      ) : null}
      {d.signals_unavailable.length ? (
        <>
          <h3 class="subhead">{t("unavailable")}</h3>
          <ul class="list">
            {d.signals_unavailable.map((s) => (
              <li key={s.signal}>
                <code>{s.signal}</code>: {s.reason}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <details>
        <summary>{t("versions")}</summary>
        <Facts rows={Object.entries(d.data_versions)} />
      </details>
    </>
  );
}
