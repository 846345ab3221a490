import { messages } from "../i18n.js";
import type { ResultEntry } from "./api-types.js";
import { ms } from "./place.js";

/** The protocol options' own result fields (docs/protocol-options.md): path MTU, HTTP version, DNS extras. */
const t = messages({
  en: {
    packetSize: "Packet size: {n} bytes",
    pmtu: "Path MTU: {n} bytes",
    pmtuNone: "Path MTU: no size got through with DF set",
    httpVersion: "HTTP version: {v}",
    flags: "Flags: {v}",
    nsid: "NSID: {v}",
    nsidNone: "NSID: none sent",
    trace: "Trace from the roots",
    zone: "Zone",
    server: "Server",
    rcode: "Answer",
    time: "Time",
    referral: "referral to {v}",
  },
  cn: {
    packetSize: "包大小：{n} 字节",
    pmtu: "路径 MTU：{n} 字节",
    pmtuNone: "路径 MTU：设置 DF 后没有任何大小能通过",
    httpVersion: "HTTP 版本：{v}",
    flags: "标志：{v}",
    nsid: "NSID：{v}",
    nsidNone: "NSID：服务器未返回",
    trace: "从根服务器追踪",
    zone: "区域",
    server: "服务器",
    rcode: "应答",
    time: "时间",
    referral: "委派至 {v}",
  },
  tw: {
    packetSize: "封包大小：{n} 位元組",
    pmtu: "路徑 MTU：{n} 位元組",
    pmtuNone: "路徑 MTU：設定 DF 後沒有任何大小能通過",
    httpVersion: "HTTP 版本：{v}",
    flags: "旗標：{v}",
    nsid: "NSID：{v}",
    nsidNone: "NSID：伺服器未回傳",
    trace: "從根伺服器追蹤",
    zone: "區域",
    server: "伺服器",
    rcode: "應答",
    time: "時間",
    referral: "委派至 {v}",
  },
});

export function PingExtras({ r }: { r: ResultEntry }) {
  if (r.packet_size === undefined && r.pmtu === undefined) return null;
  return (
    <p class="muted flush">
      {r.packet_size === undefined ? null : <span>{t("packetSize", { n: r.packet_size })} </span>}
      {r.pmtu === undefined ? null : r.pmtu === null ? t("pmtuNone") : t("pmtu", { n: r.pmtu })}
    </p>
  );
}

export function HttpExtras({ r }: { r: ResultEntry }) {
  if (!r.http_version) return null;
  return <p class="muted flush">{t("httpVersion", { v: r.http_version })}</p>;
}

export function DnsExtras({ r }: { r: ResultEntry }) {
  return (
    <>
      {r.flags?.length || r.nsid !== undefined ? (
        <p class="muted flush">
          {r.flags?.length ? <span>{t("flags", { v: r.flags.join(" ") })} </span> : null}
          {r.nsid === undefined ? null : r.nsid === null ? t("nsidNone") : t("nsid", { v: r.nsid })}
        </p>
      ) : null}
      {r.trace?.length ? (
        <div class="table-wrap">
          <h3>{t("trace")}</h3>
          <table>
            <thead>
              <tr>
                <th scope="col">{t("zone")}</th>
                <th scope="col">{t("server")}</th>
                <th scope="col">{t("rcode")}</th>
                <th scope="col">{t("time")}</th>
              </tr>
            </thead>
            <tbody>
              {r.trace.map((s, i) => (
                <tr key={i}>
                  <td>{s.zone}</td>
                  <td class="anywhere">
                    {s.server}
                    {s.server_name ? <span class="muted"> ({s.server_name})</span> : null}
                  </td>
                  <td class={s.error ? "bad" : undefined}>
                    {s.error ??
                      (s.referral.length
                        ? t("referral", { v: s.referral.join(", ") })
                        : `${s.rcode}${s.answers.length ? ` · ${s.answers.map((a) => a.value).join(", ")}` : ""}`)}
                  </td>
                  <td>{ms(s.query_time_ms)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </>
  );
}
