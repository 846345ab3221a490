import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runLookup } from "../registry.js";
import { failure } from "../testing/failure.js";
import type { LookupContext } from "../types.js";
import { icpLookup } from "./lookup.js";
import type { IcpResult } from "./schema.js";
import { defaultHomePageUrls } from "./site-footer.js";
import {
  closedPort,
  encodeGbk,
  hostOf,
  loopbackLookup,
  MemoryCache,
  selfSignedCert,
  send,
  startServer,
  type TestServer,
} from "./testing/servers.js";

const NOW = new Date("2026-11-22T08:00:00.000Z");
const UTF8_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>测试</title></head><body>
<main>欢迎</main><footer>©2026 测试 <a href="https://beian.miit.gov.cn/" target="_blank">京ICP备10046444号-9</a>
<a href="http://www.beian.gov.cn/portal/registerSystemInfo">京公网安备11000002000001号</a></footer></body></html>`;

// Home pages, by the Host they are asked for; every name is made up and resolves to 127.0.0.1.
let site: TestServer;
let secure: TestServer;
let down: number;
beforeAll(async () => {
  site = await startServer((req, res) => {
    const html = "text/html";
    switch (hostOf(req)) {
      case "utf8.test":
        return send(res, 200, UTF8_PAGE, "text/html; charset=utf-8");
      case "gbk.test":
        // Declared only in the page, as many older sites do; the header names no charset.
        return send(res, 200, encodeGbk('<meta charset="gb2312"><p>ICP：粤ICP备2023012345号</p>'), html);
      case "plain.test":
        return send(res, 200, "<html><body><p>Hello</p></body></html>", html);
      case "moved.test":
        res.writeHead(301, { location: `http://www.moved.test:${site.port}/index.html` });
        return res.end();
      case "www.moved.test":
        return send(res, 200, "<p>浙ICP备12345678号-2</p>", html);
      case "elsewhere.test":
        res.writeHead(302, { location: `http://parking.test:${site.port}/` });
        return res.end();
      case "parking.test":
        return send(res, 200, "<p>京ICP备10046444号</p>", html);
      case "error.test":
        if (req.url === "/home") return send(res, 200, "<p>京ICP备10046444号</p>", html);
        return send(res, 503, "<p>京ICP备88888888号</p>", html);
      default:
        return send(res, 404, "not here", html);
    }
  });
  secure = await startServer(
    (_req, res) => send(res, 200, "<p>苏ICP备12345678号</p>", "text/html"),
    selfSignedCert("tls.test"),
  );
  down = await closedPort();
});
afterAll(async () => {
  await site.close();
  await secure.close();
});

const ctx = (
  icp: NonNullable<LookupContext["icp"]> = {},
  extra: Partial<LookupContext> = {},
): LookupContext => ({
  allowPrivate: true,
  lookup: loopbackLookup,
  now: () => NOW,
  timeoutMs: 5000,
  ...extra,
  icp: { homePageUrls: (d) => [`http://${d}:${site.port}/`], ...icp },
});

