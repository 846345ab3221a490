import { resolveTarget } from "../net/resolve-target.js";
import { type Lookup, type LookupContext, LookupError } from "../types.js";
import { type CertInfo, nameMismatch, readCertificate, weakSignatureHash } from "./certificate.js";
import { gradeServer } from "./grade.js";
import { type Handshake, HandshakeFailure, handshake, type Target } from "./handshake.js";
import { readHsts } from "./hsts.js";
import { readOcspStaple } from "./ocsp.js";
import { type SslResult, sslInputSchema, type TlsVersionName } from "./schema.js";
import { trustAnchors, verifyChain } from "./trust.js";
import { probeVersions } from "./versions.js";
import { collectWarnings, TRUST_CODES } from "./warnings.js";

/** The whole audit (resolve, five handshakes, the HSTS request) when the context does not say otherwise. */
const DEFAULT_TIMEOUT_MS = 10_000;
/** Version probes stop a little before the deadline, so a silent one leaves time to answer with the rest. */
const PROBE_SHARE = 0.8;
const HSTS_TIMEOUT_MS = 3000;
const DAY = 86_400_000;

/**
 * The SSL/TLS audit of `domain:port`: certificate chain, trust, protocols, OCSP staple, embedded SCTs,
 * warnings and an SSL Labs style grade (docs/tls-grading.md). The name is resolved once through the target
 * guard; every handshake goes to that address with the domain as SNI.
 */
export const sslLookup: Lookup<"ssl"> = {
  kind: "ssl",
  inputSchema: sslInputSchema,
  run: async (input, ctx) => {
    const ms = ctx.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const done = new AbortController();
    const timer = AbortSignal.timeout(ms);
    const signal = AbortSignal.any([done.signal, timer, ...(ctx.signal ? [ctx.signal] : [])]);
    const label = `${input.domain}:${input.port}`;
    try {
      const resolved = await resolve(input.domain, ctx, signal);
      const target: Target = { address: resolved.address, port: input.port, servername: input.domain };
      const probes = AbortSignal.any([signal, AbortSignal.timeout(ms * PROBE_SHARE)]);
      const [main, versions, hsts] = await Promise.all([
        handshake(target, { requestOcsp: true, signal }).catch((e: unknown) => {
          throw mainFailure(e, label, ms, timer, ctx.signal);
        }),
        probeVersions(target, probes),
        readHsts(
          input.domain,
          input.port,
          resolved,
          { allowPrivate: ctx.allowPrivate, signal: probes },
          HSTS_TIMEOUT_MS,
        ),
      ]);
      return await assemble(input, resolved.address, ctx, main, versions, hsts);
    } finally {
      done.abort();
    }
  },
};

function resolve(domain: string, ctx: LookupContext, signal: AbortSignal) {
  return resolveTarget(domain, ctx, signal, {
    subject: domain,
    inputPath: "domain",
    timeout: () => new LookupError("upstream_timeout", `${domain} did not resolve in time`),
  });
}

function mainFailure(error: unknown, label: string, ms: number, timer: AbortSignal, caller?: AbortSignal) {
  if (!(error instanceof HandshakeFailure)) return error;
  switch (error.kind) {
    case "timeout":
      return caller?.aborted && !timer.aborted
        ? new LookupError("upstream_timeout", "the audit was stopped before the handshake completed")
        : new LookupError("upstream_timeout", `no TLS handshake with ${label} within ${ms} ms`);
    case "not_tls":
      return new LookupError("upstream_error", `${label} does not speak TLS (${error.message})`);
    case "unreachable":
      return new LookupError("upstream_error", `cannot connect to ${label} (${error.message})`);
    default:
      return new LookupError("upstream_error", `${label} refused the TLS handshake (${error.message})`);
  }
}

async function assemble(
  input: { domain: string; port: number },
  address: string,
  ctx: LookupContext,
  main: Handshake,
  versions: SslResult["tls_versions"],
  hsts: SslResult["hsts"],
): Promise<SslResult> {
  let chain: CertInfo[];
  try {
    chain = main.chain.map(readCertificate);
  } catch (error) {
    throw new LookupError(
      "upstream_error",
      `unreadable certificate from ${input.domain}: ${(error as Error).message}`,
    );
  }
  const leaf = chain[0];
  if (!leaf) throw new LookupError("upstream_error", `${input.domain} sent no certificate`);
  const now = ctx.now?.() ?? new Date();
  const trust = verifyChain(chain, trustAnchors(ctx.tls?.extraCa));
  const mismatch = nameMismatch(leaf, input.domain);
  const ocsp = await readOcspStaple(main.ocsp, leaf, trust.path.slice(1), now);
  const offered = versions.filter((v) => v.supported).map((v) => v.version);
  // Every version probe unknown (time ran out) while the main handshake worked: that one version is known.
  if (offered.length === 0 && isVersion(main.protocol)) offered.push(main.protocol);
  const suites = [...new Set([main.cipher, ...versions.flatMap((v) => v.cipher_suite ?? [])])];
  const certKey = { algorithm: leaf.item.public_key_algorithm, bits: leaf.item.public_key_bits };
  const warnings = collectWarnings({
    now,
    domain: input.domain,
    chain,
    trust,
    nameMismatch: mismatch,
    versions,
    suites,
    certKey,
    ocsp,
    hsts,
  });
  const trustProblems = warnings
    .filter((w) => TRUST_CODES.has(w.code) && w.code !== "name_mismatch")
    .filter((w) => w.code !== "weak_signature" || /sha-?1/i.test(w.message))
    .map((w) => w.message);
  const weakHashes = chain
    .filter((c, i) => i === 0 || !c.selfIssued)
    .map((c) => weakSignatureHash(c.item.signature_algorithm));
  const grade = gradeServer({
    offered,
    refused: versions.filter((v) => v.status === "not_offered").map((v) => v.version),
    certKey,
    ephemeral: main.ephemeral,
    suites,
    trustProblems,
    nameMismatch: mismatch !== null,
    weakSignatureHash:
      weakHashes.find((h) => h === "MD2" || h === "MD5") ?? weakHashes.find((h) => h) ?? null,
    warningCount: warnings.filter((w) => w.severity !== "info" && !TRUST_CODES.has(w.code)).length,
    hstsMaxAge: hsts.max_age,
  });
  const timeOk = new Date(leaf.item.not_before) <= now && new Date(leaf.item.not_after) >= now;
  const { grade: letter, grade_if_trusted, ...details } = grade;
  return {
    domain: input.domain,
    port: input.port,
    address,
    issuer: leaf.item.issuer,
    subject: leaf.item.subject,
    not_before: leaf.item.not_before,
    not_after: leaf.item.not_after,
    san_domains: leaf.sanDomains,
    protocol: main.protocol,
    days_until_expiry: Math.floor((new Date(leaf.item.not_after).getTime() - now.getTime()) / DAY),
    valid: trust.trusted && mismatch === null && timeOk && ocsp.status !== "revoked",
    grade: letter,
    grade_if_trusted,
    grade_details: details,
    cipher_suite: main.cipher,
    key_exchange: main.ephemeral,
    ocsp_status: ocsp.status,
    sct_count: leaf.sctCount,
    tls_versions: versions,
    hsts,
    warnings,
    chain: chain.map((c) => c.item),
  };
}

function isVersion(protocol: string): protocol is TlsVersionName {
  return /^TLS 1\.[0-3]$/.test(protocol);
}
