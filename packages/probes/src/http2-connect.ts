import type { ClientRequest, IncomingMessage } from "node:http";
import { type ClientHttp2Session, constants as h2, connect as h2connect } from "node:http2";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { type TLSSocket, connect as tlsConnect } from "node:tls";
import { elapsedMs, now } from "./clock.js";
import { summarizeTls, type TlsSummary } from "./http-tls.js";
import { ProbeFailure } from "./probe-failure.js";
import { sameAddress } from "./same-address.js";

/** What the connection's events fill in (the same object http.ts keeps for HTTP/1.1). */
export interface H2Marks {
  connectedAt: bigint | null;
  connectMs: number | null;
  tlsMs: number | null;
  tls: TlsSummary | null;
  ready: bigint | null;
  /** The protocol ALPN settled: "2" or "1.1". */
  version?: "2" | "1.1";
}

/** Request headers that HTTP/2 forbids (RFC 9113 §8.2.2): connection-specific ones. */
const H2_FORBIDDEN = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "host",
]);

/**
 * HTTPS offering HTTP/2 by ALPN (`h2`, then `http/1.1`), as curl --http2 does: the TLS connection is made
 * here, to the address the guard approved, and the request goes over whichever protocol the server chose.
 * Resolves with the response head as an IncomingMessage-like stream (statusCode, headers, rawHeaders, the
 * body as data events), so the body is read and capped the same way for both versions.
 */
export function connectAndSendH2(
  url: URL,
  hostname: string,
  to: { address: string; family: 4 | 6 },
  request: { method: string; headers: Record<string, string>; body: string | undefined },
  signal: AbortSignal,
  m: H2Marks,
  fail: (error: unknown) => ProbeFailure,
): Promise<IncomingMessage> {
  return new Promise<IncomingMessage>((resolve, reject) => {
    let settled = false;
    const rejectOnce = (error: unknown) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      reject(fail(error));
    };
    const connectStart = now();
    const socket: TLSSocket = tlsConnect({
      host: to.address,
      port: url.port === "" ? 443 : Number(url.port),
      rejectUnauthorized: false,
      ALPNProtocols: ["h2", "http/1.1"],
      ...(isIP(hostname) === 0 ? { servername: hostname } : {}),
    });
    let session: ClientHttp2Session | undefined;
    let h1: ClientRequest | undefined;
    // Before the response head: the request fails. After it: the body being read must end too, with an
    // error, or its reader would wait past the deadline for an end that never comes.
    const onAbort = () => {
      if (!settled) return rejectOnce(new Error("aborted"));
      const aborted = new Error("aborted at the deadline");
      session?.destroy(aborted);
      h1?.destroy(aborted);
      socket.destroy(aborted);
    };
    if (signal.aborted) onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    socket.once("close", () => signal.removeEventListener("abort", onAbort));
    socket.on("error", rejectOnce);
    socket.once("connect", () => {
      m.connectedAt = now();
      m.connectMs = elapsedMs(connectStart, m.connectedAt);
      m.ready = m.connectedAt;
      if (socket.remoteAddress && !sameAddress(socket.remoteAddress, to.address))
        rejectOnce(
          new ProbeFailure("target_not_allowed", `connected to ${socket.remoteAddress}, not ${to.address}`),
        );
    });
    socket.once("secureConnect", () => {
      m.ready = now();
      m.tlsMs = m.connectedAt === null ? null : elapsedMs(m.connectedAt, m.ready);
      try {
        m.tls = summarizeTls(socket);
      } catch (error) {
        return rejectOnce(
          new ProbeFailure("tls_error", `unreadable certificate: ${(error as Error).message}`),
        );
      }
      if (socket.alpnProtocol === "h2") sendH2();
      else sendH1();
    });

    // The URL's host as written, with its port when it names one (`url.host` drops the default port).
    const authority = url.host;
    function sendH2(): void {
      m.version = "2";
      session = h2connect(url.origin, { createConnection: () => socket });
      session.on("error", rejectOnce);
      const headers: Record<string, string> = {
        [h2.HTTP2_HEADER_METHOD]: request.method,
        [h2.HTTP2_HEADER_PATH]: `${url.pathname}${url.search}`,
        [h2.HTTP2_HEADER_SCHEME]: "https",
        [h2.HTTP2_HEADER_AUTHORITY]: authority,
      };
      for (const [name, value] of Object.entries(request.headers))
        if (!H2_FORBIDDEN.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
      const stream = session.request(headers, { endStream: request.body === undefined });
      stream.on("error", rejectOnce);
      // The session goes with its one stream: nothing is left open once the body is read or dropped.
      stream.once("close", () => session?.close());
      stream.once("response", (head) => {
        if (settled) return;
        settled = true;
        const raw: string[] = [];
        const flat: Record<string, string> = {};
        for (const [name, value] of Object.entries(head)) {
          if (name.startsWith(":") || value === undefined) continue;
          const text = Array.isArray(value) ? value.join(", ") : String(value);
          raw.push(name, text);
          flat[name] = text;
        }
        const res = Object.assign(stream, {
          statusCode: Number(head[h2.HTTP2_HEADER_STATUS]),
          headers: flat,
          rawHeaders: raw,
        });
        resolve(res as unknown as IncomingMessage);
      });
      if (request.body !== undefined) stream.end(request.body);
    }

    function sendH1(): void {
      m.version = "1.1";
      const req = httpsRequest({
        host: hostname,
        method: request.method,
        path: `${url.pathname}${url.search}`,
        headers: request.headers,
        port: url.port === "" ? 443 : Number(url.port),
        // No agent: with one (even `agent: false`, a fresh one) Node would open its own connection.
        createConnection: () => socket,
      });
      h1 = req;
      req.on("error", rejectOnce);
      req.once("response", (res) => {
        if (settled) return;
        settled = true;
        resolve(res);
      });
      req.end(request.body);
    }
  });
}
