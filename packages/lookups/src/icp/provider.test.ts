import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LookupContext, LookupError } from "../types.js";
import { icpLookup } from "./lookup.js";
import { readAnswer } from "./provider.js";
import {
  closedPort,
  hostOf,
  loopbackLookup,
  MemoryCache,
  send,
  startServer,
  type TestServer,
} from "./testing/servers.js";

const NOW = new Date("2026-11-22T08:00:00.000Z");

// The provider: found (MIIT shape and flat shape), definite "no registration", failures. Key: "k3y".
let provider: TestServer;
let lastQuery: URLSearchParams | undefined;
// Home pages: one footer for every host, so a test sees when the chain fell through to the page.
let site: TestServer;

beforeAll(async () => {
  provider = await startServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    lastQuery = url.searchParams;
    if (req.headers.authorization !== "Bearer k3y") return send(res, 401, '{"error":"bad key"}');
    const json = (body: unknown) => send(res, 200, JSON.stringify(body), "application/json");
    switch (url.searchParams.get("domain")) {
      case "miit.test":
      case "www.miit.test":
        return json({
          code: 200,
          success: true,
          params: {
            total: 1,
            list: [
              {
                domain: "miit.test",
                unitName: "北京测试科技有限公司",
                natureName: "企业",
                mainLicence: "京ICP备10046444号",
                serviceLicence: "京ICP备10046444号-9",
              },
            ],
          },
        });
      case "flat.test":
        return json({ icp_number: "粤ICP证030173号", company: "广州测试有限公司", nature: "企业" });
      case "none.test":
        return json({ registered: false });
      case "empty-list.test":
        return json({ code: 200, success: true, params: { total: 0, list: [] } });
      case "xn--fsqu00a.test":
        return json({ domain: "例子.test", serviceLicence: "沪ICP备12345678号-1", unitName: "上海例子" });
      case "slow.test":
        setTimeout(() => json({ registered: false }), 1500).unref();
        return;
      case "garbage.test":
        return send(res, 200, "<html>maintenance</html>", "text/html");
      default:
        return send(res, 500, '{"error":"boom"}', "application/json");
    }
  });
  site = await startServer((req, res) =>
    send(res, 200, `<footer>${hostOf(req)} 京ICP备99999999号-1</footer>`, "text/html; charset=utf-8"),
  );
});
afterAll(async () => {
  await provider.close();
  await site.close();
});

type ProviderOptions = NonNullable<NonNullable<LookupContext["icp"]>["provider"]>;

/** The fixture provider with the right key, unless `patch` says otherwise. */
const providerAt = (patch: Partial<ProviderOptions> = {}): ProviderOptions => ({
  url: `http://127.0.0.1:${provider.port}/v1/icp?format=json`,
  key: "k3y",
  timeoutMs: 500,
  ...patch,
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
  icp: { provider: providerAt(), homePageUrls: (d) => [`http://${d}:${site.port}/`], ...icp },
});

