import { createServer as createHttp, type IncomingHttpHeaders, type Server } from "node:http";
import { createServer as createNetServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpProbe } from "./http.js";
import { HTTP_KEYWORD_SCAN_BYTES } from "./http-request-params.js";
import { MAX_BODY_EXCERPT } from "./http-response.js";
import { type HttpParams, httpParamsSchema, probeJobSpecSchema } from "./probe-params.js";

/** The http probe's optional request headers, body and keyword, against loopback servers. */

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  rawNames: string[];
  body: string;
}
const seen: Seen[] = [];
let origin4: string;
let origin6: string;
const servers: Server[] = [];
const MiB = 1024 * 1024;

/** `size` bytes of "a" with `word` written at byte `at` (sent in 64 kB chunks, with or without a length). */
function padded(size: number, word: string, at: number): Buffer {
  const body = Buffer.alloc(size, 0x61);
  if (at >= 0) body.write(word, at, "utf8");
  return body;
}

const server = () =>
  createHttp((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rawNames = req.rawHeaders.filter((_, i) => i % 2 === 0);
      seen.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        rawNames,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      const url = new URL(req.url ?? "/", "http://x");
      if (url.pathname === "/echo") {
        res.writeHead(200, { "content-type": "text/plain" }).end("Service is UP: all good");
      } else if (url.pathname === "/padded") {
        // ?size=&at=&length=0|1: a body of `size` bytes with "NEEDLE" at byte `at`.
        const body = padded(
          Number(url.searchParams.get("size")),
          "NEEDLE",
          Number(url.searchParams.get("at")),
        );
        const declared = url.searchParams.get("length") === "1";
        res.writeHead(200, declared ? { "content-length": body.length } : {});
        let offset = 0;
        const push = (): void => {
          while (offset < body.length) {
            const more = res.write(body.subarray(offset, offset + 64 * 1024));
            offset += 64 * 1024;
            if (!more) {
              res.once("drain", push);
              return;
            }
          }
          res.end();
        };
        push();
      } else if (url.pathname === "/redirect") {
        // ?status=&to=: a redirect whose own body holds the keyword.
        res
          .writeHead(Number(url.searchParams.get("status")), { location: url.searchParams.get("to") ?? "/" })
          .end("NEEDLE in the redirect");
      } else {
        res.writeHead(404).end("not found");
      }
    });
  });

const listen = (s: Server, host: string): Promise<number> =>
  new Promise((resolve) => {
    servers.push(s);
    s.listen(0, host, () => resolve((s.address() as { port: number }).port));
  });

beforeAll(async () => {
  origin4 = `http://127.0.0.1:${await listen(server(), "127.0.0.1")}`;
  origin6 = `http://[::1]:${await listen(server(), "::1")}`;
});
afterAll(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

const run = (url: string, extra: Partial<HttpParams> = {}) =>
  httpProbe.run(
    { url, method: "GET", timeout_ms: 5000, follow_redirects: false, max_redirects: 5, ...extra },
    { allowPrivate: true },
  );
const paddedUrl = (size: number, at: number, length = false) =>
  `${origin4}/padded?size=${size}&at=${at}&length=${length ? 1 : 0}`;
const redirect = (status: number, to: string) =>
  `${origin4}/redirect?status=${status}&to=${encodeURIComponent(to)}`;

describe("http probe: request headers", () => {
  it("sends them as named; User-Agent and Accept replace the probe's own, in any case", async () => {
    const o = await run(`${origin4}/echo`, {
      headers: { "X-Check": "one two", "user-AGENT": "monitor/1.0", Authorization: "Bearer t0k" },
    });
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    const s = seen.at(-1)!;
    expect(s.headers).toMatchObject({
      "x-check": "one two",
      "user-agent": "monitor/1.0",
      authorization: "Bearer t0k",
      accept: "*/*",
    });
    expect(s.rawNames).toEqual(expect.arrayContaining(["X-Check", "user-AGENT", "Authorization"]));
    expect(s.rawNames.filter((n) => n.toLowerCase() === "user-agent")).toHaveLength(1);
  });

  it("keeps them across a same-origin redirect; credentials stay behind when it leaves the origin", async () => {
    const headers = { Authorization: "Bearer t0k", Cookie: "s=1", "X-Check": "yes" };
    await run(redirect(302, `${origin4}/echo`), { headers, follow_redirects: true });
    expect(seen.at(-1)).toMatchObject({
      url: "/echo",
      headers: { authorization: "Bearer t0k", cookie: "s=1", "x-check": "yes" },
    });
    const o = await run(redirect(302, `${origin6}/echo`), { headers, follow_redirects: true });
    expect(o.detail).toMatchObject({ status_code: 200, resolved_ip: "::1" });
    const s = seen.at(-1)!;
    expect(s.headers["x-check"]).toBe("yes");
    expect(s.headers.authorization).toBeUndefined();
    expect(s.headers.cookie).toBeUndefined();
  });
});

describe("http probe: request body", () => {
  it.each(["POST", "PUT", "PATCH", "DELETE"] as const)(
    "%s sends the body with its length",
    async (method) => {
      const body = `{"check":"${method}","é":1}`;
      const o = await run(`${origin4}/echo`, {
        method,
        body,
        headers: { "Content-Type": "application/json" },
      });
      expect(o.success, JSON.stringify(o.error)).toBe(true);
      expect(seen.at(-1)).toMatchObject({
        method,
        body,
        headers: {
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)),
        },
      });
      expect(seen.at(-1)!.headers["transfer-encoding"]).toBeUndefined();
    },
  );

  it("an empty body is sent as Content-Length: 0", async () => {
    await run(`${origin4}/echo`, { method: "POST", body: "" });
    expect(seen.at(-1)).toMatchObject({ method: "POST", body: "", headers: { "content-length": "0" } });
  });

  it("a 307 repeats method and body; a 303 turns into a GET without body or Content-Type", async () => {
    const headers = { "Content-Type": "text/plain", "X-Check": "yes" };
    await run(redirect(307, "/echo"), { method: "POST", body: "again", headers, follow_redirects: true });
    expect(seen.at(-1)).toMatchObject({ method: "POST", url: "/echo", body: "again" });
    await run(redirect(303, "/echo"), { method: "POST", body: "once", headers, follow_redirects: true });
    const s = seen.at(-1)!;
    expect(s).toMatchObject({ method: "GET", url: "/echo", body: "" });
    expect(s.headers["content-type"]).toBeUndefined();
    expect(s.headers["content-length"]).toBeUndefined();
    expect(s.headers["x-check"]).toBe("yes");
  });
});

