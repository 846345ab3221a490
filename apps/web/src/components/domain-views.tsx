import { formatTime, messages } from "../i18n.js";
import { DataTable } from "../ui.js";
import { Facts } from "./facts.js";
import { countryLabel } from "./place.js";

/** The lookups of a name: WHOIS, DNS records and ICP, each answer as labelled facts. */
const t = messages({
  en: {
    no: "no",
    unknown: "unknown",
    domain: "Domain",
    registrar: "Registrar",
    holder: "Registered to",
    expires: "Expires",
    nameServers: "Name servers",
    network: "Network",
    source: "Source",
    cached: "From cache",
    yes: "yes",
    status: "Status",
    type: "Type",
    value: "Value",
    ttl: "TTL",
    noRecords: "No records of the types asked.",
    nxdomain: "The name does not exist (NXDOMAIN).",
    icpNumber: "ICP number",
    company: "Company",
    licence: "Licence",
    mainLicence: "Main licence",
    nature: "Nature",
    verified: "Verified",
    page: "Page read",
    checked: "Checked",
    found: "Registered",
    not_found: "No registration",
    unverified: "Shown on the site (not verified)",
    non_commercial_filing: "Non-commercial filing (备)",
    commercial_license: "Commercial licence (证)",
    provider: "ICP provider",
    site_footer: "The site's footer",
    cache: "Last answer kept",
  },
  cn: {
    no: "否",
    unknown: "未知",
    domain: "域名",
    registrar: "注册商",
    holder: "注册给",
    expires: "到期",
    nameServers: "域名服务器",
    network: "网络",
    source: "来源",
    cached: "来自缓存",
    yes: "是",
    status: "状态",
    type: "类型",
    value: "值",
    ttl: "TTL",
    noRecords: "没有所查类型的记录。",
    nxdomain: "该域名不存在（NXDOMAIN）。",
    icpNumber: "ICP 备案号",
    company: "主办单位",
    licence: "类型",
    mainLicence: "主体备案号",
    nature: "单位性质",
    verified: "已核验",
    page: "读取的页面",
    checked: "查询时间",
    found: "已备案",
    not_found: "未备案",
    unverified: "网站页脚所示（未核验）",
    non_commercial_filing: "非经营性备案（备）",
    commercial_license: "经营性许可（证）",
    provider: "ICP 数据服务",
    site_footer: "网站页脚",
    cache: "保存的上次结果",
  },
  tw: {
    no: "否",
    unknown: "未知",
    domain: "網域",
    registrar: "註冊商",
    holder: "註冊給",
    expires: "到期",
    nameServers: "名稱伺服器",
    network: "網路",
    source: "來源",
    cached: "來自快取",
    yes: "是",
    status: "狀態",
    type: "類型",
    value: "值",
    ttl: "TTL",
    noRecords: "沒有所查類型的記錄。",
    nxdomain: "該網域不存在（NXDOMAIN）。",
    icpNumber: "ICP 備案號",
    company: "主辦單位",
    licence: "類型",
    mainLicence: "主體備案號",
    nature: "單位性質",
    verified: "已核驗",
    page: "讀取的頁面",
    checked: "查詢時間",
    found: "已備案",
    not_found: "未備案",
    unverified: "網站頁尾所示（未核驗）",
    non_commercial_filing: "非經營性備案（備）",
    commercial_license: "經營性許可（證）",
    provider: "ICP 資料服務",
    site_footer: "網站頁尾",
    cache: "保存的上次結果",
  },
});

export interface WhoisInfo {
  domain: string;
  registrar: string | null;
  expires_at: string | null;
  name_servers: string[];
  source: string;
  server: string;
  network?: {
    name: string | null;
    start: string | null;
    end: string | null;
    cidr: string | null;
    country: string | null;
  };
  cached: boolean;
}

export function WhoisView({ d }: { d: WhoisInfo }) {
  const net = d.network;
  return (
    <Facts
      rows={[
        [t("domain"), <code>{d.domain}</code>],
        [net ? t("holder") : t("registrar"), d.registrar ?? t("unknown")],
        [t("expires"), net ? null : (d.expires_at ?? t("unknown"))],
        [
          t("nameServers"),
          d.name_servers.length ? (
            <ul class="list">
              {d.name_servers.map((n) => (
                <li key={n}>{n}</li>
              ))}
            </ul>
          ) : null,
        ],
        [
          t("network"),
          net
            ? [
                net.name,
                net.cidr ?? (net.start && net.end ? `${net.start} – ${net.end}` : null),
                net.country ? countryLabel(net.country) : null,
              ]
                .filter(Boolean)
                .join(" · ")
            : null,
        ],
        [t("source"), `${d.source.toUpperCase()} · ${d.server}`],
        [t("cached"), d.cached ? t("yes") : null],
      ]}
    />
  );
}

export interface DnsInfo {
  domain: string;
  status: "NOERROR" | "NXDOMAIN";
  records: { type: string; value: string; ttl: number }[];
  cached: boolean;
}

export function DnsView({ d }: { d: DnsInfo }) {
  return (
    <>
      <Facts
        rows={[
          [t("domain"), <code>{d.domain}</code>],
          [t("status"), <span class={d.status === "NOERROR" ? "ok" : "bad"}>{d.status}</span>],
          [t("cached"), d.cached ? t("yes") : null],
        ]}
      />
      {d.status === "NXDOMAIN" ? (
        <p>{t("nxdomain")}</p>
      ) : d.records.length === 0 ? (
        <p>{t("noRecords")}</p>
      ) : (
        <DataTable heads={[t("type"), t("value"), t("ttl")]}>
          {d.records.map((r, i) => (
            <tr key={i}>
              <td>{r.type}</td>
              <td class="anywhere">
                <code>{r.value}</code>
              </td>
              <td>{r.ttl}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}

export interface IcpInfo {
  domain: string;
  icp_number: string;
  company: string;
  license_type: "" | "non_commercial_filing" | "commercial_license";
  main_licence: string;
  nature: string;
  status: "found" | "not_found" | "unverified";
  source: "provider" | "site_footer" | "cache";
  origin: "provider" | "site_footer";
  verified: boolean;
  page_url: string;
  checked_at: string;
  cached: boolean;
}

export function IcpView({ d }: { d: IcpInfo }) {
  const tone = d.status === "found" ? "ok" : d.status === "unverified" ? "warn" : "muted";
  return (
    <Facts
      rows={[
        [t("domain"), <code>{d.domain}</code>],
        [t("status"), <strong class={tone}>{t(d.status)}</strong>],
        [t("icpNumber"), d.icp_number],
        [t("company"), d.company],
        [t("licence"), d.license_type ? t(d.license_type) : null],
        [t("mainLicence"), d.main_licence],
        [t("nature"), d.nature],
        [t("verified"), d.verified ? t("yes") : t("no")],
        [t("source"), d.source === "cache" ? `${t("cache")} (${t(d.origin)})` : t(d.source)],
        [t("page"), d.page_url],
        [t("checked"), d.checked_at ? formatTime(d.checked_at) : null],
        [t("cached"), d.cached ? t("yes") : null],
      ]}
    />
  );
}
