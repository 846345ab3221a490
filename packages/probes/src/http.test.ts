import { X509Certificate } from "node:crypto";
import {
  createServer as createHttp,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttps } from "node:https";
import { createServer as createNetServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpProbe, httpProbe } from "./http.js";
import { MAX_BODY_EXCERPT, MAX_HEADER_VALUE, MAX_HEADERS } from "./http-response.js";
import type { HttpParams } from "./probe-params.js";
import { resolveAndCheck } from "./target-guard.js";
import { selfSignedCert } from "./testing/tls-cert.js";
import type { HostLookup, ProbeContext } from "./types.js";

const allow = { allowPrivate: true };
const seen: { method: string; url: string; host: string }[] = [];
let origin4: string;
let origin6: string;
let originTls: string;
let cert: { key: string; cert: string };
const servers: Server[] = [];

function handler(req: IncomingMessage, res: ServerResponse): void {
  seen.push({ method: req.method ?? "", url: req.url ?? "", host: req.headers.host ?? "" });
  const url = req.url ?? "/";
  if (url === "/ok") {
    res.writeHead(200, { "content-type": "text/plain", "x-test": "yes" }).end("hello");
  } else if (url === "/many-headers") {
    for (let i = 0; i < 100; i++) res.setHeader(`x-h${i}`, `v${i}`);
    res.setHeader("x-long", "a".repeat(5000));
    res.writeHead(204).end();
  } else if (url === "/big") {
    res.writeHead(200, { "content-type": "text/plain" });
    // 1 MB in 16 kB chunks; the probe must stop after 10 kB rather than read it all.
    let sent = 0;
    const push = (): void => {
      while (sent < 1024 * 1024 && res.write("b".repeat(16 * 1024))) sent += 16 * 1024;
      if (sent >= 1024 * 1024) res.end();
      else res.once("drain", () => push());
    };
    push();
  } else if (url === "/big-declared") {
    // 5 MiB with a Content-Length: the probe reads 10 kB and reports the declared size.
    const size = 5 * 1024 * 1024;
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": size });
    let sent = 0;
    const push = (): void => {
      while (sent < size && res.write(Buffer.alloc(64 * 1024, 0x62))) sent += 64 * 1024;
      if (sent >= size) res.end();
      else res.once("drain", () => push());
    };
    push();
  } else if (url.startsWith("/redirect-to?")) {
    res.writeHead(302, { location: decodeURIComponent(url.slice("/redirect-to?".length)) }).end();
  } else if (url === "/loop") {
    res.writeHead(301, { location: "/loop" }).end();
  } else if (url === "/slow") {
    // Never answers: the probe's deadline must end it.
  } else {
    res.writeHead(404).end("not found");
  }
}

const listen = (server: Server, host: string): Promise<number> =>
  new Promise((resolve) => {
    servers.push(server);
    server.listen(0, host, () => resolve((server.address() as { port: number }).port));
  });

