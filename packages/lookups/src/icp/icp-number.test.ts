import { describe, expect, it } from "vitest";
import { decodePage } from "./decode-page.js";
import { parseIcpNumbers, validateIcpNumber } from "./icp-number.js";
import { encodeGbk } from "./testing/servers.js";

describe("validateIcpNumber", () => {
  it.each([
    ["京ICP备10046444号-9", "京ICP备10046444号-9", "京ICP备10046444号", "non_commercial_filing"],
    ["京ICP备10046444号", "京ICP备10046444号", "京ICP备10046444号", "non_commercial_filing"],
    ["京ICP证030173号", "京ICP证030173号", "京ICP证030173号", "commercial_license"],
    ["粤ICP备2023012345号", "粤ICP备2023012345号", "粤ICP备2023012345号", "non_commercial_filing"],
    ["沪ICP备12345678号-1234", "沪ICP备12345678号-1234", "沪ICP备12345678号", "non_commercial_filing"],
    ["蜀ICP备12345678号", "蜀ICP备12345678号", "蜀ICP备12345678号", "non_commercial_filing"],
    // Full-width letters, digits and hyphen, spaces, lower-case icp: shown that way, the same number.
    ["京ＩＣＰ备１００４６４４４号－９", "京ICP备10046444号-9", "京ICP备10046444号", "non_commercial_filing"],
    [" 京 ICP 备 10046444 号 ", "京ICP备10046444号", "京ICP备10046444号", "non_commercial_filing"],
    ["浙icp备12345678号", "浙ICP备12345678号", "浙ICP备12345678号", "non_commercial_filing"],
  ])("%s is well-formed", (raw, number, main, type) => {
    expect(validateIcpNumber(raw)).toEqual({
      icp_number: number,
      main_licence: main,
      license_type: type,
      province: number[0],
    });
  });

  it.each([
    ["too few digits", "京ICP备123号"],
    ["too many digits", "京ICP备1234567890123号"],
    ["no 号", "京ICP备10046444"],
    ["a suffix of five digits", "京ICP备10046444号-12345"],
    ["an empty suffix", "京ICP备10046444号-"],
    ["no province", "ICP备10046444号"],
    ["Hong Kong is no province of the ICP system", "港ICP备10046444号"],
    ["the full province name", "北京ICP备10046444号"],
    ["neither 备 nor 证", "京ICP号10046444号"],
    ["a public-security (MPS) filing", "京公网安备11000002000001号"],
    ["a value-added telecom licence", "京B2-20090059"],
    ["letters among the digits", "京ICP备1004A444号"],
    ["trailing text", "京ICP备10046444号 版权所有"],
    ["empty", ""],
  ])("refuses %s", (_why, raw) => {
    expect(validateIcpNumber(raw)).toBeNull();
  });
});

