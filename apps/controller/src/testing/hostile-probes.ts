import type { Agent } from "node:http";
import { type ProbeType, probeErrorCodes } from "@vantage/probes";
import type { Json, Reply, Service } from "./hostile-services.js";

/**
 * Probe requests for the hostile-network tests, in both API forms, with the shortest budgets the forms
 * allow but one (http/ping/tcp 5 s: a node answers these failures at once, but with
 * every cell starting together on two busy cores an answer took over the 1 s grace after a 1–3 s budget;
 * mtr one round at one hop, also 5 s; traceroute one hop; dns has no timeout field: 5 s), and the checks
 * every answer must pass.
 */
import type { Form } from "./test-app.js";

export type { Form };

export interface ProbeSpec {
  type: ProbeType;
  /** What the spec aims at, for messages. */
  what: string;
  /**
   * dns only: the resolver answers with this rcode, which the probe reports as `dig` does: a result with
   * `success: true` and the rcode (REFUSED, like NXDOMAIN, is the resolver's answer, not a failure to ask).
   */
  rcode?: string;
  a: Record<string, unknown>;
  b: Record<string, unknown>;
}

const bracket = (host: string) => (host.includes(":") ? `[${host}]` : host);

export const probe = {
  http: (url: string): ProbeSpec => ({
    type: "http",
    what: url,
    a: { target: url, params: { timeout_ms: 5000 } },
    b: { url, timeout: 5 },
  }),
  ping: (host: string): ProbeSpec => ({
    type: "ping",
    what: host,
    a: { target: host, params: { count: 1, timeout_ms: 5000 } },
    b: { host, count: 1, timeout: 5 },
  }),
  dns: (domain: string, server?: string, rcode?: string): ProbeSpec => ({
    type: "dns",
    ...(rcode ? { rcode } : {}),
    what: server ? `${domain} @${server}` : domain,
    a: { target: domain, params: server ? { server } : {} },
    b: { domain, ...(server ? { server } : {}) },
  }),
  tcp: (host: string, port: number): ProbeSpec => ({
    type: "tcp",
    what: `${bracket(host)}:${port}`,
    a: { target: `${bracket(host)}:${port}`, params: { timeout_ms: 5000 } },
    b: { host, port, timeout: 5 },
  }),
  traceroute: (host: string): ProbeSpec => ({
    type: "traceroute",
    what: host,
    a: { target: host, params: { max_hops: 1 } },
    b: { host, max_hops: 1 },
  }),
  /**
   * One round at one hop, whose budget is one probe's wait: 5 s, as http, ping and tcp (the default 1 s
   * wait timed out a node, `node_timeout`, in the file-descriptor cell on a slow machine).
   */
  mtr: (host: string): ProbeSpec => ({
    type: "mtr",
    what: host,
    a: { target: host, params: { rounds: 1, max_hops: 1, interval_ms: 5000, timeout_ms: 5000 } },
    b: { host, rounds: 1, max_hops: 1, interval_ms: 5000, timeout_ms: 5000 },
  }),
};

/** One spec of each type at `host` (an IP literal or a name); dns asks `host` as its server. */
export function everyType(host: string, opts: { domain?: string } = {}): ProbeSpec[] {
  return [
    probe.http(`http://${bracket(host)}/`),
    probe.ping(host),
    probe.dns(opts.domain ?? "example.test", host),
    probe.tcp(host, 80),
    probe.traceroute(host),
    probe.mtr(host),
  ];
}

export interface ProbeAnswer {
  spec: ProbeSpec;
  /** The POST's answer (Form A: 202 with the task id; Form B: 200 with the results). */
  created: Reply;
  /** Form A: the task as last read (done/failed); Form B: the POST's data. */
  task: Json;
  results: Json[];
  ms: number;
}

/** POST the spec to `node`; Form A polls `GET /v1/probe/tasks/{id}` until done or failed (≤ `boundMs`). */
export async function runProbe(
  service: Service,
  spec: ProbeSpec,
  node: string,
  opts: { boundMs?: number; agent?: Agent } = {},
): Promise<ProbeAnswer> {
  const started = performance.now();
  const bound = opts.boundMs ?? 20_000;
  const body = service.form === "a" ? { ...spec.a, node_ids: [node] } : { ...spec.b, nodes: [node] };
  const call = (method: string, path: string, b?: unknown) =>
    service.call(method, path, { body: b, timeoutMs: bound, ...(opts.agent ? { agent: opts.agent } : {}) });
  const created = await call("POST", `/v1/probe/${spec.type}`, body);
  if (service.form === "b" || created.status !== 202) {
    const data = created.body?.data;
    return { spec, created, task: data, results: data?.results ?? [], ms: performance.now() - started };
  }
  const id = created.body?.data?.task_id;
  for (;;) {
    const task = await call("GET", `/v1/probe/tasks/${id}`);
    const data = task.body?.data;
    if (data?.status === "done" || data?.status === "failed")
      return { spec, created, task: data, results: data.results ?? [], ms: performance.now() - started };
    if (performance.now() - started > bound)
      throw new Error(
        `${spec.type} ${spec.what}: task ${id} still ${data?.status ?? task.status} after ${bound} ms`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * What every hostile answer must be: the envelope (Form B 200 `done`, Form A 202 then a task that ended
 * `done`/`failed`), one entry for the node, `success: false` (dns: the resolver's rcode when it gave one) with a probe error code (the probe itself
 * said what went wrong: not `node_timeout` or `node_offline`, which would mean the node hung or died) and
 * a message. Returns the problems found, empty when none.
 */
export function problemsOf(answer: ProbeAnswer, form: Form, node: string): string[] {
  const { created, task, results, spec } = answer;
  const say = (m: string) =>
    `${spec.type} ${spec.what}: ${m} (answer ${created.status} ${created.text.slice(0, 400)}; task ${JSON.stringify(task)?.slice(0, 400)})`;
  const out: string[] = [];
  if (created.status !== (form === "a" ? 202 : 200)) out.push(say(`status ${created.status}`));
  if (typeof created.body?.request_id !== "string" || !created.body?.data) out.push(say("no envelope"));
  if (form === "b" && task?.status !== "done") out.push(say(`Form B status ${task?.status}`));
  if (form === "a" && !["done", "failed"].includes(task?.status)) out.push(say(`task ${task?.status}`));
  if (results.length !== 1 || results[0]?.node_id !== node) out.push(say(`not one result from ${node}`));
  for (const r of results) {
    if (spec.rcode !== undefined) {
      if (r.success !== true || r.rcode !== spec.rcode) out.push(say(`not the resolver's ${spec.rcode}`));
      continue;
    }
    if (r.success !== false) out.push(say(`success ${r.success}`));
    const code = r.error?.code;
    if (typeof code !== "string" || code === "") out.push(say("no error code"));
    else if (!(probeErrorCodes as readonly string[]).includes(code)) out.push(say(`node-level code ${code}`));
    if (typeof r.error?.message !== "string" || r.error.message === "") out.push(say("no error message"));
  }
  return out;
}
