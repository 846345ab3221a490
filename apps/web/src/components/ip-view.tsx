import { messages } from "../i18n.js";
import { Facts } from "./facts.js";
import { countryLabel } from "./place.js";

/** IP information (from the data shipped with the server), and the names of the special ranges. */
const t = messages({
  en: {
    ip: "IP address",
    country: "Country",
    asn: "AS number",
    org: "AS organisation",
    reserved: "Special address",
    no: "no",
    dataVersion: "Data",
    attribution: "Credit",
    unknown: "unknown",
    cached: "From cache",
    yes: "yes",
  },
  cn: {
    ip: "IP 地址",
    country: "国家/地区",
    asn: "AS 号",
    org: "AS 所属组织",
    reserved: "特殊地址",
    no: "否",
    dataVersion: "数据",
    attribution: "数据来源",
    unknown: "未知",
    cached: "来自缓存",
    yes: "是",
  },
  tw: {
    ip: "IP 位址",
    country: "國家/地區",
    asn: "AS 編號",
    org: "AS 所屬組織",
    reserved: "特殊位址",
    no: "否",
    dataVersion: "資料",
    attribution: "資料來源",
    unknown: "未知",
    cached: "來自快取",
    yes: "是",
  },
});

const ranges = messages({
  en: {
    private: "Private network",
    loopback: "Loopback",
    link_local: "Link-local",
    cgnat: "Carrier-grade NAT (shared address space)",
    multicast: "Multicast",
    reserved: "Reserved",
    broadcast: "Broadcast",
    documentation: "Documentation range (example addresses)",
    benchmark: "Benchmarking range",
    unspecified: "Unspecified address",
    protocol_assignments: "Protocol assignments",
    metadata: "Cloud metadata",
  },
  cn: {
    private: "私有网络",
    loopback: "环回地址",
    link_local: "链路本地",
    cgnat: "运营商级 NAT（共享地址空间）",
    multicast: "组播",
    reserved: "保留地址",
    broadcast: "广播",
    documentation: "文档示例地址段",
    benchmark: "基准测试",
    unspecified: "未指定地址",
    protocol_assignments: "协议分配",
    metadata: "云元数据",
  },
  tw: {
    private: "私有網路",
    loopback: "迴路位址",
    link_local: "鏈路本地",
    cgnat: "電信級 NAT（共用位址空間）",
    multicast: "多播",
    reserved: "保留位址",
    broadcast: "廣播",
    documentation: "文件範例位址段",
    benchmark: "基準測試",
    unspecified: "未指定位址",
    protocol_assignments: "協定分配",
    metadata: "雲端中繼資料",
  },
});

/** A special range's name as people read it ("documentation" → "Documentation range (example addresses)"). */
export const rangeName = (r: string) => ranges(r as "private");

export interface IpInfo {
  ip: string;
  country: string | null;
  country_name: string | null;
  isp: string | null;
  asn: string | null;
  reserved: boolean;
  range: string | null;
  data_version: string;
  attribution: string;
  cached: boolean;
}

export function IpView({ d }: { d: IpInfo }) {
  return (
    <Facts
      rows={[
        [t("ip"), <code>{d.ip}</code>],
        [
          t("reserved"),
          d.reserved && d.range ? (
            <>
              {rangeName(d.range)} <code class="code">{d.range}</code>
            </>
          ) : d.reserved ? (
            t("yes")
          ) : (
            t("no")
          ),
        ],
        [t("country"), d.country ? countryLabel(d.country) : t("unknown")],
        [t("asn"), d.asn ?? t("unknown")],
        [t("org"), d.isp ?? t("unknown")],
        [t("dataVersion"), d.data_version],
        [t("attribution"), <small>{d.attribution}</small>],
        [t("cached"), d.cached ? t("yes") : null],
      ]}
    />
  );
}
