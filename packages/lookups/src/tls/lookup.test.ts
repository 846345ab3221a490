import { X509Certificate } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runLookup } from "../registry.js";
import { failure } from "../testing/failure.js";
import type { LookupContext } from "../types.js";
import { readCertificate } from "./certificate.js";
import { sslLookup } from "./lookup.js";
import { readOcspStaple } from "./ocsp.js";
import { sslResultSchema } from "./schema.js";
import { type FixtureName, type Fixtures, startFixtures } from "./testing/fixtures.js";
import { buildOcspResponse } from "./testing/ocsp-response.js";

/**
 * What two Node peers agree on by default: X25519, or from OpenSSL 3.5 (Node 24) the X25519 + ML-KEM-768
 * hybrid, which OpenSSL reports without a size (sized by handshake.ts).
 */
const [major, minor] = process.versions.openssl.split(".").map(Number) as [number, number];
const defaultKeyExchange =
  major > 3 || (major === 3 && minor >= 5)
    ? { type: "ECDH+ML-KEM", name: "X25519MLKEM768", bits: 253 }
    : { type: "ECDH", name: "X25519", bits: 253 };

// Loopback servers only, under made-up names that ctx.lookup maps to 127.0.0.1.
let f: Fixtures;
beforeAll(async () => {
  f = await startFixtures();
});
afterAll(async () => {
  await f.close();
});

const ctx = (extra: Partial<LookupContext> = {}): LookupContext => ({
  allowPrivate: true,
  lookup: f.lookup,
  tls: { extraCa: [f.caPem] },
  timeoutMs: 5000,
  ...extra,
});
const audit = (name: FixtureName, extra: Partial<LookupContext> = {}) =>
  sslLookup.run({ domain: f.servers[name].host, port: f.servers[name].port }, ctx(extra));
const codes = (r: { warnings: { code: string }[] }) => r.warnings.map((w) => w.code);

describe("ssl lookup: a valid chain from the test CA", () => {
  it("reads the handshake, the chain and the embedded SCTs, and grades A", async () => {
    const r = await audit("valid");
    expect(sslResultSchema.parse(r)).toEqual(r);
    const leaf = f.servers.valid.leaf.cert;
    expect(r).toMatchObject({
      domain: "valid.test",
      address: "127.0.0.1",
      subject: "CN=valid.test",
      issuer: "CN=Vantage Test Intermediate, O=Vantage Tests",
      san_domains: ["valid.test", "www.valid.test"],
      protocol: "TLS 1.3",
      cipher_suite: "TLS_AES_256_GCM_SHA384",
      key_exchange: defaultKeyExchange,
      valid: true,
      grade: "A",
      grade_if_trusted: "A",
      ocsp_status: "no_ocsp_url",
      sct_count: 2,
      hsts: { header: null, max_age: null, include_subdomains: false, preload: false },
      days_until_expiry: 89,
    });
    expect(r.tls_versions).toEqual([
      { version: "TLS 1.0", supported: false, status: "not_offered", cipher_suite: null },
      { version: "TLS 1.1", supported: false, status: "not_offered", cipher_suite: null },
      {
        version: "TLS 1.2",
        supported: true,
        status: "offered",
        cipher_suite: expect.stringMatching(/^TLS_ECDHE_ECDSA_WITH_AES_/),
      },
      { version: "TLS 1.3", supported: true, status: "offered", cipher_suite: "TLS_AES_256_GCM_SHA384" },
    ]);
    expect(codes(r)).toEqual(["no_hsts"]);
    expect(r.chain).toHaveLength(2);
    expect(r.chain[0]).toEqual({
      subject: "CN=valid.test",
      issuer: "CN=Vantage Test Intermediate, O=Vantage Tests",
      not_before: leaf.notBefore.toISOString(),
      not_after: leaf.notAfter.toISOString(),
      signature_algorithm: "ecdsa-with-SHA256",
      public_key_algorithm: "EC",
      public_key_bits: 256,
      serial_number: leaf.serialNumber.toUpperCase().replace(/^(?:00)+/, ""),
      fingerprint_sha256: expect.stringMatching(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/),
      is_ca: false,
    });
    expect(r.chain[1]).toMatchObject({
      subject: "CN=Vantage Test Intermediate, O=Vantage Tests",
      is_ca: true,
    });
  });

  it("counts days from ctx.now, and warns within 30 days of expiry (A−)", async () => {
    const notAfter = f.servers.valid.leaf.cert.notAfter.getTime();
    const r = await audit("valid", { now: () => new Date(notAfter - 10.5 * 86_400_000) });
    expect(r.days_until_expiry).toBe(10);
    expect(r.warnings).toContainEqual({
      code: "cert_expiring_soon",
      severity: "warning",
      message: "the certificate expires in 10 days",
    });
    expect(r.grade).toBe("A-");
  });

  it("is not trusted without the test CA", async () => {
    const r = await audit("valid", { tls: {} });
    expect([r.valid, r.grade, r.grade_if_trusted]).toEqual([false, "T", "A"]);
    expect(codes(r)).toContain("untrusted_root");
  });

  it("A+ with HSTS max-age ≥ 180 days read from HEAD /", async () => {
    const r = await audit("hsts");
    expect(r.hsts).toEqual({
      header: "max-age=31536000; includeSubDomains",
      max_age: 31_536_000,
      include_subdomains: true,
      preload: false,
    });
    expect(r.grade).toBe("A+");
    expect(r.warnings).toEqual([]);
  });
});