describe("icp lookup: the home page", () => {
  it("reads a UTF-8 footer: unverified, no company, the page named, and keeps it", async () => {
    const cache = new MemoryCache();
    const result = await icpLookup.run({ domain: "utf8.test" }, ctx({ cache }));
    expect(result).toEqual({
      domain: "utf8.test",
      icp_number: "京ICP备10046444号-9",
      company: "",
      license_type: "non_commercial_filing",
      main_licence: "京ICP备10046444号",
      nature: "",
      status: "unverified",
      source: "site_footer",
      origin: "site_footer",
      verified: false,
      page_url: `http://utf8.test:${site.port}/`,
      checked_at: NOW.toISOString(),
    });
    expect(cache.entries.get("utf8.test")).toEqual(result);
  });

  it("reads a GBK footer declared in a <meta>", async () => {
    const result = await icpLookup.run({ domain: "gbk.test" }, ctx());
    expect(result).toMatchObject({ icp_number: "粤ICP备2023012345号", status: "unverified" });
  });

  it("answers not_found, unverified, for a page of the site that shows no number", async () => {
    const result = await icpLookup.run({ domain: "plain.test" }, ctx());
    expect(result).toEqual({
      domain: "plain.test",
      icp_number: "",
      company: "",
      license_type: "",
      main_licence: "",
      nature: "",
      status: "not_found",
      source: "site_footer",
      origin: "site_footer",
      verified: false,
      page_url: `http://plain.test:${site.port}/`,
      checked_at: NOW.toISOString(),
    });
  });

  it("follows a redirect to www and reads the page it lands on", async () => {
    const result = await icpLookup.run({ domain: "moved.test" }, ctx());
    expect(result).toMatchObject({
      icp_number: "浙ICP备12345678号-2",
      page_url: `http://www.moved.test:${site.port}/index.html`,
    });
  });

  it("does not take the number of another site a page redirects to", async () => {
    const error = await failure(icpLookup.run({ domain: "elsewhere.test" }, ctx()));
    expect(error.code).toBe("unavailable");
    expect(error.message).toContain(`redirected to another site: http://parking.test:${site.port}/`);
  });

  it("does not read the footer of an error page, and tries the next URL", async () => {
    const only = ctx({ homePageUrls: (d) => [`http://${d}:${site.port}/`] });
    const error = await failure(icpLookup.run({ domain: "error.test" }, only));
    expect(error.message).toContain(`HTTP 503 from http://error.test:${site.port}/`);
    const next = ctx({ homePageUrls: (d) => [`http://${d}:${site.port}/`, `http://${d}:${site.port}/home`] });
    const result = await icpLookup.run({ domain: "error.test" }, next);
    expect(result).toMatchObject({
      icp_number: "京ICP备10046444号",
      page_url: `http://error.test:${site.port}/home`,
    });
  });

  it("reads an HTTPS page with a certificate nobody trusts (reading, not vouching)", async () => {
    const result = await icpLookup.run(
      { domain: "tls.test" },
      ctx({ homePageUrls: (d) => [`https://${d}:${secure.port}/`] }),
    );
    expect(result).toMatchObject({
      icp_number: "苏ICP备12345678号",
      page_url: `https://tls.test:${secure.port}/`,
    });
  });

  it("tries https first, then http", async () => {
    const result = await icpLookup.run(
      { domain: "utf8.test" },
      ctx({ homePageUrls: (d) => [`https://${d}:${down}/`, `http://${d}:${site.port}/`] }),
    );
    expect(result.page_url).toBe(`http://utf8.test:${site.port}/`);
  });

  it("defaults to https and http on the domain, then on www", () => {
    expect(defaultHomePageUrls("a.test")).toEqual([
      "https://a.test/",
      "http://a.test/",
      "https://www.a.test/",
      "http://www.a.test/",
    ]);
    expect(defaultHomePageUrls("www.a.test")).toEqual(["https://www.a.test/", "http://www.a.test/"]);
  });

  it("lets the target guard refuse a site on loopback: target_not_allowed when nothing else was tried", async () => {
    const before = site.seen.length;
    const error = await failure(icpLookup.run({ domain: "utf8.test" }, ctx({}, { allowPrivate: false })));
    expect(error.code).toBe("target_not_allowed");
    expect(error.message).toContain("utf8.test resolves to 127.0.0.1");
    expect(site.seen.length).toBe(before);
  });
});

