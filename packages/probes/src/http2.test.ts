import { createServer as createHttp } from "node:http";
import { createSecureServer, type Http2SecureServer } from "node:http2";
import { createServer as createHttps, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpProbe } from "./http.js";
import type { HttpParams } from "./probe-params.js";
import { selfSignedCert } from "./testing/tls-cert.js";

/** HTTP/2 by ALPN, the request body over it, and the download phase; servers on 127.0.0.1. */
const allow = { allowPrivate: true };
let h2: Http2SecureServer;
let h1: HttpsServer;
let h2Origin: string;
let h1Origin: string;
const seen: { version: string; method: string; path: string; body: string; host: string }[] = [];

beforeAll(async () => {
  const cert = selfSignedCert();
  // allowHTTP1: a client that offers only http/1.1 still gets an answer; the probe offers h2 first.
  h2 = createSecureServer({ ...cert, allowHTTP1: true }, (req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      seen.push({
        version: req.httpVersion,
        method: req.method,
        path: req.url,
        body,
        host: String(req.headers[":authority"] ?? req.headers.host),
      });
      if (req.url === "/hang") return; // never answers
      if (req.url === "/hang-body") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.write("part");
        return; // the body never ends
      }
      if (req.url === "/slow") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.write("a");
        setTimeout(() => res.end("b"), 400);
        return;
      }
      res.writeHead(201, { "content-type": "text/plain", "x-proto": req.httpVersion });
      res.end(`got ${body.length} bytes over ${req.httpVersion}`);
    });
  });
  h1 = createHttps(cert, (req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end("http/1.1 only"));
  });
  await new Promise<void>((r) => h2.listen(0, "127.0.0.1", r));
  await new Promise<void>((r) => h1.listen(0, "127.0.0.1", r));
  h2Origin = `https://127.0.0.1:${(h2.address() as AddressInfo).port}`;
  h1Origin = `https://127.0.0.1:${(h1.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => h2.close(r));
  await new Promise((r) => h1.close(r));
});

const get = (url: string, extra: Partial<HttpParams> = {}) =>
  httpProbe.run(
    { url, method: "GET", timeout_ms: 5000, follow_redirects: false, max_redirects: 5, ...extra },
    allow,
  );

describe("http probe: HTTP/2 over ALPN, POST body, timing phases", () => {
  it("speaks HTTP/2 when offered and the server agrees: status, headers, body, phases", async () => {
    const o = await get(`${h2Origin}/x?y=1`, { http2: true });
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    const d = o.detail!;
    expect(d).toMatchObject({ http_version: "2", status_code: 201, body_excerpt: "got 0 bytes over 2.0" });
    expect(d.headers["x-proto"]).toBe("2.0");
    expect(seen.at(-1)).toMatchObject({ version: "2.0", method: "GET", path: "/x?y=1" });
    expect(seen.at(-1)?.host).toBe(h2Origin.replace("https://", ""));
    expect(d.tls?.protocol).toMatch(/^TLSv1\.[23]$/);
    for (const phase of [d.timings.connect, d.timings.tls, d.timings.first_byte, d.timings.download])
      expect(phase).toBeGreaterThanOrEqual(0);
    expect(d.timings.download!).toBeLessThanOrEqual(d.timings.total);
  });

  it("sends a POST body over HTTP/2", async () => {
    const body = "x".repeat(5000);
    const o = await get(`${h2Origin}/post`, { http2: true, method: "POST", body });
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(o.detail?.body_excerpt).toBe("got 5000 bytes over 2.0");
    expect(seen.at(-1)).toMatchObject({ version: "2.0", method: "POST", body });
  });

  it("falls back to HTTP/1.1 when the server does not take h2, and says so", async () => {
    const o = await get(`${h1Origin}/`, { http2: true });
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(o.detail).toMatchObject({ http_version: "1.1", status_code: 200, body_excerpt: "http/1.1 only" });
  });

  it("http:// with http2 is HTTP/1.1 (no h2c), and says so", async () => {
    const plain = createHttp((_req, res) => res.writeHead(200).end("plain"));
    await new Promise<void>((r) => plain.listen(0, "127.0.0.1", r));
    try {
      const o = await get(`http://127.0.0.1:${(plain.address() as AddressInfo).port}/`, { http2: true });
      expect(o.success, JSON.stringify(o.error)).toBe(true);
      expect(o.detail).toMatchObject({ http_version: "1.1", body_excerpt: "plain" });
    } finally {
      await new Promise((r) => plain.close(r));
    }
  });

  it("a server that never answers over h2 is a timeout, and a non-TLS port fails cleanly", async () => {
    const o = await get(`${h2Origin}/hang`, { http2: true, timeout_ms: 300 });
    expect(o).toMatchObject({ success: false, error: { code: "timeout" } });
    // The connection and handshake were measured before the silence.
    expect(o.detail?.timings.tls).toBeGreaterThanOrEqual(0);
    for (const http2 of [true, false]) {
      const b = await get(`${h2Origin}/hang-body`, { http2, timeout_ms: 300 });
      expect(b, `http2 ${http2}`).toMatchObject({ success: false, error: { code: "timeout" } });
      expect(b.detail).toMatchObject({ status_code: 200, body_excerpt: "part" });
    }
    const plain = createHttp((_req, res) => res.writeHead(200).end("plain"));
    await new Promise<void>((r) => plain.listen(0, "127.0.0.1", r));
    try {
      const port = (plain.address() as AddressInfo).port;
      const p = await get(`https://127.0.0.1:${port}/`, { http2: true, timeout_ms: 2000 });
      expect(p.success).toBe(false);
      expect(["tls_error", "probe_error"]).toContain(p.error?.code);
    } finally {
      await new Promise((r) => plain.close(r));
    }
  });

  it("without http2 the same server is asked over HTTP/1.1 and no http_version is reported", async () => {
    const o = await get(`${h2Origin}/plain`);
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(o.detail?.body_excerpt).toBe("got 0 bytes over 1.1");
    expect(o.detail).not.toHaveProperty("http_version");
  });

  it("download covers the body's transfer after the first byte (a body sent in two parts)", async () => {
    for (const http2 of [true, false]) {
      const o = await get(`${h2Origin}/slow`, { http2 });
      expect(o.success, JSON.stringify(o.error)).toBe(true);
      expect(o.detail?.body_excerpt).toBe("ab");
      // The server waits 400 ms between the two parts. The bound leaves 200 ms for the probe's event loop
      // to see the head late on a loaded machine (a late head shortens the measured download).
      expect(o.detail?.timings.download).toBeGreaterThanOrEqual(200);
    }
  });
});