describe("parseIcpNumbers", () => {
  const numbers = (html: string) => parseIcpNumbers(html).map((n) => n.icp_number);

  it.each([
    [
      "a footer link to beian.miit.gov.cn",
      '<footer><a href="https://beian.miit.gov.cn/" target="_blank">京ICP备10046444号-9</a></footer>',
      ["京ICP备10046444号-9"],
    ],
    [
      "a 证 licence and a 备 filing, in page order",
      "<p>京ICP证030173号</p><p><a href='http://beian.miit.gov.cn'>京ICP备10046444号</a></p>",
      ["京ICP证030173号", "京ICP备10046444号"],
    ],
    [
      "the label ICP备案号： before the number",
      "<span>ICP备案号：粤ICP备2023012345号-1</span>",
      ["粤ICP备2023012345号-1"],
    ],
    ["full-width digits and letters", "<p>京ＩＣＰ备１００４６４４４号－９</p>", ["京ICP备10046444号-9"]],
    ["spaces and non-breaking spaces", "<p>京ICP备&nbsp;10046444 号 - 9</p>", ["京ICP备10046444号-9"]],
    ["a number split by tags", "<p>京ICP备<span>10046444</span>号</p>", ["京ICP备10046444号"]],
    ["numeric entities", "<p>&#20140;ICP&#x5907;10046444&#21495;</p>", ["京ICP备10046444号"]],
    ["an en dash before the suffix", "<p>京ICP备10046444号–2</p>", ["京ICP备10046444号-2"]],
    [
      "a number repeated: listed once",
      "<p>京ICP备10046444号</p><p>京ICP备10046444号</p>",
      ["京ICP备10046444号"],
    ],
    [
      "a number in inline script (JS-rendered footers)",
      '<script>f("京ICP备10046444号")</script>',
      ["京ICP备10046444号"],
    ],
  ])("finds %s", (_why, html, expected) => {
    expect(numbers(html)).toEqual(expected);
  });

  it.each([
    [
      "a public-security filing next to nothing else",
      '<a href="http://www.beian.gov.cn/portal/registerSystemInfo?recordcode=11000002000001">京公网安备 11000002000001号</a>',
    ],
    ["a value-added telecom licence", "<p>增值电信业务经营许可证：京B2-20090059</p>"],
    ["a number too short", "<p>京ICP备123号</p>"],
    ["a province outside the system", "<p>港ICP备10046444号</p>"],
    ["a number in an HTML comment (an old footer left in)", "<!-- 京ICP备10046444号 -->"],
    ["no number at all", "<html><body><h1>Hello</h1></body></html>"],
  ])("ignores %s", (_why, html) => {
    expect(numbers(html)).toEqual([]);
  });

  it("takes the ICP number beside a public-security number, never the latter", () => {
    const html =
      '<a href="https://beian.miit.gov.cn/">沪ICP备12345678号-3</a> <img src="ga.png">沪公网安备 31010402000001号';
    expect(parseIcpNumbers(html)).toEqual([
      {
        icp_number: "沪ICP备12345678号-3",
        main_licence: "沪ICP备12345678号",
        license_type: "non_commercial_filing",
        province: "沪",
      },
    ]);
  });

  it("does not take digits running past a four-digit suffix as the suffix", () => {
    expect(numbers("<p>京ICP备10046444号-12345</p>")).toEqual(["京ICP备10046444号"]);
  });
});

describe("decodePage", () => {
  const footer = "<p>ICP：粤ICP备2023012345号</p>";

  it("has a GBK fixture table that Node decodes back", () => {
    expect(new TextDecoder("gbk").decode(encodeGbk(footer))).toBe(footer);
  });

  it.each([
    ["the Content-Type charset", "text/html; charset=GBK", encodeGbk(footer)],
    ["a gb2312 label", "text/html; charset=gb2312", encodeGbk(footer)],
    ["a <meta charset>", "text/html", encodeGbk(`<meta charset="gbk">${footer}`)],
    [
      "a <meta http-equiv>",
      undefined,
      encodeGbk(`<meta http-equiv="Content-Type" content="text/html; charset=gb2312">${footer}`),
    ],
    ["nothing declared, bytes not UTF-8: GB18030", "text/html", encodeGbk(footer)],
    ["nothing declared, UTF-8 bytes", "text/html", Buffer.from(footer, "utf8")],
    ["a UTF-8 BOM over a wrong header", "text/html; charset=gbk", Buffer.from(`\ufeff${footer}`, "utf8")],
    ["an unknown charset label: sniffed", "text/html; charset=x-nonsense", Buffer.from(footer, "utf8")],
  ])("decodes by %s", (_why, contentType, body) => {
    expect(parseIcpNumbers(decodePage(body, contentType)).map((n) => n.icp_number)).toEqual([
      "粤ICP备2023012345号",
    ]);
  });

  it("keeps a UTF-8 page cut inside a character (the size cap) as UTF-8", () => {
    const body = Buffer.from(`${footer}粤`, "utf8");
    const cut = body.subarray(0, body.length - 1);
    expect(decodePage(cut, "text/html")).toContain("粤ICP备2023012345号");
  });
});