describe("ssl lookup: problems", () => {
  it.each([
    ["expired", "cert_expired", "T", false],
    ["self-signed", "self_signed", "T", false],
    ["incomplete", "incomplete_chain", "T", false],
    ["wrong-name", "name_mismatch", "M", false],
    ["sha1", "weak_signature", "T", true],
  ] as const)("%s → %s, grade %s (A if trusted)", async (name, code, grade, valid) => {
    const r = await audit(name);
    expect(codes(r)).toContain(code);
    expect(r.warnings.find((w) => w.code === code)?.severity).toBe("critical");
    expect([r.grade, r.grade_if_trusted, r.valid]).toEqual([grade, "A", valid]);
  });

  it("a 1024-bit RSA key: weak_key, key exchange 80 → B", async () => {
    const r = await audit("weak-key");
    expect(r.chain[0]).toMatchObject({ public_key_algorithm: "RSA", public_key_bits: 1024 });
    expect(codes(r)).toContain("weak_key");
    expect(r.grade_details.key_exchange_score).toBe(80);
    expect(r.grade).toBe("B");
  });

  it("a TLS 1.0-only server: found through SECLEVEL=0, capped at C (no TLS 1.2)", async () => {
    const r = await audit("tls10");
    expect(r.protocol).toBe("TLS 1.0");
    expect(r.tls_versions.map((v) => [v.version, v.status])).toEqual([
      ["TLS 1.0", "offered"],
      ["TLS 1.1", "not_offered"],
      ["TLS 1.2", "not_offered"],
      ["TLS 1.3", "not_offered"],
    ]);
    expect(codes(r)).toEqual(expect.arrayContaining(["tls1_0_enabled", "no_tls1_2", "no_tls1_3", "no_aead"]));
    expect(r.grade).toBe("C");
  });

  it.each([
    ["ocsp-good", "good", "A", true],
    ["ocsp-revoked", "revoked", "T", false],
  ] as const)("a stapled, CA-signed OCSP response (%s) → %s", async (name, status, grade, valid) => {
    const r = await audit(name);
    expect([r.ocsp_status, r.grade, r.valid]).toEqual([status, grade, valid]);
  });

  it("checks a staple against the issuer the server sent, trusted or not", async () => {
    expect((await audit("ocsp-good", { tls: {} })).ocsp_status).toBe("good");
  });

  it("a staple that does not parse, or one without its issuer → error", async () => {
    const leaf = readCertificate(f.servers["ocsp-good"].leaf.der);
    const issuer = new X509Certificate(f.intermediate.der);
    expect(await readOcspStaple(Buffer.from("garbage"), leaf, [issuer], new Date())).toMatchObject({
      status: "error",
    });
    const staple = await buildOcspResponse(f.servers["ocsp-good"].leaf, f.intermediate, "good");
    expect(await readOcspStaple(staple, leaf, [], new Date())).toMatchObject({ status: "error" });
    expect(await readOcspStaple(staple, leaf, [issuer], new Date())).toEqual({
      status: "good",
      detail: null,
    });
    const other = readCertificate(f.servers["ocsp-revoked"].leaf.der);
    expect(await readOcspStaple(staple, other, [issuer], new Date())).toMatchObject({ status: "error" });
  });
});

describe("ssl lookup: failures", () => {
  it.each([
    ["https://valid.test", "not a URL"],
    ["valid.test/path", "without a path"],
    ["valid.test:443", "give the port as `port`"],
    ["not a name", "labels"],
  ])("refuses %s with invalid_input", async (domain, message) => {
    const error = await failure(runLookup("ssl", { domain }, ctx()));
    expect(error.code).toBe("invalid_input");
    expect(error.issues[0]?.path).toBe("domain");
    expect(error.issues[0]?.message).toContain(message);
  });

  it("refuses a private address unless allowPrivate, before connecting", async () => {
    const error = await failure(audit("valid", { allowPrivate: false }));
    expect(error.code).toBe("target_not_allowed");
    expect(error.message).toMatch(/valid\.test resolves to 127\.0\.0\.1/);
  });

  it.each([
    ["plainPort", "upstream_error", /does not speak TLS/],
    ["closedPort", "upstream_error", /cannot connect/],
    ["silentPort", "upstream_timeout", /within 300 ms/],
  ] as const)("%s → %s", async (which, code, message) => {
    const error = await failure(
      sslLookup.run({ domain: "valid.test", port: f[which] }, ctx({ timeoutMs: 300 })),
    );
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });
});