describe("icp lookup: the cache and when nothing answers", () => {
  const earlier: IcpResult = {
    domain: "gone.test",
    icp_number: "京ICP备10046444号-9",
    company: "北京测试科技有限公司",
    license_type: "non_commercial_filing",
    main_licence: "京ICP备10046444号",
    nature: "企业",
    status: "found",
    source: "provider",
    origin: "provider",
    verified: true,
    page_url: "",
    checked_at: "2026-10-01T00:00:00.000Z",
  };

  it("answers from the cache when every live source fails, with the original origin and time", async () => {
    const cache = new MemoryCache();
    cache.entries.set("gone.test", earlier);
    const provider = { url: `http://127.0.0.1:${down}/icp`, key: "k" };
    const result = await icpLookup.run({ domain: "gone.test" }, ctx({ cache, provider }));
    expect(result).toEqual({ ...earlier, source: "cache" });
    expect(cache.puts).toBe(0);
  });

  it("answers from the cache when the guard refuses the site", async () => {
    const cache = new MemoryCache();
    cache.entries.set("gone.test", earlier);
    const result = await icpLookup.run({ domain: "gone.test" }, ctx({ cache }, { allowPrivate: false }));
    expect(result.source).toBe("cache");
  });

  it("prefers a live answer to a cached one, and replaces the cached one", async () => {
    const cache = new MemoryCache();
    cache.entries.set("utf8.test", { ...earlier, domain: "utf8.test" });
    const result = await icpLookup.run({ domain: "utf8.test" }, ctx({ cache }));
    expect(result.source).toBe("site_footer");
    expect(cache.entries.get("utf8.test")?.source).toBe("site_footer");
  });

  it("still answers when the cache fails to keep the answer", async () => {
    const cache = { get: async () => undefined, put: async () => Promise.reject(new Error("db down")) };
    const result = await icpLookup.run({ domain: "utf8.test" }, ctx({ cache }));
    expect(result.source).toBe("site_footer");
  });

  it("is unavailable, naming each source tried, when nothing answers", async () => {
    const provider = { url: `http://127.0.0.1:${down}/icp`, key: "k" };
    const error = await failure(
      icpLookup.run({ domain: "nowhere.test" }, ctx({ cache: new MemoryCache(), provider })),
    );
    expect(error.code).toBe("unavailable");
    expect(error.message).toMatch(
      /^no ICP source could answer for nowhere\.test: provider: provider: ECONNREFUSED; home page http:\/\/nowhere\.test:\d+\/: HTTP 404 from .*; cache: nothing cached$/,
    );
  });

  it("is unavailable when a cache entry is malformed or the cache fails", async () => {
    const bad = { get: async () => ({ domain: "nowhere.test" }) as IcpResult, put: async () => {} };
    const error = await failure(icpLookup.run({ domain: "nowhere.test" }, ctx({ cache: bad })));
    expect(error.message).toContain("cache: cached entry is malformed");
    const failing = { get: async () => Promise.reject(new Error("db down")), put: async () => {} };
    const again = await failure(icpLookup.run({ domain: "nowhere.test" }, ctx({ cache: failing })));
    expect(again.message).toContain("cache: failed: Error: db down");
  });

  it("stops when the caller aborts", async () => {
    const error = await failure(
      icpLookup.run({ domain: "utf8.test" }, ctx({}, { signal: AbortSignal.abort() })),
    );
    expect(error.code).toBe("upstream_timeout");
  });
});

describe("icp lookup: input", () => {
  it("normalises the domain through runLookup", async () => {
    const result = await runLookup("icp", { domain: " UTF8.Test. " }, ctx());
    expect(result.domain).toBe("utf8.test");
  });

  it.each([
    ["not a name", { domain: "not a domain" }, "domain"],
    ["an IP address", { domain: "192.0.2.1" }, "domain"],
    ["a URL", { domain: "https://utf8.test/" }, "domain"],
    ["no domain", {}, "domain"],
    ["an unknown field", { domain: "utf8.test", type: "x" }, "type"],
  ])("refuses %s", async (_why, input, path) => {
    const error = await failure(runLookup("icp", input, ctx()));
    expect(error.code).toBe("invalid_input");
    expect(error.issues.map((i) => i.path)).toContain(path);
  });
});
