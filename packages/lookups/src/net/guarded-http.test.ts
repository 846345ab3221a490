import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failure } from "../testing/failure.js";
import { guardedRequest } from "./guarded-http.js";

// One loopback server; names used below are mapped to 127.0.0.1 by the test's own lookup, never resolved.
let server: Server;
let base: string;
const seen: { host: string | undefined; path: string | undefined }[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ host: req.headers.host, path: req.url });
    if (req.url === "/redirect") return void res.writeHead(302, { location: "/final" }).end();
    if (req.url === "/loop") return void res.writeHead(301, { location: "/loop" }).end();
    if (req.url === "/big") return void res.end("x".repeat(100_000));
    if (req.url === "/silent") return; // never answers
    if (req.url === "/echo") {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString();
        const { "content-type": type, "content-length": length, "x-extra": extra } = req.headers;
        res.writeHead(201).end(JSON.stringify({ method: req.method, type, length, extra, body }));
      });
      return;
    }
    res.writeHead(200, { "content-type": "text/plain" }).end(`hello ${req.method} ${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const open = { allowPrivate: true };
const toLoopback = async () => [{ address: "127.0.0.1", family: 4 }];

describe("guardedRequest", () => {
  it("fetches a page and says where it connected", async () => {
    const res = await guardedRequest(`${base}/page`, { timeoutMs: 2000 }, open);
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe("hello GET /page");
    expect(res.address).toBe("127.0.0.1");
    expect(res.truncated).toBe(false);
  });

  it("connects a name to the address its lookup gave, sending the name as Host", async () => {
    const port = new URL(base).port;
    const res = await guardedRequest(
      `http://site.example.test:${port}/named`,
      { method: "HEAD", timeoutMs: 2000 },
      { ...open, lookup: toLoopback },
    );
    expect(res.status).toBe(200);
    expect(seen.at(-1)).toEqual({ host: `site.example.test:${port}`, path: "/named" });
  });

  it("POSTs a body with extra headers, content-length set from the body", async () => {
    const body = JSON.stringify({ text: "告警 ok" });
    const res = await guardedRequest(
      `${base}/echo`,
      {
        method: "POST",
        headers: { "content-type": "application/json", "x-extra": "1", "Content-Length": "3" },
        body,
        timeoutMs: 2000,
      },
      open,
    );
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body.toString())).toEqual({
      method: "POST",
      type: "application/json",
      length: String(Buffer.byteLength(body)),
      extra: "1",
      body,
    });
  });

  it("refuses a body on GET or HEAD, and a POST to loopback while the guard is on", async () => {
    const get = await failure(guardedRequest(`${base}/echo`, { body: "x", timeoutMs: 2000 }, open));
    expect(get.code).toBe("invalid_input");
    const hits = seen.length;
    const guarded = await failure(
      guardedRequest(`${base}/echo`, { method: "POST", body: "x", timeoutMs: 2000 }, { allowPrivate: false }),
    );
    expect(guarded.code).toBe("target_not_allowed");
    expect(seen.length).toBe(hits);
  });

  it("follows redirects up to the limit, and answers the redirect itself past it", async () => {
    const followed = await guardedRequest(`${base}/redirect`, { timeoutMs: 2000, maxRedirects: 2 }, open);
    expect(followed.status).toBe(200);
    expect(followed.url).toBe(`${base}/final`);
    const looped = await guardedRequest(`${base}/loop`, { timeoutMs: 2000, maxRedirects: 3 }, open);
    expect(looped.status).toBe(301);
    const unfollowed = await guardedRequest(`${base}/redirect`, { timeoutMs: 2000 }, open);
    expect(unfollowed.status).toBe(302);
  });

  it("cuts a body at maxBytes and says so", async () => {
    const res = await guardedRequest(`${base}/big`, { timeoutMs: 2000, maxBytes: 1000 }, open);
    expect(res.body.length).toBe(1000);
    expect(res.truncated).toBe(true);
  });

  it("refuses loopback, literal or behind a name, while the guard is on", async () => {
    const literal = await failure(
      guardedRequest(`${base}/page`, { timeoutMs: 2000 }, { allowPrivate: false }),
    );
    expect(literal.code).toBe("target_not_allowed");
    const named = await failure(
      guardedRequest(
        "http://rebind.example.test/",
        { timeoutMs: 2000 },
        { allowPrivate: false, lookup: toLoopback },
      ),
    );
    expect(named.code).toBe("target_not_allowed");
    expect(named.message).toContain("rebind.example.test");
  });

  it("a silent server is upstream_timeout once the time is up", async () => {
    const started = performance.now();
    const error = await failure(guardedRequest(`${base}/silent`, { timeoutMs: 300 }, open));
    expect(error.code).toBe("upstream_timeout");
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("no route to the address is an upstream_error in words, not an exception", async () => {
    // Loopback's broadcast address: TCP has no route to it (ENETUNREACH), and nothing leaves the machine.
    const error = await failure(guardedRequest("http://127.255.255.255/", { timeoutMs: 2000 }, open));
    expect(error).toMatchObject({
      code: "upstream_error",
      message: "http://127.255.255.255/: no route to the network of 127.255.255.255 (connect ENETUNREACH)",
    });
  });

  it("a header node:http will not send is invalid_input, not a raw error", async () => {
    const error = await failure(
      guardedRequest(`${base}/`, { timeoutMs: 2000, headers: { "x-bad": "a\r\nb" } }, open),
    );
    expect(error.code).toBe("invalid_input");
  });

  it("a refused connection, an unknown name and a non-http URL are clear errors", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await failure(guardedRequest(`http://127.0.0.1:${port}/`, { timeoutMs: 2000 }, open));
    expect(refused.code).toBe("upstream_error");
    expect(refused.message).toContain("ECONNREFUSED");

    const unknownName = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    const unresolved = await failure(
      guardedRequest("http://nowhere.example.test/", { timeoutMs: 2000 }, { ...open, lookup: unknownName }),
    );
    expect(unresolved.code).toBe("upstream_error");

    const ftp = await failure(guardedRequest("ftp://127.0.0.1/", { timeoutMs: 2000 }, open));
    expect(ftp.code).toBe("invalid_input");
  });
});
