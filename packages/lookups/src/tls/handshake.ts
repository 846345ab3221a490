import tls from "node:tls";
import { describeNetError } from "@vantage/probes/net-error";

/*
 * One TLS handshake to a pinned address, read and closed. Every handshake of the audit goes through here so
 * the failure classification (which decides "not offered" vs "unknown" vs a failed lookup) lives in one place.
 */

/** Where the audit connects: the address the guard checked, and the name sent as SNI. */
export interface Target {
  address: string;
  port: number;
  servername: string;
}

export const tlsVersions = {
  "TLS 1.0": "TLSv1",
  "TLS 1.1": "TLSv1.1",
  "TLS 1.2": "TLSv1.2",
  "TLS 1.3": "TLSv1.3",
} as const satisfies Record<string, tls.SecureVersion>;
export type TlsVersionLabel = keyof typeof tlsVersions;

/**
 * SECLEVEL=0 because OpenSSL 3 otherwise refuses, on the client side, what an auditor must still see: TLS
 * 1.0/1.1 (their SHA-1 signatures), RSA keys under 2048 bits, SHA-1 certificates. Without it those servers
 * would look like they do not offer the version at all.
 */
const LEGACY_CIPHERS = "DEFAULT@SECLEVEL=0";
/** The main handshake keeps Node's own preference order (what a real client negotiates), legacy allowed. */
const MAIN_CIPHERS = `${tls.DEFAULT_CIPHERS}:@SECLEVEL=0`;

export interface Handshake {
  /** "TLS 1.3" style. */
  protocol: string;
  /** IANA name (`standardName`), e.g. TLS_AES_256_GCM_SHA384. */
  cipher: string;
  /** OpenSSL's name, for bit strength when the IANA name is unusual. */
  cipherOpenssl: string;
  ephemeral: { type: string; name: string | null; bits: number } | null;
  /** DER of every certificate the server sent, leaf first (getPeerCertificate's issuer walk). */
  chain: Buffer[];
  /** The stapled OCSP response, null when none was stapled. */
  ocsp: Buffer | null;
}

/**
 * Why a handshake failed. `refused`: the server said no to what was offered (a TLS alert, a reset or close
 * during the handshake): for a version probe, "not offered". `timeout`: nothing in time. `not_tls`: the
 * peer answered, but not with TLS. `unreachable`: nothing listens / no route. `client`: our own OpenSSL
 * refused before the server could say anything (says nothing about the server).
 */
export type HandshakeFailureKind = "refused" | "timeout" | "not_tls" | "unreachable" | "client";

export class HandshakeFailure extends Error {
  constructor(
    readonly kind: HandshakeFailureKind,
    message: string,
  ) {
    super(message);
    this.name = "HandshakeFailure";
  }
}

export interface HandshakeOptions {
  /** One exact version (minVersion = maxVersion), or the widest range when omitted (the main handshake). */
  version?: TlsVersionLabel;
  requestOcsp?: boolean;
  signal: AbortSignal;
}

export function handshake(target: Target, opts: HandshakeOptions): Promise<Handshake> {
  const exact = opts.version ? tlsVersions[opts.version] : undefined;
  return new Promise<Handshake>((resolve, reject) => {
    let ocsp: Buffer | null = null;
    let settled = false;
    const finish = (error: HandshakeFailure | null, value?: Handshake) => {
      if (settled) return;
      settled = true;
      opts.signal.removeEventListener("abort", onAbort);
      socket.destroy();
      if (error) reject(error);
      else if (value) resolve(value);
    };
    const onAbort = () => finish(new HandshakeFailure("timeout", "no handshake in time"));
    // The address is an IP literal: node:tls resolves nothing. SNI carries the name. `requestOCSP` is a
    // TLSSocket option tls.connect passes on, missing from @types/node's ConnectionOptions.
    const options: tls.ConnectionOptions & { requestOCSP: boolean } = {
      host: target.address,
      port: target.port,
      servername: target.servername,
      rejectUnauthorized: false,
      requestOCSP: opts.requestOcsp ?? false,
      ALPNProtocols: ["h2", "http/1.1"],
      // Both bounds, always: maxVersion alone below the default minimum (TLSv1.2) is "no protocols".
      minVersion: exact ?? "TLSv1",
      maxVersion: exact ?? "TLSv1.3",
      ciphers: exact ? LEGACY_CIPHERS : MAIN_CIPHERS,
    };
    let socket: tls.TLSSocket;
    try {
      socket = tls.connect(options);
    } catch (error) {
      // Thrown at once (an option node:tls refuses): a failed handshake like any other, not a raw error.
      return reject(classify(error as Error));
    }
    if (opts.signal.aborted) return onAbort();
    opts.signal.addEventListener("abort", onAbort, { once: true });
    // Node emits null (not an empty buffer) when the server stapled nothing.
    socket.on("OCSPResponse", (response: Buffer | null) => {
      if (response && response.length > 0) ocsp = response;
    });
    socket.once("secureConnect", () => {
      try {
        finish(null, read(socket, ocsp));
      } catch (error) {
        finish(new HandshakeFailure("not_tls", `unreadable handshake: ${(error as Error).message}`));
      }
    });
    // `on`, not `once`: a second error with no listener would be thrown, and end the process.
    socket.on("error", (error) => finish(classify(error)));
    socket.once("close", () => finish(new HandshakeFailure("refused", "closed during the handshake")));
  });
}

