import { describe, expect, it } from "vitest";
import { type GradeInput, gradeServer, letterFor } from "./grade.js";
import { ephemeralKey } from "./handshake.js";

/** A modern server: TLS 1.2 + 1.3, P-256 key, X25519, AES-256-GCM and AES-128-GCM, HSTS for a year. */
const base: GradeInput = {
  offered: ["TLS 1.2", "TLS 1.3"],
  refused: ["TLS 1.0", "TLS 1.1"],
  certKey: { algorithm: "EC", bits: 256 },
  ephemeral: { type: "ECDH", bits: 253 },
  suites: ["TLS_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"],
  trustProblems: [],
  nameMismatch: false,
  weakSignatureHash: null,
  warningCount: 0,
  hstsMaxAge: 31_536_000,
};
const grade = (over: Partial<GradeInput>) => gradeServer({ ...base, ...over });

describe("grade: scores", () => {
  it("a modern server: protocol 100, key exchange 100, cipher (100+80)/2 = 90, total 96, A+", () => {
    expect(grade({})).toEqual({
      grade: "A+",
      grade_if_trusted: "A+",
      protocol_score: 100,
      key_exchange_score: 100,
      cipher_strength_score: 90,
      score: 96,
      caps: [],
    });
  });

  it.each([
    [80, "A"],
    [79.9, "B"],
    [65, "B"],
    [64.9, "C"],
    [50, "C"],
    [35, "D"],
    [34.9, "E"],
    [20, "E"],
    [19.9, "F"],
  ] as const)("score %s → %s", (score, letter) => {
    expect(letterFor(score)).toBe(letter);
  });

  it.each([
    ["RSA 4096", { algorithm: "RSA", bits: 4096 }, 100],
    ["RSA 2048", { algorithm: "RSA", bits: 2048 }, 90],
    ["RSA 1024", { algorithm: "RSA", bits: 1024 }, 80],
    ["RSA 768", { algorithm: "RSA", bits: 768 }, 40],
    ["RSA 384", { algorithm: "RSA", bits: 384 }, 20],
    ["EC 256", { algorithm: "EC", bits: 256 }, 100],
    ["EC 192", { algorithm: "EC", bits: 192 }, 90],
    ["Ed25519", { algorithm: "Ed25519", bits: 256 }, 100],
  ])("key exchange: the certificate key %s scores %s", (_, certKey, score) => {
    expect(grade({ certKey }).key_exchange_score).toBe(score);
  });

  it("key exchange is the lower of the certificate key and the ephemeral key (DH 1024 → 80)", () => {
    expect(grade({ ephemeral: { type: "DH", bits: 1024 } }).key_exchange_score).toBe(80);
  });

  it("protocol score is (best + worst)/2: TLS 1.0 + 1.2 → 95", () => {
    expect(grade({ offered: ["TLS 1.0", "TLS 1.2"], refused: [] }).protocol_score).toBe(95);
  });

  it("a category scoring 0 (a NULL suite) makes the total 0, and the suite caps at F", () => {
    const g = grade({ suites: ["TLS_RSA_WITH_NULL_SHA256"] });
    expect(g.score).toBe(0);
    expect(g.grade).toBe("F");
  });
});

describe("grade: caps (the lowest wins)", () => {
  it.each([
    ["key exchange ≤ 40 → F", { certKey: { algorithm: "RSA", bits: 768 } }, "F"],
    ["key exchange ≤ 80 → B", { certKey: { algorithm: "RSA", bits: 1024 } }, "B"],
    [
      "a suite under 112 bits → F",
      { suites: ["TLS_RSA_EXPORT_WITH_RC4_40_MD5", "TLS_AES_256_GCM_SHA384"] },
      "F",
    ],
    ["MD5 signature → F", { weakSignatureHash: "MD5" as const }, "F"],
    ["TLS 1.2 not offered → C", { offered: ["TLS 1.3" as const], refused: ["TLS 1.2" as const] }, "C"],
    ["TLS 1.0 offered → B", { offered: ["TLS 1.0" as const, "TLS 1.2" as const], refused: [] }, "B"],
    ["TLS 1.1 offered → B", { offered: ["TLS 1.1" as const, "TLS 1.2" as const], refused: [] }, "B"],
    ["no forward secrecy → B", { suites: ["TLS_RSA_WITH_AES_256_GCM_SHA384"], ephemeral: null }, "B"],
    ["no AEAD → B", { suites: ["TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384"] }, "B"],
  ] as [string, Partial<GradeInput>, string][])("%s", (_, over, letter) => {
    const g = grade(over);
    expect(g.grade).toBe(letter);
    expect(g.grade_if_trusted).toBe(letter);
    expect(g.caps[0]?.grade).toBe(letter);
  });

  it("with several caps the lowest applies, and all are listed lowest first", () => {
    const g = grade({
      offered: ["TLS 1.0"],
      refused: ["TLS 1.2", "TLS 1.3"],
      certKey: { algorithm: "RSA", bits: 768 },
    });
    expect(g.grade).toBe("F");
    expect(g.caps.map((c) => c.grade)).toEqual(["F", "C", "B"]);
  });

  it("a TLS version whose test timed out (neither offered nor refused) does not cap", () => {
    expect(grade({ offered: ["TLS 1.3"], refused: [] }).grade).toBe("A+");
  });
});

