import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A throw-away self-signed certificate (EC P-256, two days) made by openssl in a temp dir: for `name` (its
 * CN and only DNS name) or, by default, for localhost, 127.0.0.1 and ::1. No client here trusts it.
 */
export function selfSignedCert(name?: string): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), "vantage-probes-cert-"));
  try {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "2",
        "-subj",
        name ? `/CN=${name}` : "/CN=localhost/O=Vantage Test",
        "-addext",
        name ? `subjectAltName=DNS:${name}` : "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ],
      { stdio: "pipe" },
    );
    return {
      key: readFileSync(join(dir, "key.pem"), "utf8"),
      cert: readFileSync(join(dir, "cert.pem"), "utf8"),
    };
  } catch (error) {
    throw new Error(`these tests need the openssl binary to make a certificate: ${(error as Error).message}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
