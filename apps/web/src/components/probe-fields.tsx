import type { Form } from "../api.js";
import { messages } from "../i18n.js";
import type { ProbeType } from "./api-types.js";
import {
  dnsProtocols,
  limits,
  methods,
  methodsWithBody,
  type ProbeFields,
  recordTypes,
} from "./probe-body.js";

const t = messages({
  en: {
    url: "URL",
    urlHint: "http:// or https://",
    host: "Host name or IP address",
    domain: "Domain",
    method: "Method",
    timeout: "Timeout (seconds)",
    followRedirects: "Follow redirects",
    maxRedirects: "At most this many redirects",
    keyword: "Keyword the body must contain (optional)",
    headers: "Request headers (optional, one “Name: value” per line)",
    body: "Request body (optional)",
    count: "Packets (1–{max})",
    recordType: "Record type",
    server: "DNS server (optional: host, host:port or IPv6)",
    port: "Port",
    maxHops: "Maximum hops (1–64)",
    mtrMode: "Probes",
    mtrIcmp: "ICMP echo (mtr)",
    mtrUdp: "UDP (mtr -u)",
    mtrTcp: "TCP SYN (mtr -T)",
    rounds: "Rounds (1–100)",
    family: "Address family",
    familyAny: "Any: IPv6, else IPv4 (as curl)",
    familyV4: "IPv4 only",
    familyV6: "IPv6 only",
    hostHint: "example.com, host:port or a URL",
    optional: "optional",
    defaultIs: "default {v}",
    http2: "Offer HTTP/2 (ALPN)",
    size: "Packet size (bytes, 28–1500)",
    dontFragment: "Don't fragment (DF)",
    pmtu: "Find the path MTU",
    dnsProtocol: "Transport",
    protoUdp: "UDP (TCP if truncated)",
    protoTcp: "TCP",
    protoTls: "DNS over TLS",
    protoHttps: "DNS over HTTPS",
    dohServer: "DoH URL (https://…/dns-query)",
    dnssec: "DNSSEC records (DO)",
    checkingDisabled: "No validation (CD)",
    nsid: "Ask for NSID",
    trace: "Trace from the root servers",
  },
  cn: {
    url: "URL",
    urlHint: "http:// 或 https://",
    host: "主机名或 IP 地址",
    domain: "域名",
    method: "方法",
    timeout: "超时（秒）",
    followRedirects: "跟随重定向",
    maxRedirects: "最多重定向次数",
    keyword: "响应体须包含的关键字（可选）",
    headers: "请求头（可选，每行一个“名称: 值”）",
    body: "请求体（可选）",
    count: "包数（1–{max}）",
    recordType: "记录类型",
    server: "DNS 服务器（可选：主机、主机:端口或 IPv6）",
    port: "端口",
    maxHops: "最大跳数（1–64）",
    mtrMode: "探测方式",
    mtrIcmp: "ICMP 回显（mtr）",
    mtrUdp: "UDP（mtr -u）",
    mtrTcp: "TCP SYN（mtr -T）",
    rounds: "轮数（1–100）",
    family: "地址族",
    familyAny: "任意：先 IPv6，不通则 IPv4（同 curl）",
    familyV4: "仅 IPv4",
    familyV6: "仅 IPv6",
    hostHint: "example.com、主机:端口或 URL",
    optional: "可选",
    defaultIs: "默认 {v}",
    http2: "尝试 HTTP/2（ALPN）",
    size: "包大小（字节，28–1500）",
    dontFragment: "禁止分片（DF）",
    pmtu: "探测路径 MTU",
    dnsProtocol: "传输方式",
    protoUdp: "UDP（截断时改用 TCP）",
    protoTcp: "TCP",
    protoTls: "TLS 加密（DoT）",
    protoHttps: "HTTPS 加密（DoH）",
    dohServer: "DoH URL（https://…/dns-query）",
    dnssec: "DNSSEC 记录（DO）",
    checkingDisabled: "不验证（CD）",
    nsid: "请求 NSID",
    trace: "从根服务器逐级追踪",
  },
  tw: {
    url: "URL",
    urlHint: "http:// 或 https://",
    host: "主機名稱或 IP 位址",
    domain: "網域",
    method: "方法",
    timeout: "逾時（秒）",
    followRedirects: "跟隨重新導向",
    maxRedirects: "最多重新導向次數",
    keyword: "回應本文須包含的關鍵字（選填）",
    headers: "請求標頭（選填，每行一個「名稱: 值」）",
    body: "請求本文（選填）",
    count: "封包數（1–{max}）",
    recordType: "記錄類型",
    server: "DNS 伺服器（選填：主機、主機:連接埠或 IPv6）",
    port: "連接埠",
    maxHops: "最大跳數（1–64）",
    mtrMode: "探測方式",
    mtrIcmp: "ICMP 回應（mtr）",
    mtrUdp: "UDP（mtr -u）",
    mtrTcp: "TCP SYN（mtr -T）",
    rounds: "輪數（1–100）",
    family: "位址族",
    familyAny: "任意：先 IPv6，不通則 IPv4（同 curl）",
    familyV4: "僅 IPv4",
    familyV6: "僅 IPv6",
    hostHint: "example.com、主機:連接埠或 URL",
    optional: "選填",
    defaultIs: "預設 {v}",
    http2: "嘗試 HTTP/2（ALPN）",
    size: "封包大小（位元組，28–1500）",
    dontFragment: "禁止分段（DF）",
    pmtu: "探測路徑 MTU",
    dnsProtocol: "傳輸方式",
    protoUdp: "UDP（截斷時改用 TCP）",
    protoTcp: "TCP",
    protoTls: "TLS 加密（DoT）",
    protoHttps: "HTTPS 加密（DoH）",
    dohServer: "DoH URL（https://…/dns-query）",
    dnssec: "DNSSEC 記錄（DO）",
    checkingDisabled: "不驗證（CD）",
    nsid: "請求 NSID",
    trace: "從根伺服器逐級追蹤",
  },
});