/**
 * Key-exchange groups OpenSSL 3.5 (Node 24) reports only as `{type: "TLSGroup", name}`, with no size: the
 * post-quantum hybrids (a classical curve plus ML-KEM) and ML-KEM alone. Each is described by what it
 * adds up to against a classical attacker: the hybrid's curve, or the elliptic-curve size of ML-KEM's
 * security category (512 ≈ AES-128, 768 ≈ AES-192, 1024 ≈ AES-256).
 */
const TLS_GROUPS: Record<string, { type: string; bits: number }> = {
  X25519MLKEM768: { type: "ECDH+ML-KEM", bits: 253 },
  SecP256r1MLKEM768: { type: "ECDH+ML-KEM", bits: 256 },
  SecP384r1MLKEM1024: { type: "ECDH+ML-KEM", bits: 384 },
  X25519Kyber768Draft00: { type: "ECDH+ML-KEM", bits: 253 },
  MLKEM512: { type: "ML-KEM", bits: 256 },
  MLKEM768: { type: "ML-KEM", bits: 384 },
  MLKEM1024: { type: "ML-KEM", bits: 512 },
};

/** The main handshake's ephemeral key as Node reports it, sized where Node leaves the size out. */
export function ephemeralKey(eph: {
  type?: string | undefined;
  name?: string | undefined;
  size?: number | undefined;
}): { type: string; name: string | null; bits: number } | null {
  if (typeof eph.type !== "string") return null;
  const known = eph.type === "TLSGroup" && eph.name ? TLS_GROUPS[eph.name] : undefined;
  if (known) return { ...known, name: eph.name ?? null };
  return { type: eph.type, name: eph.name ?? null, bits: eph.size ?? 0 };
}

function read(socket: tls.TLSSocket, ocsp: Buffer | null): Handshake {
  const cipher = socket.getCipher();
  const eph = socket.getEphemeralKeyInfo();
  const ephemeral = eph && "type" in eph ? ephemeralKey(eph) : null;
  return {
    protocol: versionLabel(socket.getProtocol() ?? ""),
    cipher: cipher.standardName || cipher.name,
    cipherOpenssl: cipher.name,
    ephemeral,
    chain: peerChain(socket.getPeerCertificate(true)),
    ocsp,
  };
}

/** Walks issuerCertificate until it repeats (the root points at itself) or stops. */
function peerChain(leaf: tls.DetailedPeerCertificate): Buffer[] {
  const seen = new Set<string>();
  const chain: Buffer[] = [];
  for (let cert: tls.DetailedPeerCertificate | undefined = leaf; cert?.raw; cert = cert.issuerCertificate) {
    if (seen.has(cert.fingerprint256)) break;
    seen.add(cert.fingerprint256);
    chain.push(cert.raw);
  }
  return chain;
}

/** "TLSv1.3" → "TLS 1.3", "TLSv1" → "TLS 1.0". */
export function versionLabel(openssl: string): string {
  const m = /^TLSv(\d)(?:\.(\d))?$/.exec(openssl);
  return m ? `TLS ${m[1]}.${m[2] ?? "0"}` : openssl;
}

const REFUSED_CODES = new Set(["ECONNRESET", "EPIPE", "ERR_SSL_UNSUPPORTED_PROTOCOL"]);
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL"]);

function classify(error: Error): HandshakeFailure {
  const code = (error as { code?: string }).code ?? "";
  const message =
    describeNetError(error)?.message ?? `${code || error.name}: ${error.message.split("\n")[0] ?? ""}`.trim();
  // "SSL alert number 70" (protocol_version), 40 (handshake_failure)…: the server's answer.
  if (/ALERT/.test(code) || /alert number \d+/.test(error.message) || REFUSED_CODES.has(code)) {
    return new HandshakeFailure("refused", message);
  }
  if (UNREACHABLE_CODES.has(code)) return new HandshakeFailure("unreachable", message);
  if (code === "ETIMEDOUT") return new HandshakeFailure("timeout", message);
  // A plain-text or garbage answer: OpenSSL cannot parse a TLS record out of it.
  if (/WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|RECORD_LAYER|HTTP_REQUEST|UNEXPECTED_MESSAGE/.test(code)) {
    return new HandshakeFailure("not_tls", message);
  }
  if (code.startsWith("ERR_SSL_")) return new HandshakeFailure("client", message);
  return new HandshakeFailure("unreachable", message);
}
