import type { ClientRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { type TLSSocket, connect as tlsConnect } from "node:tls";
import type * as dnsPacket from "dns-packet";
import { parseMessage } from "./dns-message.js";
import { type Exchange, once as settleOnce } from "./dns-transport.js";
import { summarizeTls, type TlsSummary } from "./http-tls.js";
import { onAbort } from "./outcome.js";
import { ProbeFailure, toProbeFailure } from "./probe-failure.js";

/*
 * DNS over TLS (RFC 7858: the TCP framing inside TLS, port 853) and over HTTPS (RFC 8484: the message as an
 * application/dns-message body by POST, or base64url in `?dns=` by GET). As the http probe does, trust is
 * reported, not enforced: a resolver with a self-signed or expired certificate is still measured, and the
 * result's `tls` says `authorized: false` and why.
 */

export interface SecureAnswer {
  response: dnsPacket.DecodedPacket;
  tls: TlsSummary | null;
}

/** Longest DoH answer read: a DNS message is at most 65,535 bytes. */
const MAX_DOH_BYTES = 65_535;

const where = (x: Exchange) => (x.family === 6 ? `[${x.address}]:${x.port}` : `${x.address}:${x.port}`);

const tlsFailure = (error: unknown): ProbeFailure => {
  const failure = toProbeFailure(error);
  const code = (error as { code?: unknown }).code;
  // Handshake failures (no shared protocol, a reset mid-handshake) are the server's TLS, not the network.
  if (typeof code === "string" && (code.startsWith("ERR_SSL") || code.startsWith("ERR_TLS")))
    return new ProbeFailure("tls_error", failure.message);
  return failure;
};

/** One query over TLS: a length-prefixed message each way, as over TCP. */
export function queryTls(
  query: Buffer,
  id: number,
  x: Exchange & { servername?: string | undefined },
): Promise<SecureAnswer> {
  let socket: TLSSocket | undefined;
  const s = settleOnce<SecureAnswer>(() => {
    clearTimeout(timer);
    removeAbort();
    socket?.destroy();
  });
  const timer = setTimeout(
    () =>
      s.reject(
        new ProbeFailure("timeout", `no DNS-over-TLS answer from ${where(x)} within ${x.timeoutMs} ms`),
      ),
    x.timeoutMs,
  );
  const removeAbort = onAbort(x.signal, () => s.reject(new ProbeFailure("timeout", "aborted")));
  let tls: TlsSummary | null = null;
  let buffered = Buffer.alloc(0);
  try {
    socket = tlsConnect({
      host: x.address,
      port: x.port,
      rejectUnauthorized: false,
      ALPNProtocols: ["dot"],
      ...(x.servername ? { servername: x.servername } : {}),
    });
  } catch (error) {
    s.reject(tlsFailure(error));
    return s.promise;
  }
  socket.on("secureConnect", () => {
    if (!socket) return;
    tls = summarizeTls(socket);
    const prefix = Buffer.alloc(2);
    prefix.writeUInt16BE(query.length);
    socket.write(Buffer.concat([prefix, query]));
  });
  socket.on("data", (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 2) {
      const length = buffered.readUInt16BE(0);
      if (buffered.length < length + 2) return;
      const parsed = parseMessage(buffered.subarray(2, length + 2));
      buffered = buffered.subarray(length + 2);
      if (!parsed.ok)
        return s.reject(
          new ProbeFailure("probe_error", `malformed answer from ${where(x)} over TLS: ${parsed.reason}`),
        );
      if (parsed.packet.id === id) return s.resolve({ response: parsed.packet, tls });
    }
  });
  socket.on("error", (error) => s.reject(tlsFailure(error)));
  socket.on("end", () =>
    s.reject(new ProbeFailure("probe_error", `${where(x)} closed the TLS connection without an answer`)),
  );
  return s.promise;
}

/** One query over HTTPS to `url`, connecting to the checked address `x.address` (SNI and Host: the URL's). */
export function queryHttps(
  query: Buffer,
  x: Exchange & { url: string; method: "POST" | "GET" },
): Promise<SecureAnswer> {
  const url = new URL(x.url);
  if (x.method === "GET") url.searchParams.set("dns", query.toString("base64url"));
  let tls: TlsSummary | null = null;
  let req: ClientRequest | undefined;
  const s = settleOnce<SecureAnswer>(() => {
    clearTimeout(timer);
    removeAbort();
    req?.destroy();
  });
  const timer = setTimeout(
    () =>
      s.reject(
        new ProbeFailure("timeout", `no DNS-over-HTTPS answer from ${url.host} within ${x.timeoutMs} ms`),
      ),
    x.timeoutMs,
  );
  const removeAbort = onAbort(x.signal, () => s.reject(new ProbeFailure("timeout", "aborted")));
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (x.signal?.aborted) return s.promise;
  req = httpsRequest({
    // The address the target guard passed, never a second lookup of the name.
    lookup: (_name, _options, callback) => callback(null, x.address, x.family),
    host: hostname,
    servername: /^[\d.]+$|:/.test(hostname) ? undefined : hostname,
    port: x.port,
    path: `${url.pathname}${url.search}`,
    method: x.method,
    rejectUnauthorized: false,
    agent: false,
    headers: {
      accept: "application/dns-message",
      ...(x.method === "POST"
        ? { "content-type": "application/dns-message", "content-length": String(query.length) }
        : {}),
    },
  });
  req.on("socket", (socket) => {
    socket.once("secureConnect", () => {
      tls = summarizeTls(socket as TLSSocket);
    });
  });
  req.on("error", (error) => s.reject(tlsFailure(error)));
  req.on("response", (res) => {
    const status = res.statusCode ?? 0;
    const type = String(res.headers["content-type"] ?? "");
    if (status !== 200 || !type.startsWith("application/dns-message")) {
      res.resume();
      return s.reject(
        new ProbeFailure(
          "probe_error",
          `DoH server ${url.host} answered HTTP ${status} (${type || "no type"})`,
        ),
      );
    }
    const chunks: Buffer[] = [];
    let size = 0;
    res.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_DOH_BYTES)
        return s.reject(new ProbeFailure("probe_error", "DoH answer over 65,535 bytes"));
      chunks.push(chunk);
    });
    res.on("error", (error) => s.reject(toProbeFailure(error)));
    res.on("end", () => {
      const parsed = parseMessage(Buffer.concat(chunks));
      if (!parsed.ok)
        return s.reject(
          new ProbeFailure("probe_error", `malformed answer from ${url.host} over HTTPS: ${parsed.reason}`),
        );
      s.resolve({ response: parsed.packet, tls });
    });
  });
  req.end(x.method === "POST" ? query : undefined);
  return s.promise;
}
