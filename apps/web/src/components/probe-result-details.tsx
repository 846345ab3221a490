import { formatTime, messages } from "../i18n.js";
import { DataTable } from "../ui.js";
import type { ProbeType, ResultEntry } from "./api-types.js";
import { ms } from "./place.js";
import { DnsExtras, HttpExtras, PingExtras } from "./protocol-details.js";
import { RawJson } from "./raw-json.js";

const t = messages({
  en: {
    seq: "Seq",
    rtt: "RTT",
    ttl: "TTL",
    lost: "lost",
    mdev: "Deviation (mdev): {v}",
    phase: "Phase",
    time: "Time",
    dns: "DNS lookup",
    connect: "Connect",
    tls: "TLS handshake",
    firstByte: "First byte",
    download: "Download",
    total: "Total",
    certificate: "Certificate",
    subject: "Subject",
    issuer: "Issuer",
    validity: "Valid",
    names: "Names",
    protocol: "Protocol",
    trusted: "Trusted",
    yes: "yes",
    no: "no",
    redirects: "Redirects",
    headers: "Response headers",
    body: "Body (first {n} bytes)",
    bodyBytes: "Body: {n} bytes{more}",
    truncated: " (truncated)",
    name: "Name",
    type: "Type",
    value: "Value",
    resolver: "Resolver {r}, {p}, rcode {rc}{tc}",
    tc: ", truncated",
    hop: "Hop",
    host: "Host",
    rtts: "RTTs",
    network: "Network",
    reservedRange: "reserved ({r})",
    loss: "Loss",
    sent: "Sent",
    last: "Last",
    avg: "Avg",
    best: "Best",
    worst: "Worst",
    stdev: "StDev",
    asPath: "AS path: {p}",
    noAnswers: "No answers.",
  },
  cn: {
    seq: "序号",
    rtt: "往返",
    ttl: "TTL",
    lost: "丢失",
    mdev: "偏差（mdev）：{v}",
    phase: "阶段",
    time: "时间",
    dns: "DNS 解析",
    connect: "连接",
    tls: "TLS 握手",
    firstByte: "首字节",
    download: "下载",
    total: "总计",
    certificate: "证书",
    subject: "主体",
    issuer: "颁发者",
    validity: "有效期",
    names: "域名",
    protocol: "协议",
    trusted: "受信任",
    yes: "是",
    no: "否",
    redirects: "重定向",
    headers: "响应头",
    body: "响应体（前 {n} 字节）",
    bodyBytes: "响应体：{n} 字节{more}",
    truncated: "（已截断）",
    name: "名称",
    type: "类型",
    value: "值",
    resolver: "解析器 {r}，{p}，rcode {rc}{tc}",
    tc: "，已截断",
    hop: "跳",
    host: "主机",
    rtts: "往返时间",
    network: "网络",
    reservedRange: "保留地址（{r}）",
    loss: "丢包",
    sent: "发送",
    last: "最近",
    avg: "平均",
    best: "最好",
    worst: "最差",
    stdev: "标准差",
    asPath: "AS 路径：{p}",
    noAnswers: "无应答。",
  },
  tw: {
    seq: "序號",
    rtt: "往返",
    ttl: "TTL",
    lost: "遺失",
    mdev: "偏差（mdev）：{v}",
    phase: "階段",
    time: "時間",
    dns: "DNS 解析",
    connect: "連線",
    tls: "TLS 交握",
    firstByte: "首位元組",
    download: "下載",
    total: "總計",
    certificate: "憑證",
    subject: "主體",
    issuer: "簽發者",
    validity: "有效期",
    names: "網域",
    protocol: "協定",
    trusted: "受信任",
    yes: "是",
    no: "否",
    redirects: "重新導向",
    headers: "回應標頭",
    body: "回應本文（前 {n} 位元組）",
    bodyBytes: "回應本文：{n} 位元組{more}",
    truncated: "（已截斷）",
    name: "名稱",
    type: "類型",
    value: "值",
    resolver: "解析器 {r}，{p}，rcode {rc}{tc}",
    tc: "，已截斷",
    hop: "跳",
    host: "主機",
    rtts: "往返時間",
    network: "網路",
    reservedRange: "保留位址（{r}）",
    loss: "丟包",
    sent: "送出",
    last: "最近",
    avg: "平均",
    best: "最佳",
    worst: "最差",
    stdev: "標準差",
    asPath: "AS 路徑：{p}",
    noAnswers: "無應答。",
  },
});

