import { describe, expect, it } from "vitest";
import { probeErrorCodes } from "../../../packages/probes/src/probe-results.js";
import { errorCodes } from "../../controller/src/http/errors.js";
import { nodeErrorCodes } from "../../controller/src/modules/probes/index.js";
import { capReasonText, findingText } from "../src/components/ssl-findings.js";
import { apiErrorSentences, errorSentence, runErrorSentences, runErrorText } from "../src/error-messages.js";
import { fieldMessageText } from "../src/field-messages.js";
import { formatDuration, type Locale, setLocale } from "../src/i18n.js";
import { localeTables, placeholder, stillEnglish, untranslated } from "./locale-tables.js";

describe("every dashboard string in every locale", () => {
  const tables = localeTables();

  it("finds the tables (the reader would otherwise pass on nothing)", () => {
    expect(tables.length).toBeGreaterThan(30);
    const names = tables.map((t) => t.name);
    expect(names).toContain("apiErrorSentences");
    expect(names).toContain("runErrorSentences");
    expect(names).toContain("sslFindingTexts");
  });

  it("has each key in en, cn and tw, and no key only in Chinese", () => {
    const missing: string[] = [];
    for (const t of tables) {
      for (const l of ["cn", "tw"] as const) {
        for (const k of t.values.en.keys()) if (!t.values[l].has(k)) missing.push(`${t.where} ${l}.${k}`);
        for (const k of t.values[l].keys()) if (!t.values.en.has(k)) missing.push(`${t.where} en.${k}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("has cn and tw texts that are translated, not the English text again", () => {
    const english: string[] = [];
    for (const t of tables) {
      for (const l of ["cn", "tw"] as const) {
        for (const [k, v] of t.values[l]) {
          if (v === undefined) continue;
          const left = untranslated(v);
          if (stillEnglish(v) || (v === t.values.en.get(k) && left.length > 0))
            english.push(`${t.where} ${l}.${k} = ${JSON.stringify(v)} (${left.join(", ")})`);
        }
      }
    }
    expect(english).toEqual([]);
  });

  it("keeps each text's placeholders in every locale", () => {
    const wrong: string[] = [];
    const names = (s: string | undefined) => [...(s ?? "").matchAll(placeholder)].map((m) => m[0]).sort();
    for (const t of tables) {
      for (const [k, v] of t.values.en) {
        if (v === undefined) continue;
        for (const l of ["cn", "tw"] as const) {
          const o = t.values[l].get(k);
          if (o !== undefined && names(o).join() !== names(v).join()) wrong.push(`${t.where} ${l}.${k}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe("error sentences", () => {
  it("has a sentence in every locale for every error code the API answers with", () => {
    for (const l of ["en", "cn", "tw"] as const) {
      const missing = Object.keys(errorCodes).filter((c) => !Object.hasOwn(apiErrorSentences[l], c));
      expect(missing, l).toEqual([]);
    }
  });

  it("says why every probe and node failure happened, in every locale", () => {
    for (const l of ["en", "cn", "tw"] as const) {
      const missing = [...probeErrorCodes, ...nodeErrorCodes].filter(
        (c) => !Object.hasOwn(runErrorSentences[l], c),
      );
      expect(missing, l).toEqual([]);
    }
  });

  it("shows an API error as a sentence in the current locale, an unknown code by its status", () => {
    const refused = { status: 400, code: "validation_error", message: "body.host: must be …" };
    expect(inLocales(() => errorSentence(refused))).toEqual({
      en: "Some of what you entered is not valid.",
      cn: "输入的内容有误。",
      tw: "輸入的內容有誤。",
    });
    setLocale("cn");
    expect(errorSentence({ status: 418, code: "teapot", message: "no" })).toBe("请求失败（HTTP 418）。");
    expect(errorSentence(new Error("boom"))).toBe("boom");
  });

  it("translates the API's field messages it knows and keeps the others as written", () => {
    setLocale("cn");
    expect(fieldMessageText("unknown field")).toBe("服务无法识别此字段");
    expect(fieldMessageText("Too big: expected string to have <=100 characters")).toBe("最多 100 个字符");
    expect(fieldMessageText("Invalid input: expected string, received undefined")).toBe("必填");
    expect(fieldMessageText("must be a host name or an IP address")).toBe("须为主机名或 IP 地址");
    expect(fieldMessageText("must be the bot's secret")).toBe("must be the bot's secret");
    expect(fieldMessageText("another page has this slug")).toBe("其他页面已使用此 slug");
    expect(fieldMessageText("no monitor mon_x1")).toBe("没有监控 mon_x1");
    setLocale("en");
    expect(fieldMessageText("must be after starts_at")).toBe("must be after the start");
  });

  it("says a failed HTTP check with its status code in words", () => {
    expect(inLocales(() => runErrorText("unexpected_status", 500))).toEqual({
      en: "HTTP 500 Internal Server Error",
      cn: "HTTP 500 Internal Server Error",
      tw: "HTTP 500 Internal Server Error",
    });
    expect(inLocales(() => runErrorText("unexpected_status"))).toEqual({
      en: "unexpected HTTP status",
      cn: "HTTP 状态码不符合预期",
      tw: "HTTP 狀態碼不符合預期",
    });
    setLocale("tw");
    expect(runErrorText("connection_refused")).toBe("連線被拒絕");
    expect(runErrorText("a_newer_code")).toBe("a_newer_code");
  });
});

describe("units, durations and the SSL audit's words", () => {
  it("gives durations in their two largest units", () => {
    expect(inLocales(() => formatDuration(27_505))).toEqual({
      en: "7 h 38 min",
      cn: "7 小时 38 分钟",
      tw: "7 小時 38 分鐘",
    });
    setLocale("en");
    expect([0, 45, 60, 312, 3600, 90_061].map(formatDuration)).toEqual([
      "0 s",
      "45 s",
      "1 min",
      "5 min 12 s",
      "1 h",
      "1 d 1 h",
    ]);
  });

  it("translates findings with their figures, and grade-cap reasons", () => {
    setLocale("cn");
    expect(findingText({ code: "cert_expiring_soon", message: "the certificate expires in 5 days" })).toBe(
      "证书将在 5 天后过期。",
    );
    expect(findingText({ code: "weak_key", message: "the RSA key has 1024 bits" })).toBe(
      "RSA 密钥只有 1,024 位。",
    );
    expect(
      findingText({
        code: "hsts_short_max_age",
        message: "HSTS max-age is 86400 s, under 180 days (15552000 s)",
      }),
    ).toBe("HSTS max-age 为 1 天，不足 180 天。");
    expect(findingText({ code: "new_code", message: "something new" })).toBe("something new");
    expect(capReasonText("TLS 1.0 is offered")).toBe("支持 TLS 1.0");
    expect(capReasonText("key exchange scores 80 (weak key)")).toBe("密钥交换得分 80（密钥较弱）");
    expect(
      capReasonText(
        "the certificate is self-signed; the chain leads to a root that is not in the trust store",
      ),
    ).toBe("证书为自签名证书; 证书链指向不受信任的根证书");
  });
});

/** What `f` says in each locale. */
function inLocales(f: () => string) {
  return Object.fromEntries(
    (["en", "cn", "tw"] as Locale[]).map((l) => {
      setLocale(l);
      return [l, f()];
    }),
  );
}