describe("http probe: keyword", () => {
  it("found and not found (case-sensitive) in a short body; absent without keyword", async () => {
    const found = await run(`${origin4}/echo`, { keyword: "UP: all" });
    expect(found.success).toBe(true);
    expect(found.detail).toMatchObject({ keyword_found: true, body_excerpt: "Service is UP: all good" });
    const missed = await run(`${origin4}/echo`, { keyword: "up: all" });
    expect(missed.success).toBe(true);
    expect(missed.detail?.keyword_found).toBe(false);
    const none = await run(`${origin4}/echo`);
    expect(none.detail).not.toHaveProperty("keyword_found");
  });

  it("reads past the excerpt up to 1 MiB: a body of 600 kB is read whole, the excerpt stays 10 kB", async () => {
    const o = await run(paddedUrl(600 * 1024, 500 * 1024), { keyword: "NEEDLE" });
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(o.detail).toMatchObject({ keyword_found: true, body_truncated: true, body_bytes: 600 * 1024 });
    expect(o.detail!.body_excerpt).toBe("a".repeat(MAX_BODY_EXCERPT));
  });

  it("finds a keyword that ends at the last byte of the first 1 MiB", async () => {
    const o = await run(paddedUrl(2 * MiB, HTTP_KEYWORD_SCAN_BYTES - "NEEDLE".length), { keyword: "NEEDLE" });
    expect(o.detail).toMatchObject({ keyword_found: true, body_truncated: true });
  });

  it.each([
    ["straddling", HTTP_KEYWORD_SCAN_BYTES - 3],
    ["beyond", HTTP_KEYWORD_SCAN_BYTES + 10],
  ])("does not find a keyword %s the 1 MiB mark, and stops reading there", async (_where, at) => {
    const o = await run(paddedUrl(3 * MiB, at), { keyword: "NEEDLE" });
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(o.detail?.keyword_found).toBe(false);
    // Without a Content-Length, body_bytes is what arrived before reading stopped: past 1 MiB, short of 3.
    expect(o.detail!.body_bytes).toBeGreaterThan(HTTP_KEYWORD_SCAN_BYTES);
    expect(o.detail!.body_bytes).toBeLessThan(3 * MiB);
  });

  it("with a declared length, a body cut at 1 MiB reports that length", async () => {
    const o = await run(paddedUrl(5 * MiB, 4 * MiB, true), { keyword: "NEEDLE" });
    expect(o.detail).toMatchObject({ keyword_found: false, body_truncated: true, body_bytes: 5 * MiB });
  });

  it("looks in the final response only, after redirects", async () => {
    const followed = await run(redirect(302, "/echo"), { keyword: "NEEDLE", follow_redirects: true });
    expect(followed.detail).toMatchObject({ status_code: 200, keyword_found: false });
    // Not following: the redirect is the final response, and its body is searched.
    const stopped = await run(redirect(302, "/echo"), { keyword: "NEEDLE" });
    expect(stopped.detail).toMatchObject({ status_code: 302, keyword_found: true });
  });

  it("says nothing about the keyword when the body does not arrive in time", async () => {
    const trickle = createNetServer((socket) => {
      socket.write("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nNEEDLE");
      const timer = setInterval(() => socket.write("x"), 50);
      socket.on("close", () => clearInterval(timer));
      socket.on("error", () => clearInterval(timer));
    });
    await new Promise<void>((r) => trickle.listen(0, "127.0.0.1", r));
    try {
      const port = (trickle.address() as { port: number }).port;
      const o = await run(`http://127.0.0.1:${port}/`, { keyword: "NEEDLE", timeout_ms: 300 });
      expect(o).toMatchObject({ success: false, error: { code: "timeout" } });
      expect(o.detail?.body_excerpt).toMatch(/^NEEDLEx*$/);
      expect(o.detail).not.toHaveProperty("keyword_found");
    } finally {
      await new Promise((r) => trickle.close(r));
    }
  });
});