/** Everything a node reported, per probe type, then its raw JSON. */
export function ResultDetails({ type, r }: { type: ProbeType; r: ResultEntry }) {
  return (
    <div class="stack details">
      {type === "ping" ? <PingExtras r={r} /> : null}
      {type === "ping" ? <PingDetails r={r} /> : null}
      {type === "http" ? <HttpExtras r={r} /> : null}
      {type === "http" ? <HttpDetails r={r} /> : null}
      {type === "dns" ? <DnsDetails r={r} /> : null}
      {type === "dns" ? <DnsExtras r={r} /> : null}
      {type === "traceroute" ? <TraceDetails r={r} /> : null}
      {type === "mtr" ? <MtrDetails r={r} /> : null}
      <RawJson value={r} />
    </div>
  );
}

function PingDetails({ r }: { r: ResultEntry }) {
  if (!r.replies?.length) return null;
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">{t("seq")}</th>
            <th scope="col">{t("rtt")}</th>
            <th scope="col">{t("ttl")}</th>
          </tr>
        </thead>
        <tbody>
          {r.replies.map((x) => (
            <tr key={x.seq}>
              <td>{x.seq}</td>
              <td>{x.rtt_ms === null ? <span class="bad">{t("lost")}</span> : ms(x.rtt_ms)}</td>
              <td>{x.ttl ?? "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {r.rtt ? <p class="muted">{t("mdev", { v: ms(r.rtt.mdev) })}</p> : null}
    </div>
  );
}

function HttpDetails({ r }: { r: ResultEntry }) {
  const tm = r.timings;
  const headers = Object.entries(r.headers ?? {});
  return (
    <>
      {tm ? (
        <DataTable heads={[t("phase"), t("time")]}>
          {(
            [
              ["dns", tm.dns],
              ["connect", tm.connect],
              ["tls", tm.tls],
              ["firstByte", tm.first_byte],
              ...(tm.download === undefined ? [] : ([["download", tm.download]] as const)),
              ["total", tm.total],
            ] as const
          ).map(([k, v]) => (
            <tr key={k}>
              <td>{t(k)}</td>
              <td>{ms(v)}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      {r.tls ? (
        <div>
          <h3>{t("certificate")}</h3>
          <dl class="facts">
            <dt class="muted">{t("subject")}</dt>
            <dd>{r.tls.subject}</dd>
            <dt class="muted">{t("issuer")}</dt>
            <dd>{r.tls.issuer}</dd>
            <dt class="muted">{t("validity")}</dt>
            <dd>
              {formatTime(r.tls.valid_from)} – {formatTime(r.tls.valid_to)}
            </dd>
            <dt class="muted">{t("names")}</dt>
            <dd>{r.tls.san.join(", ")}</dd>
            <dt class="muted">{t("protocol")}</dt>
            <dd>{[r.tls.protocol, r.tls.cipher].filter(Boolean).join(" · ")}</dd>
            <dt class="muted">{t("trusted")}</dt>
            <dd class={r.tls.authorized ? "ok" : "bad"}>
              {r.tls.authorized
                ? t("yes")
                : `${t("no")}${r.tls.authorization_error ? ` (${r.tls.authorization_error})` : ""}`}
            </dd>
          </dl>
        </div>
      ) : null}
      {r.redirects?.length ? (
        <div>
          <h3>{t("redirects")}</h3>
          <ol>
            {r.redirects.map((x) => (
              <li key={x.url}>
                {x.status_code} <code class="anywhere">{x.url}</code>
              </li>
            ))}
          </ol>
        </div>
      ) : null}
      {headers.length ? (
        <div class="table-wrap">
          <h3>{t("headers")}</h3>
          <table>
            <tbody>
              {headers.map(([k, v]) => (
                <tr key={k}>
                  <th scope="row">{k}</th>
                  <td class="anywhere">{v}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {r.body_bytes !== undefined ? (
        <p class="muted">
          {t("bodyBytes", { n: r.body_bytes, more: r.body_truncated ? t("truncated") : "" })}
        </p>
      ) : null}
      {r.body_excerpt ? (
        <details>
          <summary>{t("body", { n: r.body_excerpt.length })}</summary>
          <pre>{r.body_excerpt}</pre>
        </details>
      ) : null}
    </>
  );
}

function DnsDetails({ r }: { r: ResultEntry }) {
  return (
    <>
      {r.resolver ? (
        <p class="muted flush">
          {t("resolver", {
            r: `${r.resolver}:${r.resolver_port ?? 53}`,
            p: r.protocol ?? "udp",
            rc: r.rcode ?? "",
            tc: r.truncated ? t("tc") : "",
          })}
        </p>
      ) : null}
      {r.answers?.length ? (
        <DataTable heads={[t("name"), t("type"), t("ttl"), t("value")]}>
          {r.answers.map((a, i) => (
            <tr key={i}>
              <td>{a.name}</td>
              <td>{a.type}</td>
              <td>{a.ttl}</td>
              <td class="anywhere">{a.value}</td>
            </tr>
          ))}
        </DataTable>
      ) : r.rcode !== undefined ? (
        <p class="muted">{t("noAnswers")}</p>
      ) : null}
    </>
  );
}

function TraceDetails({ r }: { r: ResultEntry }) {
  if (!r.hops?.length) return null;
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">{t("hop")}</th>
            <th scope="col">{t("host")}</th>
            <th scope="col">{t("rtts")}</th>
            <th scope="col">{t("network")}</th>
          </tr>
        </thead>
        <tbody>
          {r.hops.map((h) => (
            <tr key={h.hop}>
              <td>{h.hop}</td>
              <td>
                {h.ip ?? "*"}
                {h.hostname ? <span class="muted"> ({h.hostname})</span> : null}
              </td>
              <td>{(h.rtts ?? []).map((x) => (x === null ? "*" : ms(x))).join(" · ")}</td>
              <td>{networkOf(h)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <AsPath r={r} />
    </div>
  );
}

type Hop = NonNullable<ResultEntry["hops"]>[number];

/** A hop's network as the controller annotated it: `AS13335 Cloudflare, Inc. (US)`, or its special range. */
function networkOf(h: Hop): string {
  if (h.reserved) return t("reservedRange", { r: h.range ?? "" });
  if (h.asn === undefined || h.asn === null) return "";
  return [`AS${h.asn}`, h.network, h.country ? `(${h.country})` : null].filter(Boolean).join(" ");
}

function AsPath({ r }: { r: ResultEntry }) {
  if (!r.as_path?.length) return null;
  return <p class="muted">{t("asPath", { p: r.as_path.map((a) => `AS${a}`).join(" → ") })}</p>;
}

/** mtr's report: one row per hop, every address seen (ECMP) and the hop's network. */
function MtrDetails({ r }: { r: ResultEntry }) {
  if (!r.hops?.length) return null;
  const cell = (v: number | null | undefined) => (v === null || v === undefined ? "-" : ms(v));
  return (
    <div class="table-wrap">
      <table data-testid="mtr-hops">
        <thead>
          <tr>
            <th scope="col">{t("hop")}</th>
            <th scope="col">{t("host")}</th>
            <th scope="col">{t("loss")}</th>
            <th scope="col">{t("sent")}</th>
            <th scope="col">{t("last")}</th>
            <th scope="col">{t("avg")}</th>
            <th scope="col">{t("best")}</th>
            <th scope="col">{t("worst")}</th>
            <th scope="col">{t("stdev")}</th>
            <th scope="col">{t("network")}</th>
          </tr>
        </thead>
        <tbody>
          {r.hops.map((h) => (
            <tr key={h.hop}>
              <td>{h.hop}</td>
              <td>{h.ips?.length ? h.ips.join(" · ") : (h.ip ?? "???")}</td>
              <td>{h.loss_pct === undefined ? "-" : `${h.loss_pct}%`}</td>
              <td>{h.sent ?? "-"}</td>
              <td>{cell(h.last)}</td>
              <td>{cell(h.avg)}</td>
              <td>{cell(h.best)}</td>
              <td>{cell(h.worst)}</td>
              <td>{cell(h.stdev)}</td>
              <td>{networkOf(h)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <AsPath r={r} />
    </div>
  );
}