describe("grade: T and M override everything", () => {
  it.each(["the certificate expired", "the certificate is self-signed", "revoked", "SHA-1"])(
    "a trust problem (%s) → T, grade_if_trusted keeps the letter",
    (problem) => {
      const g = grade({ trustProblems: [problem] });
      expect(g.grade).toBe("T");
      expect(g.grade_if_trusted).toBe("A+");
      expect(g.caps[0]).toEqual({ grade: "T", reason: problem });
    },
  );

  it("T overrides an F", () => {
    const g = grade({ trustProblems: ["untrusted"], weakSignatureHash: "MD5" });
    expect([g.grade, g.grade_if_trusted]).toEqual(["T", "F"]);
  });

  it("a name mismatch → M, over T too", () => {
    expect(grade({ nameMismatch: true }).grade).toBe("M");
    const both = grade({
      nameMismatch: true,
      trustProblems: ["expired"],
      offered: ["TLS 1.0", "TLS 1.2"],
      refused: [],
    });
    expect([both.grade, both.grade_if_trusted]).toEqual(["M", "B"]);
  });
});

describe("grade: A+ and A−", () => {
  it.each([
    ["A with no warnings and HSTS ≥ 180 days → A+", { hstsMaxAge: 15_552_000 }, "A+"],
    ["HSTS one second short → A", { hstsMaxAge: 15_551_999 }, "A"],
    ["no HSTS → A", { hstsMaxAge: null }, "A"],
    ["A with a warning → A− (HSTS or not)", { warningCount: 1 }, "A-"],
    [
      "a capped B does not become B+ or B−",
      { warningCount: 1, offered: ["TLS 1.1" as const, "TLS 1.2" as const] },
      "B",
    ],
  ] as [string, Partial<GradeInput>, string][])("%s", (_, over, letter) => {
    expect(grade(over).grade).toBe(letter);
  });
});

describe("grade: post-quantum key exchange (OpenSSL 3.5, Node 24)", () => {
  it("sizes the hybrid and ML-KEM groups Node reports as TLSGroup with no size", () => {
    expect(ephemeralKey({ type: "TLSGroup", name: "X25519MLKEM768" })).toEqual({
      type: "ECDH+ML-KEM",
      name: "X25519MLKEM768",
      bits: 253,
    });
    expect(ephemeralKey({ type: "TLSGroup", name: "SecP384r1MLKEM1024" })?.bits).toBe(384);
    expect(ephemeralKey({ type: "TLSGroup", name: "MLKEM768" })).toMatchObject({ type: "ML-KEM", bits: 384 });
    expect(ephemeralKey({ type: "ECDH", name: "X25519", size: 253 })).toEqual({
      type: "ECDH",
      name: "X25519",
      bits: 253,
    });
  });

  it("a hybrid scores as its curve; a group of unknown size is not held against the server", () => {
    const hybrid = ephemeralKey({ type: "TLSGroup", name: "X25519MLKEM768" });
    expect(grade({ ephemeral: hybrid })).toMatchObject({ grade: "A+", key_exchange_score: 100 });
    const unknown = ephemeralKey({ type: "TLSGroup", name: "SomeFutureGroup" });
    expect(unknown).toEqual({ type: "TLSGroup", name: "SomeFutureGroup", bits: 0 });
    expect(grade({ ephemeral: unknown })).toMatchObject({ grade: "A+", key_exchange_score: 100 });
  });
});