type Set = <K extends keyof ProbeFields>(k: K, v: ProbeFields[K]) => void;

/** The inputs one probe type takes, in the deployment's form's limits. */
export function ProbeFieldsFor(props: { type: ProbeType; f: ProbeFields; set: Set; form: Form }) {
  const { type, f, set, form } = props;
  const text = (k: keyof ProbeFields) => (e: Event) =>
    set(k, (e.currentTarget as HTMLInputElement).value as never);
  const check = (k: "http2" | "dontFragment" | "pmtu" | "dnssec" | "checkingDisabled" | "nsid" | "trace") => (
    <label class="choice">
      <input type="checkbox" name={k} checked={f[k]} onChange={(e) => set(k, e.currentTarget.checked)} />
      {t(k)}
    </label>
  );
  const protoLabel = { udp: "protoUdp", tcp: "protoTcp", tls: "protoTls", https: "protoHttps" } as const;
  const timeout = (dflt: number) => (
    <label>
      {t("timeout")}
      <input
        type="number"
        inputMode="numeric"
        min={1}
        max={30}
        placeholder={t("defaultIs", { v: dflt })}
        value={f.timeout}
        onInput={text("timeout")}
      />
    </label>
  );
  const target =
    type === "http" ? (
      <label>
        {t("url")}
        <input
          name="target"
          inputMode="url"
          required
          autoComplete="off"
          autoCapitalize="off"
          spellcheck={false}
          placeholder="https://example.com/"
          value={f.target}
          onInput={text("target")}
        />
      </label>
    ) : (
      <label>
        {type === "dns" ? t("domain") : t("host")}
        <input
          name="target"
          required
          autoComplete="off"
          autoCapitalize="off"
          spellcheck={false}
          placeholder={t("hostHint")}
          value={f.target}
          onInput={text("target")}
        />
      </label>
    );

  return (
    <>
      {target}
      {type === "http" ? (
        <>
          <div class="row">
            <label>
              {t("method")}
              <select value={f.method} onChange={text("method")}>
                {methods.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
            </label>
            {timeout(10)}
            <label>
              {t("family")}
              <select name="family" value={f.family} onChange={text("family")}>
                <option value="any">{t("familyAny")}</option>
                <option value="ipv4">{t("familyV4")}</option>
                <option value="ipv6">{t("familyV6")}</option>
              </select>
            </label>
          </div>
          {check("http2")}
          <label class="choice">
            <input
              type="checkbox"
              checked={f.followRedirects}
              onChange={(e) => set("followRedirects", e.currentTarget.checked)}
            />
            {t("followRedirects")}
          </label>
          {f.followRedirects ? (
            <label>
              {t("maxRedirects")}
              <input
                type="number"
                min={0}
                max={10}
                placeholder={t("defaultIs", { v: 5 })}
                value={f.maxRedirects}
                onInput={text("maxRedirects")}
              />
            </label>
          ) : null}
          {f.method !== "HEAD" ? (
            <label>
              {t("keyword")}
              <input maxLength={256} value={f.keyword} onInput={text("keyword")} />
            </label>
          ) : null}
          <label>
            {t("headers")}
            <textarea rows={3} spellcheck={false} value={f.headers} onInput={text("headers")} />
          </label>
          {methodsWithBody.includes(f.method) ? (
            <label>
              {t("body")}
              <textarea rows={4} spellcheck={false} value={f.body} onInput={text("body")} />
            </label>
          ) : null}
        </>
      ) : null}
      {type === "ping" ? (
        <div class="row">
          <label>
            {t("count", { max: limits(form).pingCount })}
            <input
              name="count"
              type="number"
              min={1}
              max={limits(form).pingCount}
              placeholder={t("defaultIs", { v: 4 })}
              value={f.count}
              onInput={text("count")}
            />
          </label>
          {timeout(5)}
          <label>
            {t("size")}
            <input
              name="size"
              type="number"
              min={28}
              max={1500}
              placeholder={t("defaultIs", { v: 84 })}
              value={f.size}
              onInput={text("size")}
            />
          </label>
        </div>
      ) : null}
      {type === "ping" ? (
        <div class="row">
          {check("dontFragment")}
          {check("pmtu")}
        </div>
      ) : null}
      {type === "dns" ? (
        <>
          <label>
            {t("recordType")}
            <select value={f.recordType} onChange={text("recordType")}>
              {recordTypes.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <label>
            {t("dnsProtocol")}
            <select name="dnsProtocol" value={f.dnsProtocol} onChange={text("dnsProtocol")}>
              {dnsProtocols.map((p) => (
                <option key={p} value={p} disabled={f.trace && (p === "tls" || p === "https")}>
                  {t(protoLabel[p as keyof typeof protoLabel])}
                </option>
              ))}
            </select>
          </label>
          {f.trace ? null : (
            <label>
              {f.dnsProtocol === "https" ? t("dohServer") : t("server")}
              <input
                name="server"
                autoComplete="off"
                spellcheck={false}
                value={f.server}
                onInput={text("server")}
              />
            </label>
          )}
          <div class="row">
            {check("dnssec")}
            {check("checkingDisabled")}
            {check("nsid")}
            {check("trace")}
          </div>
        </>
      ) : null}
      {type === "tcp" ? (
        <div class="row">
          <label>
            {t("port")}
            <input
              name="port"
              type="number"
              min={1}
              max={65535}
              placeholder="443"
              value={f.port}
              onInput={text("port")}
            />
          </label>
          {timeout(5)}
        </div>
      ) : null}
      {type === "mtr" ? (
        <div class="row">
          <label>
            {t("mtrMode")}
            <select name="mtrMode" value={f.mtrMode} onChange={text("mtrMode")}>
              <option value="icmp">{t("mtrIcmp")}</option>
              <option value="udp">{t("mtrUdp")}</option>
              <option value="tcp">{t("mtrTcp")}</option>
            </select>
          </label>
          {f.mtrMode === "icmp" ? null : (
            <label>
              {t("port")}
              <input
                name="port"
                type="number"
                min={1}
                max={65535}
                placeholder={t("defaultIs", { v: f.mtrMode === "tcp" ? 80 : 33434 })}
                value={f.port}
                onInput={text("port")}
              />
            </label>
          )}
          <label>
            {t("rounds")}
            <input
              name="rounds"
              type="number"
              min={1}
              max={100}
              placeholder={t("defaultIs", { v: 10 })}
              value={f.rounds}
              onInput={text("rounds")}
            />
          </label>
          <label>
            {t("maxHops")}
            <input
              type="number"
              min={1}
              max={64}
              placeholder={t("defaultIs", { v: 30 })}
              value={f.maxHops}
              onInput={text("maxHops")}
            />
          </label>
        </div>
      ) : null}
      {type === "traceroute" ? (
        <label>
          {t("maxHops")}
          <input
            type="number"
            min={1}
            max={64}
            placeholder={t("defaultIs", { v: 30 })}
            value={f.maxHops}
            onInput={text("maxHops")}
          />
        </label>
      ) : null}
    </>
  );
}
