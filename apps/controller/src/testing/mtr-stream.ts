import { expect } from "vitest";
import { SseReader } from "../http/sse.js";

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
type Json = any;

/** An mtr run that streams: six rounds 300 ms apart against loopback (the first hop is the target). */
export const MTR_LIVE_ROUNDS = 6;
const params = { rounds: MTR_LIVE_ROUNDS, interval_ms: 300, timeout_ms: 300 };

/** The body of `POST /v1/probe/mtr` for that run on `nodes`, in the form's shape. */
export function mtrLiveBody(form: "a" | "b", nodes: string[]): Record<string, unknown> {
  return form === "a"
    ? { target: "127.0.0.1", node_ids: nodes, params }
    : { host: "127.0.0.1", nodes, ...params };
}

/** The events of one live stream, in order, until it ends. */
export async function readStream(res: Response): Promise<{ event: string; data: Json }[]> {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  if (!res.body) throw new Error("no body");
  const reader = new SseReader(res.body);
  const events: { event: string; data: Json }[] = [];
  for (let e = await reader.next(); e; e = await reader.next())
    events.push({ event: e.event, data: JSON.parse(e.data) });
  return events;
}

/**
 * Checks a finished stream of the mtr run above on one node: `start`, at least two `progress` events with
 * `sent` growing round by round, then the node's `result` with every round, then `done`.
 */
export function expectMtrRounds(events: { event: string; data: Json }[], nodeId: string): void {
  const names = events.map((e) => e.event);
  expect(names[0]).toBe("start");
  expect(names.slice(-2)).toEqual(["result", "done"]);
  const progress = events.filter((e) => e.event === "progress").map((e) => e.data);
  expect(progress.length, names.join(",")).toBeGreaterThanOrEqual(2);
  expect(names.lastIndexOf("progress")).toBeLessThan(names.indexOf("result"));
  const sent = progress.map((p) => p.hops[0].sent as number);
  for (let i = 1; i < sent.length; i++) expect(sent[i]).toBeGreaterThan(sent[i - 1]!);
  for (const p of progress) {
    expect(p).toMatchObject({ node_id: nodeId, mode: "icmp", resolved_ip: "127.0.0.1" });
    expect(p.rounds).toBe(p.hops[0].sent);
    expect(p.rounds).toBeLessThan(MTR_LIVE_ROUNDS);
    expect(p.hops[0]).toMatchObject({ hop: 1, ip: "127.0.0.1", reserved: true });
  }
  const result = events.find((e) => e.event === "result")!.data;
  expect(result).toMatchObject({ node_id: nodeId, success: true, rounds: MTR_LIVE_ROUNDS, reached: true });
  expect(result.hops[0].sent).toBe(MTR_LIVE_ROUNDS);
  expect(events.at(-1)!.data).toMatchObject({ status: "done", type: "mtr" });
}
