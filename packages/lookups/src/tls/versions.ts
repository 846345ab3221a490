import { HandshakeFailure, handshake, type Target } from "./handshake.js";
import { type TlsVersionResult, tlsVersionNames } from "./schema.js";

/**
 * One handshake per version, exactly that version (min = max), all at once under the audit's deadline.
 * Only the server's refusal (an alert, a reset or close mid-handshake) is "not offered"; a timeout, or our
 * own OpenSSL refusing to send the hello, says nothing about the server: `unknown`, reported as not
 * supported with a warning, never as a definite "no". SSLv2 and SSLv3 are not tested (OpenSSL 3 has no
 * client for them).
 */
export async function probeVersions(target: Target, signal: AbortSignal): Promise<TlsVersionResult[]> {
  return Promise.all(
    tlsVersionNames.map(async (version): Promise<TlsVersionResult> => {
      try {
        const result = await handshake(target, { version, signal });
        return { version, supported: true, status: "offered", cipher_suite: result.cipher };
      } catch (error) {
        if (!(error instanceof HandshakeFailure)) throw error;
        const status = error.kind === "refused" ? "not_offered" : "unknown";
        return { version, supported: false, status, cipher_suite: null };
      }
    }),
  );
}