beforeAll(async () => {
  cert = selfSignedCert();
  origin4 = `http://127.0.0.1:${await listen(createHttp(handler), "127.0.0.1")}`;
  origin6 = `http://[::1]:${await listen(createHttp(handler), "::1")}`;
  originTls = `https://localhost:${await listen(createHttps(cert, handler), "127.0.0.1")}`;
});
afterAll(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

const get = (url: string, extra: Partial<HttpParams> = {}, ctx: ProbeContext = allow) =>
  httpProbe.run(
    { url, method: "GET", timeout_ms: 5000, follow_redirects: false, max_redirects: 5, ...extra },
    ctx,
  );

describe("http probe", () => {
  it.each([
    ["IPv4", () => `${origin4}/ok`, "127.0.0.1"],
    ["IPv6", () => `${origin6}/ok`, "::1"],
  ])("%s: status, headers, body, phase timings", async (_family, url, ip) => {
    const o = await get(url());
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    const d = o.detail!;
    expect(d).toMatchObject({
      resolved_ip: ip,
      status_code: 200,
      body_excerpt: "hello",
      body_bytes: 5,
      tls: null,
    });
    expect(d.headers).toMatchObject({ "content-type": "text/plain", "x-test": "yes" });
    expect(d.timings.dns).toBe(0); // a literal: nothing to resolve
    expect(d.timings.tls).toBeNull();
    for (const phase of [d.timings.connect, d.timings.first_byte]) {
      expect(phase).toBeGreaterThan(0);
      expect(phase!).toBeLessThanOrEqual(d.timings.total);
    }
    expect(o.latency_ms).toBe(d.timings.total);
  });

  it("https: self-signed certificate is described, not fatal; SNI and Host carry the name", async () => {
    const o = await get(`${originTls}/ok`, { ip_version: 4 });
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    const d = o.detail!;
    expect(d.resolved_ip).toBe("127.0.0.1");
    expect(d.timings.tls).toBeGreaterThan(0);
    expect(d.timings.dns).toBeGreaterThanOrEqual(0);
    expect(d.tls).toMatchObject({
      authorized: false,
      authorization_error: expect.stringMatching(/SELF_SIGNED/),
      subject: expect.stringContaining("CN=localhost"),
      issuer: expect.stringContaining("O=Vantage Test"),
      san: ["DNS:localhost", "IP:127.0.0.1", "IP:0:0:0:0:0:0:0:1"],
      protocol: expect.stringMatching(/^TLSv1\.[23]$/),
      cipher: expect.any(String),
      fingerprint_sha256: new X509Certificate(cert.cert).fingerprint256,
    });
    expect(new Date(d.tls!.valid_to).getTime()).toBeGreaterThan(Date.now());
    expect(seen.at(-1)?.host).toBe(new URL(originTls).host);
  });

  it("sends the requested method; HEAD gets no body", async () => {
    const o = await get(`${origin4}/ok`, { method: "HEAD" });
    expect(o.detail).toMatchObject({ status_code: 200, body_excerpt: "", body_bytes: 0 });
    expect(seen.at(-1)).toMatchObject({ method: "HEAD", url: "/ok" });
  });

  it("caps headers: at most 64 names, values cut at 1 kB", async () => {
    const o = await get(`${origin4}/many-headers`);
    const headers = o.detail!.headers;
    expect(Object.keys(headers).length).toBe(MAX_HEADERS);
    for (const value of Object.values(headers)) expect(value.length).toBeLessThanOrEqual(MAX_HEADER_VALUE);
  });

  it("stops reading the body after the 10 kB excerpt; without a length, body_bytes is what arrived", async () => {
    const o = await get(`${origin4}/big`);
    const d = o.detail!;
    expect(o.success).toBe(true);
    expect(d.headers["content-length"]).toBeUndefined();
    expect(d.body_excerpt.length).toBe(MAX_BODY_EXCERPT);
    expect(d.body_truncated).toBe(true);
    expect(d.body_bytes).toBeGreaterThan(MAX_BODY_EXCERPT);
    expect(d.body_bytes).toBeLessThan(1024 * 1024);
  });

  it("stops reading a body with a Content-Length after the excerpt and reports the declared size", async () => {
    const o = await get(`${origin4}/big-declared`);
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(o.detail).toMatchObject({
      status_code: 200,
      body_truncated: true,
      body_bytes: 5 * 1024 * 1024,
      body_excerpt: "b".repeat(MAX_BODY_EXCERPT),
    });
  });

  it("does not follow redirects unless asked", async () => {
    const target = `${origin4}/ok`;
    const o = await get(`${origin4}/redirect-to?${encodeURIComponent(target)}`);
    expect(o.detail).toMatchObject({ status_code: 302, redirects: [], headers: { location: target } });
  });

  it("follows redirects when asked, listing each one", async () => {
    const first = `${origin4}/redirect-to?${encodeURIComponent(`${origin6}/ok`)}`;
    const o = await get(first, { follow_redirects: true });
    expect(o.detail).toMatchObject({
      status_code: 200,
      resolved_ip: "::1",
      body_excerpt: "hello",
      redirects: [{ url: first, status_code: 302 }],
    });
  });

  it("stops a redirect loop at max_redirects", async () => {
    const o = await get(`${origin4}/loop`, { follow_redirects: true, max_redirects: 2 });
    expect(o).toMatchObject({ success: false, error: { code: "too_many_redirects" } });
    expect(o.detail?.redirects).toHaveLength(3);
  });

  it("ends a request the server never answers at timeout_ms", async () => {
    const started = performance.now();
    const o = await get(`${origin4}/slow`, { timeout_ms: 300 });
    expect(o).toMatchObject({ success: false, error: { code: "timeout" } });
    expect(o.detail?.resolved_ip).toBe("127.0.0.1");
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it("a body still arriving at timeout_ms is a timeout, also when only the connection's end frames it", async () => {
    // No Content-Length, no chunking: the body ends when the connection closes, so the probe closing it at
    // its deadline must not read as a complete answer.
    const trickle = createNetServer((socket) => {
      socket.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n");
      const timer = setInterval(() => socket.write("x"), 50);
      socket.on("close", () => clearInterval(timer));
      socket.on("error", () => clearInterval(timer));
    });
    await new Promise<void>((r) => trickle.listen(0, "127.0.0.1", r));
    try {
      const port = (trickle.address() as { port: number }).port;
      const o = await get(`http://127.0.0.1:${port}/`, { timeout_ms: 400 });
      expect(o).toMatchObject({ success: false, error: { code: "timeout" } });
      expect(o.detail).toMatchObject({ status_code: 200, resolved_ip: "127.0.0.1", body_truncated: false });
      // What had arrived before the deadline: the first byte's time and the bytes of the body so far.
      const d = o.detail!;
      expect(d.timings.first_byte).toBeGreaterThan(0);
      expect(d.timings.first_byte!).toBeLessThanOrEqual(d.timings.total);
      expect(d.body_excerpt).toMatch(/^x+$/);
      expect(d.body_bytes).toBe(d.body_excerpt.length);
    } finally {
      await new Promise((r) => trickle.close(r));
    }
  });

  // The URL parser writes the host as `::ffff:7f00:1`; the kernel reports the peer as `::ffff:127.0.0.1`.
  it("reaches an IPv4-mapped IPv6 literal (the IPv4 listener answers)", async () => {
    const url = `http://[::ffff:127.0.0.1]:${new URL(origin4).port}/ok`;
    const o = await get(url);
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(o.detail).toMatchObject({ resolved_ip: "::ffff:7f00:1", status_code: 200, body_excerpt: "hello" });
  });

  it("refuses an IPv4-mapped loopback literal by its range, before connecting", async () => {
    const before = seen.length;
    const o = await get(`http://[::ffff:127.0.0.1]:${new URL(origin4).port}/ok`, {}, { allowPrivate: false });
    expect(o).toMatchObject({ success: false, error: { code: "target_not_allowed" }, detail: null });
    expect(o.error?.message).toMatch(/loopback range \(ipv4-mapped 127\.0\.0\.0\/8\)/);
    expect(seen.length).toBe(before);
  });

  it("refuses loopback targets (literal and by name) by default", async () => {
    for (const url of [`${origin4}/ok`, `${origin6}/ok`, originTls]) {
      const o = await get(url, {}, { allowPrivate: false });
      expect(o, url).toMatchObject({ success: false, error: { code: "target_not_allowed" } });
    }
  });

  it("re-checks every redirect target: a redirect to a private address is refused", async () => {
    // Treat the 127.0.0.1 origin as if it were public; everything else goes through the real guard.
    const probe = createHttpProbe((host, opts) =>
      resolveAndCheck(host, { ...opts, allowPrivate: host === "127.0.0.1" }),
    );
    const run = (to: string) =>
      probe.run(
        {
          url: `${origin4}/redirect-to?${encodeURIComponent(to)}`,
          method: "GET",
          timeout_ms: 5000,
          follow_redirects: true,
          max_redirects: 5,
        },
        { allowPrivate: false },
      );
    const before = seen.length;
    for (const to of [
      `${origin6}/ok`,
      "http://169.254.169.254/latest/meta-data/",
      "http://[::ffff:10.0.0.1]/",
    ]) {
      const o = await run(to);
      expect(o, to).toMatchObject({ success: false, error: { code: "target_not_allowed" } });
    }
    // Only the three redirecting requests reached a server; the ::1 one was never contacted.
    expect(seen.slice(before).map((s) => s.url.split("?")[0])).toEqual([
      "/redirect-to",
      "/redirect-to",
      "/redirect-to",
    ]);
  });

  describe("a name with IPv6 and IPv4 addresses, only IPv4 listening", () => {
    // `dual.test` resolves (injected resolver, no DNS) to ::1 first, then 127.0.0.1; the port is free on ::1.
    let port: number;
    const lookup: HostLookup = async () => [
      { address: "::1", family: 6 },
      { address: "127.0.0.1", family: 4 },
    ];
    beforeAll(async () => {
      port = await listen(createHttp(handler), "127.0.0.1");
      // Bound and released on ::1: nothing else listens there, so a connection to it is refused.
      const probe = createHttp();
      await new Promise<void>((resolve, reject) => {
        probe.once("error", reject).listen(port, "::1", () => probe.close(() => resolve()));
      });
    });
    const run = (extra: Partial<HttpParams> = {}) =>
      get(`http://dual.test:${port}/ok`, extra, { ...allow, lookup });

    it("any family: ::1 refuses, the probe falls back to 127.0.0.1 as curl does", async () => {
      const o = await run();
      expect(o.success, JSON.stringify(o.error)).toBe(true);
      expect(o.detail).toMatchObject({ resolved_ip: "127.0.0.1", status_code: 200, body_excerpt: "hello" });
      expect(seen.at(-1)?.host).toBe(`dual.test:${port}`);
    });

    it("ip_version 6 stays on IPv6: refused, no fallback; ip_version 4 goes straight to IPv4", async () => {
      expect(await run({ ip_version: 6 })).toMatchObject({
        success: false,
        error: { code: "connection_refused" },
        detail: { resolved_ip: "::1", status_code: null },
      });
      expect(await run({ ip_version: 4 })).toMatchObject({
        success: true,
        detail: { resolved_ip: "127.0.0.1", status_code: 200 },
      });
    });
  });

  it("reports an unsupported scheme as an invalid target", async () => {
    const o = await get("ftp://127.0.0.1/file");
    expect(o).toMatchObject({ success: false, error: { code: "invalid_target" } });
  });
});
