import { createServer as createHttp, type Server } from "node:http";
import { createServer as createNetServer, type Server as NetServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpProbe, httpProbe } from "./http.js";
import type { HttpParams } from "./probe-params.js";
import { resolveAndCheck } from "./target-guard.js";

const paths: string[] = [];
let origin: string;
let rawOrigin: string;
let http: Server;
let raw: NetServer;

beforeAll(async () => {
  http = createHttp((req, res) => {
    const url = req.url ?? "/";
    if (url.startsWith("/redirect-to?")) {
      res.writeHead(302, { location: decodeURIComponent(url.slice("/redirect-to?".length)) }).end();
    } else {
      res.writeHead(200).end("ok");
    }
  });
  // Raw bytes on the wire: Node's own server would refuse to send a non-ASCII header value.
  raw = createNetServer((socket) => {
    socket.once("data", (chunk: Buffer) => {
      const path = chunk.toString("latin1").split(" ")[1] ?? "";
      paths.push(path);
      const head =
        path === "/"
          ? Buffer.concat([
              Buffer.from("HTTP/1.1 302 Found\r\nLocation: /"),
              Buffer.from([0xc3, 0xa9]),
              Buffer.from("\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
            ])
          : Buffer.from("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
      socket.end(head);
    });
    socket.on("error", () => {});
  });
  const listen = (s: Server | NetServer) =>
    new Promise<number>((r) => s.listen(0, "127.0.0.1", () => r((s.address() as { port: number }).port)));
  origin = `http://127.0.0.1:${await listen(http)}`;
  rawOrigin = `http://127.0.0.1:${await listen(raw)}`;
});
afterAll(async () => {
  http.closeAllConnections();
  await Promise.all([http, raw].map((s) => new Promise((r) => s.close(r))));
});

const params = (url: string): HttpParams => ({
  url,
  method: "GET",
  timeout_ms: 5000,
  follow_redirects: true,
  max_redirects: 5,
});
const redirectTo = (to: string) => `${origin}/redirect-to?${encodeURIComponent(to)}`;

describe("http probe redirects", () => {
  it("reads a non-ASCII Location as UTF-8, as curl -L does", async () => {
    const o = await httpProbe.run(params(`${rawOrigin}/`), { allowPrivate: true });
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(paths.at(-1)?.toLowerCase()).toBe("/%c3%a9");
    expect(o.detail).toMatchObject({
      status_code: 200,
      redirects: [{ url: `${rawOrigin}/`, status_code: 302 }],
    });
  });

  it("reports a redirect to an invalid URL as invalid_target, keeping the chain", async () => {
    const first = redirectTo("http://[::1");
    const o = await httpProbe.run(params(first), { allowPrivate: true });
    expect(o).toMatchObject({
      success: false,
      error: { code: "invalid_target", message: "redirect to an invalid URL: http://[::1" },
      detail: {
        resolved_ip: "127.0.0.1",
        status_code: 302,
        headers: { location: "http://[::1" },
        redirects: [{ url: first, status_code: 302 }],
      },
    });
    expect(o.detail?.timings.connect).toBeGreaterThan(0);
    expect(o.detail?.timings.first_byte).toBeGreaterThan(0);
  });

  it("reports a redirect to an unsupported scheme as invalid_target, keeping the chain", async () => {
    const o = await httpProbe.run(params(redirectTo("ftp://127.0.0.1/file")), { allowPrivate: true });
    expect(o).toMatchObject({
      success: false,
      error: { code: "invalid_target" },
      detail: { status_code: 302, redirects: [{ status_code: 302 }] },
    });
  });

  it("keeps the chain when the guard refuses a redirect target", async () => {
    // The 127.0.0.1 origin stands in for a public one; the redirect target goes through the real guard.
    const probe = createHttpProbe((host, opts) =>
      resolveAndCheck(host, { ...opts, allowPrivate: host === "127.0.0.1" }),
    );
    const first = redirectTo("http://169.254.169.254/latest/meta-data/");
    const o = await probe.run(params(first), { allowPrivate: false });
    expect(o).toMatchObject({
      success: false,
      error: { code: "target_not_allowed" },
      detail: {
        resolved_ip: "127.0.0.1",
        status_code: 302,
        headers: { location: "http://169.254.169.254/latest/meta-data/" },
        redirects: [{ url: first, status_code: 302 }],
      },
    });
    expect(o.detail?.timings.total).toBeGreaterThan(0);
  });
});