describe("http params schema: headers, body, keyword", () => {
  const base = { url: "https://example.com/" };
  const issues = (params: Record<string, unknown>) => {
    const r = httpParamsSchema.safeParse({ ...base, ...params });
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  };

  it("takes valid ones, also inside a job spec", () => {
    const params = {
      ...base,
      method: "POST",
      headers: { "X-Api-Key": "k", Accept: "application/json", "x!#$%&'*+-.^_`|~1": "\tv al " },
      body: "é".repeat(32 * 1024), // 64 KiB as UTF-8, the limit
      keyword: "k".repeat(256),
    };
    expect(issues(params)).toEqual([]);
    expect(probeJobSpecSchema.safeParse({ type: "http", params }).success).toBe(true);
  });

  it.each([
    ["", "empty"],
    ["X Check", "space"],
    ["X-Check:", "colon"],
    ["Überschrift", "non-ASCII"],
    ["X(1)", "parentheses"],
    ["x".repeat(129), "too long"],
  ])("refuses the header name %j (%s)", (name) => {
    expect(issues({ headers: { [name]: "v" } })).toEqual([
      `headers.${name}: header names are HTTP tokens of 1–128 characters: letters, digits, !#$%&'*+-.^_\`|~`,
    ]);
  });

  it.each([
    ["a\r\nX-Injected: 1", "CR/LF"],
    ["a\nb", "LF"],
    ["a\u0000b", "NUL"],
    ["caf\u00e9", "non-ASCII"],
    ["v".repeat(1025), "over 1024 characters"],
  ])("refuses the header value %j (%s)", (value) => {
    expect(issues({ headers: { "X-Check": value } })).toEqual([expect.stringMatching(/^headers\.X-Check: /)]);
  });

  it("reports a bad name and a bad value together", () => {
    expect(issues({ headers: { "X Check": "a\nb" } })).toHaveLength(2);
  });

  it("refuses headers the probe sets itself, hop-by-hop ones, Accept-Encoding and Proxy-*, in any case", () => {
    for (const name of [
      "Host",
      "content-length",
      "Transfer-Encoding",
      "CONNECTION",
      "Keep-Alive",
      "TE",
      "Trailer",
      "Upgrade",
      "Expect",
      "Accept-Encoding",
      "Proxy-Authorization",
      "proxy-connection",
    ])
      expect(issues({ headers: { [name]: "x" } }), name).toEqual([
        `headers.${name}: header not allowed (set by the probe, hop-by-hop, Accept-Encoding or Proxy-*)`,
      ]);
  });

  it("refuses more than 20 headers and names repeated in another case", () => {
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, "v"]));
    expect(issues({ headers: many })).toEqual(["headers: at most 20 headers"]);
    expect(issues({ headers: { "X-A": "1", "x-a": "2" } })).toEqual([
      "headers.x-a: header name repeats another (names are case-insensitive)",
    ]);
  });

  it("takes a body only with POST, PUT, PATCH or DELETE, at most 64 KiB as UTF-8", () => {
    for (const method of [undefined, "GET", "HEAD", "OPTIONS"])
      expect(issues({ method, body: "x" }), String(method)).toEqual([
        `body: only with method POST, PUT, PATCH, DELETE, not ${method ?? "GET"}`,
      ]);
    expect(issues({ method: "POST", body: "x".repeat(64 * 1024 + 1) })).not.toEqual([]);
    expect(issues({ method: "POST", body: "é".repeat(32 * 1024 + 1) })).toEqual([
      "body: at most 65536 bytes as UTF-8",
    ]);
  });

  it("takes a keyword of 1–256 characters, not with HEAD", () => {
    expect(issues({ keyword: "" })).not.toEqual([]);
    expect(issues({ keyword: "k".repeat(257) })).not.toEqual([]);
    expect(issues({ method: "HEAD", keyword: "up" })).toEqual([
      "keyword: needs a response body: not with method HEAD",
    ]);
  });
});
