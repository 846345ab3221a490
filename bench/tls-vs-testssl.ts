import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { sslLookup } from "../packages/lookups/src/tls/lookup.js";
import type { SslResult } from "../packages/lookups/src/tls/schema.js";
import { type Fixture, startFixtures } from "../packages/lookups/src/tls/testing/fixtures.js";

/**
 * `pnpm bench:tls-compare` (tsx bench/tls-vs-testssl.ts): the TLS fixture servers of the tests, each audited
 * by our ssl lookup and by Debian's testssl 3.0.8 (`/usr/bin/testssl`), side by side. Loopback only:
 * testssl gets the IP with --ip, the name only as SNI, and --nodns none so it resolves nothing. The test CA
 * is given to both (ctx.tls.extraCa / --add-ca). testssl is slow: two servers at a time.
 */
const run = promisify(execFile);
const PARALLEL = 2;
const started = performance.now();
const f = await startFixtures();
const dir = await mkdtemp(join(tmpdir(), "tls-vs-testssl-"));
const caFile = join(dir, "ca.pem");
await writeFile(caFile, f.caPem);

type Finding = { id: string; finding: string; severity: string };
type Facts = Record<(typeof columns)[number], string>;
const columns = ["protocols", "trust", "key", "signature", "expiry", "name", "ocsp", "ct"] as const;

function ours(r: SslResult): Facts {
  const leaf = r.chain[0];
  const trustCodes = ["self_signed", "untrusted_root", "incomplete_chain", "cert_expired"];
  const trustProblem = r.warnings.find((w) => trustCodes.includes(w.code));
  return {
    protocols: r.tls_versions
      .filter((v) => v.supported)
      .map((v) => v.version.replace("TLS ", ""))
      .join(" "),
    trust: trustProblem ? trustProblem.code : "ok",
    key: `${leaf?.public_key_algorithm} ${leaf?.public_key_bits}`,
    signature: leaf?.signature_algorithm ?? "",
    expiry: r.not_after.slice(0, 10),
    name: r.warnings.some((w) => w.code === "name_mismatch") ? "mismatch" : "ok",
    ocsp: r.ocsp_status,
    ct: String(r.sct_count),
  };
}

function theirs(findings: Finding[]): Facts {
  const get = (id: string) => findings.find((x) => x.id === id)?.finding ?? "–";
  const offered = ["TLS1", "TLS1_1", "TLS1_2", "TLS1_3"].filter((id) => /^offered/.test(get(id)));
  return {
    protocols: offered.map((id) => (id === "TLS1" ? "1.0" : id.replace("TLS1_", "1."))).join(" "),
    trust: get("cert_chain_of_trust"),
    key: get("cert_keySize"),
    signature: get("cert_signatureAlgorithm"),
    expiry: get("cert_notAfter").slice(0, 10),
    name: get("cert_subjectAltName") === "–" ? "–" : get("cert_trust"),
    ocsp: get("OCSP_stapling"),
    ct: get("certificate_transparency"),
  };
}

async function testssl(server: Fixture): Promise<{ facts: Facts; seconds: number }> {
  const json = join(dir, `${server.name}.json`);
  const t = performance.now();
  await run(
    "testssl",
    ["--quiet", "--color", "0", "--warnings", "off", "--nodns", "none", "--ip", "127.0.0.1"].concat([
      "--add-ca",
      caFile,
      "-p",
      "-S",
      "--jsonfile",
      json,
      `${server.host}:${server.port}`,
    ]),
    { timeout: 300_000, maxBuffer: 16 * 1024 * 1024 },
  ).catch((e: { code?: number }) => {
    // testssl exits non-zero when it finds problems; the JSON file is what counts.
    if (typeof e.code !== "number") throw e;
  });
  const findings = JSON.parse(await readFile(json, "utf8")) as Finding[];
  return { facts: theirs(findings), seconds: (performance.now() - t) / 1000 };
}

const servers = Object.values(f.servers);
const rows: { name: string; ours: Facts; theirs: Facts; seconds: number; grade: string }[] = [];
try {
  for (let i = 0; i < servers.length; i += PARALLEL) {
    await Promise.all(
      servers.slice(i, i + PARALLEL).map(async (server) => {
        const audit = await sslLookup.run(
          { domain: server.host, port: server.port },
          { allowPrivate: true, lookup: f.lookup, tls: { extraCa: [f.caPem] } },
        );
        const other = await testssl(server);
        rows.push({
          name: server.name,
          ours: ours(audit),
          theirs: other.facts,
          seconds: other.seconds,
          grade: audit.grade,
        });
        process.stderr.write(`${server.name}: testssl ${other.seconds.toFixed(1)} s\n`);
      }),
    );
  }
} finally {
  await f.close();
  await rm(dir, { recursive: true, force: true });
}

rows.sort(
  (a, b) => servers.findIndex((s) => s.name === a.name) - servers.findIndex((s) => s.name === b.name),
);
for (const row of rows) {
  console.log(`\n## ${row.name} (our grade ${row.grade}; testssl ${row.seconds.toFixed(1)} s)`);
  console.log("| check | ours | testssl |\n|---|---|---|");
  for (const c of columns) console.log(`| ${c} | ${row.ours[c]} | ${row.theirs[c]} |`);
}
console.log(`\ntotal: ${((performance.now() - started) / 1000).toFixed(1)} s for ${rows.length} servers`);
