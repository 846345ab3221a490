import { type Heartbeat, type JobMessage, PROTOCOL_VERSION } from "@vantage/protocol";
import type { InProcessBus } from "@vantage/transport";

/** Test doubles of agents on the in-process bus: they heartbeat and answer jobs like a real agent would. */

export interface FakeNode {
  id: string;
  name?: string;
  country?: string;
  region?: string;
  provider?: string;
  runningJobs?: number;
  maxJobs?: number;
  capabilities?: Heartbeat["capabilities"];
  asn?: number;
  tags?: string[];
}

export function heartbeatOf(node: FakeNode, extra: Partial<Heartbeat> = {}): Heartbeat {
  return {
    v: PROTOCOL_VERSION,
    node: {
      id: node.id,
      name: node.name ?? `Node ${node.id}`,
      country: node.country ?? "DE",
      region: node.region ?? "eu-central",
      provider: node.provider ?? "test",
      ...(node.asn === undefined ? {} : { asn: node.asn }),
      ...(node.tags === undefined ? {} : { tags: node.tags }),
    },
    version: "0.1.0-test",
    capabilities: node.capabilities ?? ["ipv4", "http", "dns", "tcp", "ping", "traceroute", "mtr", "icmp"],
    running_jobs: node.runningJobs ?? 0,
    max_jobs: node.maxJobs ?? 10,
    load: 0,
    sent_at: new Date().toISOString(),
    draining: false,
    ...extra,
  };
}

export type Behaviour = (job: JobMessage) => unknown;

/** A successful probe reply with a detail that looks like the type's real one. */
export function doneReply(job: JobMessage, latency = 1.5): unknown {
  const detail: Record<string, unknown> = (() => {
    switch (job.spec.type) {
      case "tcp":
        return { resolved_ip: "192.0.2.10", port: job.spec.params.port, connect_ms: latency };
      case "http":
        return {
          resolved_ip: "192.0.2.10",
          status_code: 200,
          headers: { "content-type": "text/plain" },
          timings: { dns: 0.1, connect: 0.2, tls: null, first_byte: 1, total: latency },
          tls: null,
          body_excerpt: "ok",
          body_bytes: 2,
          redirects: [],
        };
      case "ping":
        return {
          resolved_ip: "192.0.2.10",
          packets_sent: job.spec.params.count,
          packets_received: job.spec.params.count,
          packet_loss: 0,
          rtt: { min: latency, avg: latency, max: latency, mdev: 0 },
          replies: [{ seq: 1, rtt_ms: latency, ttl: 64 }],
        };
      case "dns":
        return {
          resolver: "192.0.2.53:53",
          protocol: "udp",
          rcode: "NOERROR",
          truncated: false,
          query_time_ms: latency,
          answers: [{ name: job.spec.params.domain, type: "A", ttl: 60, value: "192.0.2.1" }],
        };
      case "traceroute":
        return {
          resolved_ip: "192.0.2.10",
          reached: true,
          hops: [{ hop: 1, ip: "192.0.2.10", hostname: null, rtts: [latency] }],
        };
      case "mtr": {
        const rounds = job.spec.params.rounds;
        const stats = { sent: rounds, received: rounds, loss_pct: 0, last: latency, avg: latency };
        return {
          resolved_ip: "192.0.2.10",
          mode: job.spec.params.mode,
          port: job.spec.params.mode === "icmp" ? null : (job.spec.params.port ?? 80),
          rounds,
          reached: true,
          hops: [
            {
              hop: 1,
              ip: "192.0.2.10",
              ips: ["192.0.2.10"],
              ...stats,
              best: latency,
              worst: latency,
              stdev: 0,
            },
          ],
        };
      }
    }
  })();
  return {
    v: PROTOCOL_VERSION,
    job_id: job.job_id,
    status: "done",
    started_at: new Date().toISOString(),
    duration_ms: latency,
    outcome: { success: true, latency_ms: latency, error: null, detail },
  };
}

export function refusedReply(job: JobMessage, code: string): unknown {
  return { v: PROTOCOL_VERSION, job_id: job.job_id, status: "refused", error: { code, message: code } };
}

export interface ServedNode {
  jobs: JobMessage[];
  heartbeat(extra?: Partial<Heartbeat>): void;
  stop(): Promise<void>;
}

/** Registers `node` (one heartbeat) and serves its jobs with `behaviour` (default: a successful probe). */
export function serveNode(bus: InProcessBus, node: FakeNode, behaviour: Behaviour = doneReply): ServedNode {
  const link = bus.agent();
  const jobs: JobMessage[] = [];
  const stopServing = link.serveJobs(node.id, async (message) => {
    const job = message as JobMessage;
    jobs.push(job);
    return behaviour(job);
  });
  const heartbeat = (extra?: Partial<Heartbeat>) => link.publishHeartbeat(node.id, heartbeatOf(node, extra));
  heartbeat();
  return {
    jobs,
    heartbeat,
    async stop() {
      // Jobs still held (a silent node) are not awaited: the node just goes away.
      void stopServing();
      await link.close();
    },
  };
}

/** Lets queued heartbeats (delivered on microtasks) reach presence. */
export const settle = () => new Promise((r) => setTimeout(r, 5));

/** A promise that never settles: a node that keeps the job and never answers. */
export const never = () => new Promise<never>(() => {});