describe("icp lookup: the provider", () => {
  it("answers a MIIT-shaped record: verified, with company, nature and main licence", async () => {
    const cache = new MemoryCache();
    const result = await icpLookup.run({ domain: "miit.test" }, ctx({ cache }));
    expect(result).toEqual({
      domain: "miit.test",
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
      checked_at: NOW.toISOString(),
    });
    // The domain is added to the URL's own query; the live answer is kept.
    expect(lastQuery?.get("format")).toBe("json");
    expect(cache.entries.get("miit.test")).toEqual(result);
  });

  it("accepts a record for the registered domain when a subdomain is asked", async () => {
    const result = await icpLookup.run({ domain: "www.miit.test" }, ctx());
    expect(result).toMatchObject({
      domain: "www.miit.test",
      icp_number: "京ICP备10046444号-9",
      status: "found",
    });
  });

  it("reads flat field names, and 证 as a commercial licence", async () => {
    const result = await icpLookup.run({ domain: "flat.test" }, ctx());
    expect(result).toMatchObject({
      icp_number: "粤ICP证030173号",
      main_licence: "粤ICP证030173号",
      company: "广州测试有限公司",
      license_type: "commercial_license",
      source: "provider",
      verified: true,
    });
  });

  it.each(["none.test", "empty-list.test"])(
    "takes a definite no-registration (%s) as the answer",
    async (domain) => {
      const before = site.seen.length;
      const result = await icpLookup.run({ domain }, ctx());
      expect(result).toEqual({
        domain,
        icp_number: "",
        company: "",
        license_type: "",
        main_licence: "",
        nature: "",
        status: "not_found",
        source: "provider",
        origin: "provider",
        verified: true,
        page_url: "",
        checked_at: NOW.toISOString(),
      });
      expect(site.seen.length).toBe(before);
    },
  );

  it("sends an IDN in punycode and accepts the record's Unicode domain", async () => {
    const result = await icpLookup.run(icpLookup.inputSchema.parse({ domain: "例子.test" }), ctx());
    expect(lastQuery?.get("domain")).toBe("xn--fsqu00a.test");
    expect(result).toMatchObject({
      domain: "xn--fsqu00a.test",
      icp_number: "沪ICP备12345678号-1",
      company: "上海例子",
    });
  });

  it.each([
    ["HTTP 500", "boom.test", {}],
    ["no answer within its timeout", "slow.test", {}],
    ["a body that is not JSON", "garbage.test", {}],
    ["a refused key (401)", "miit.test", { key: "wrong" }],
    ["no key at all", "miit.test", { key: undefined }],
  ])("falls through to the home page on %s", async (_why, domain, patch) => {
    const started = performance.now();
    const result = await icpLookup.run({ domain }, ctx({ provider: providerAt(patch) }));
    expect(result).toMatchObject({
      icp_number: "京ICP备99999999号-1",
      source: "site_footer",
      verified: false,
      status: "unverified",
    });
    expect(performance.now() - started).toBeLessThan(1400);
  });

  it("says when the provider refused the key", async () => {
    const noPages = ctx({ provider: providerAt({ key: "wrong" }), homePageUrls: () => [] });
    const error = (await icpLookup.run({ domain: "miit.test" }, noPages).catch((e) => e)) as LookupError;
    expect(error.code).toBe("unavailable");
    expect(error.message).toBe(
      "no ICP source could answer for miit.test: provider: provider refused the key (HTTP 401); cache: not configured",
    );
  });

  it("reaches a provider on loopback with the guard on (the operator chose it), not the site", async () => {
    const result = await icpLookup.run({ domain: "miit.test" }, ctx({}, { allowPrivate: false }));
    expect(result).toMatchObject({ source: "provider", status: "found" });
    const error = await icpLookup
      .run({ domain: "boom.test" }, ctx({}, { allowPrivate: false }))
      .catch((e) => e);
    expect(error).toBeInstanceOf(LookupError);
    expect((error as LookupError).code).toBe("unavailable");
    expect((error as LookupError).message).toMatch(
      /^no ICP source could answer for boom\.test: provider: provider answered HTTP 500; home page http:\/\/boom\.test:\d+\/: boom\.test resolves to 127\.0\.0\.1, which is in a loopback range .*; cache: not configured$/,
    );
  });

  it("keeps the provider URL (which may hold a key) out of messages", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/icp?key=s3cret`;
    const error = (await icpLookup
      .run({ domain: "miit.test" }, ctx({ provider: { url }, homePageUrls: () => [] }))
      .catch((e) => e)) as LookupError;
    expect(error.code).toBe("unavailable");
    expect(error.message).toContain("provider: provider:");
    expect(error.message).not.toContain("s3cret");
  });
});

describe("readAnswer: the provider contract", () => {
  it.each([
    [
      "data wrapper",
      { data: { serviceLicence: "京ICP备10046444号-2", unitName: "甲" } },
      "京ICP备10046444号-2",
    ],
    ["result wrapper, bare array", { result: [{ icp_number: "京ICP备10046444号" }] }, "京ICP备10046444号"],
    [
      "siteLicense and companyName",
      { SiteLicense: "浙ICP备12345678号-3", CompanyName: "乙" },
      "浙ICP备12345678号-3",
    ],
    ["only a main licence", { mainLicence: "京ICP备10046444号" }, "京ICP备10046444号"],
    ["full-width digits", { icp_number: "京ICP备１００４６４４４号" }, "京ICP备10046444号"],
  ])("reads a record under %s", (_why, body, number) => {
    const answer = readAnswer(body, "a.test");
    expect(answer.registered && answer.number.icp_number).toBe(number);
  });

  it.each([
    ["status not_found", { status: "not_found" }],
    ["registered false inside data", { data: { registered: false } }],
    ["a bare empty array under result", { result: [] }],
  ])("reads %s as no registration", (_why, body) => {
    expect(readAnswer(body, "a.test")).toEqual({ registered: false });
  });

  it.each([
    ["a JSON array at the top", [], /not a JSON object/],
    ["success: false", { success: false, msg: "captcha failed" }, /failed: captcha failed/],
    ["neither a number nor a flag", { data: null }, /neither an ICP number/],
    ["a malformed number", { icp_number: "京ICP备12号" }, /malformed ICP number/],
    ["a public-security number as the number", { icp_number: "京公网安备11000002000001号" }, /malformed/],
    [
      "a record for another domain",
      { domain: "other.test", icp_number: "京ICP备10046444号" },
      /another domain/,
    ],
  ])("refuses %s", (_why, body, message) => {
    expect(() => readAnswer(body, "a.test")).toThrow(message);
  });
});
