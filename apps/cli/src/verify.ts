import { readFileSync } from "node:fs";
// The CLI bundles without dependencies: this file is plain node:crypto, shared with agents and controller.
import { verifyResultSignature } from "../../../packages/protocol/src/result-signature.js";
import { CliError } from "./errors.js";

/**
 * `vantage verify <file|url>`: checks a shared or exported probe task offline (docs/verify.md). Each
 * signature must verify over its statement with its key; the key must be the node's in the deployment's
 * `GET /v1/nodes` (when one is known: the URL's own, or --api); and each shown result must carry what its
 * statement signed (fields the controller adds beside them, such as hop networks, are not signed).
 */

interface Sig {
  node_id: string;
  public_key: string;
  signature: string;
  statement: string;
}
interface Doc {
  task: { task_id: string; results: Array<Record<string, unknown> & { node_id: string }> };
  signatures: Sig[];
}

export interface VerifyReport {
  ok: boolean;
  lines: string[];
}

/** Whether `shown` holds everything `signed` does (objects may have more keys; arrays match in length). */
function covers(shown: unknown, signed: unknown): boolean {
  if (signed === null || typeof signed !== "object") return Object.is(shown, signed) || shown === signed;
  if (Array.isArray(signed))
    return (
      Array.isArray(shown) && shown.length === signed.length && signed.every((v, i) => covers(shown[i], v))
    );
  if (shown === null || typeof shown !== "object" || Array.isArray(shown)) return false;
  const s = shown as Record<string, unknown>;
  return Object.entries(signed as Record<string, unknown>).every(([k, v]) => k in s && covers(s[k], v));
}

/** Checks a task document (`data` of a share's JSON or an export). `keys`: node id → key, when known. */
export function verifyTaskDocument(doc: Doc, keys?: ReadonlyMap<string, string | null>): VerifyReport {
  const lines: string[] = [];
  let ok = true;
  const fail = (s: string) => {
    ok = false;
    lines.push(`FAIL ${s}`);
  };
  if (!doc?.task || !Array.isArray(doc.task.results) || !Array.isArray(doc.signatures))
    throw new CliError("not a shared or exported probe task (no task and signatures)");
  if (doc.signatures.length === 0) fail(`task ${doc.task.task_id}: no signed result to verify`);
  for (const s of doc.signatures) {
    const who = `node ${s.node_id}`;
    if (!verifyResultSignature(s.public_key, s.statement, s.signature)) {
      fail(`${who}: the signature does not match its statement and key`);
      continue;
    }
    const statement = JSON.parse(s.statement) as {
      node_id?: string;
      job_id?: string;
      outcome?: { success: boolean; latency_ms: number | null; error: unknown; detail: unknown };
    };
    if (statement.node_id !== s.node_id) {
      fail(`${who}: the statement was signed for node ${statement.node_id}`);
      continue;
    }
    if (!statement.job_id?.startsWith(`${doc.task.task_id}.`)) {
      fail(`${who}: the statement belongs to another task (job ${statement.job_id})`);
      continue;
    }
    if (keys) {
      const known = keys.get(s.node_id);
      if (known !== s.public_key) {
        fail(`${who}: signed with ${s.public_key}, but the node's key is ${known ?? "unknown"}`);
        continue;
      }
    }
    const shown = doc.task.results.find((r) => r.node_id === s.node_id);
    const o = statement.outcome;
    if (!shown || !o) {
      fail(`${who}: no result shown for the signed statement`);
      continue;
    }
    const mismatch = [
      shown.success !== o.success && "success",
      !Object.is(shown.latency_ms, o.latency_ms) && "latency_ms",
      !covers(shown.error ?? null, o.error) && "error",
      !covers(shown, o.detail ?? {}) && "detail",
    ].filter(Boolean);
    if (mismatch.length > 0)
      fail(`${who}: the shown result differs from what it signed (${mismatch.join(", ")})`);
    else lines.push(`ok   ${who}: signature valid${keys ? ", key matches /v1/nodes" : ""}`);
  }
  const signed = new Set(doc.signatures.map((s) => s.node_id));
  for (const r of doc.task.results)
    if (!signed.has(r.node_id)) lines.push(`note node ${r.node_id}: result not signed (nothing to check)`);
  if (!keys) lines.push("note keys not checked against a deployment's /v1/nodes (pass --api <url>)");
  return { ok, lines };
}

type Fetch = (url: string) => Promise<{ ok: boolean; status: number; json(): Promise<unknown> }>;

async function getJson(fetchFn: Fetch, url: string): Promise<unknown> {
  const res = await fetchFn(url);
  if (!res.ok) throw new CliError(`${url} answered HTTP ${res.status}`);
  return res.json();
}

/** Reads the document (a file, a share's page or JSON URL, an export URL), fetches the keys, checks. */
export async function verifySource(
  source: string,
  apiFlag: string | undefined,
  fetchFn: Fetch = fetch,
): Promise<VerifyReport> {
  let body: unknown;
  let api = apiFlag;
  if (/^https?:\/\//i.test(source)) {
    const url = new URL(source);
    // The page of a share (/share/{id}) has its JSON at /v1/shares/{id}.
    const page = /^\/share\/([^/]+)$/.exec(url.pathname);
    if (page) url.pathname = `/v1/shares/${page[1]}`;
    body = await getJson(fetchFn, url.toString());
    api ??= url.origin;
  } else {
    try {
      body = JSON.parse(readFileSync(source, "utf8"));
    } catch (err) {
      throw new CliError(`cannot read ${source}: ${(err as Error).message}`);
    }
  }
  const doc = ((body as { data?: unknown })?.data ?? body) as Doc;
  let keys: Map<string, string | null> | undefined;
  if (api) {
    const nodes = (await getJson(fetchFn, `${api.replace(/\/+$/, "")}/v1/nodes`)) as {
      data?: { items?: Array<{ id: string; public_key?: string | null }> };
    };
    keys = new Map((nodes.data?.items ?? []).map((n) => [n.id, n.public_key ?? null]));
  }
  return verifyTaskDocument(doc, keys);
}
