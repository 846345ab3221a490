import { describe, expect, it } from "vitest";
import { SseReader } from "../../http/sse.js";
import { newUser } from "../../testing/accounts.js";
import { doneReply, serveNode, settle } from "../../testing/agents.js";
import { tcpBody } from "../../testing/probe-requests.js";
import { forms, type TestApp } from "../../testing/test-app.js";
import { until } from "../../testing/until.js";
import { useTestDb } from "../../testing/use-test-db.js";

/**
 * Live streams open at once are capped per client IP and per account (VANTAGE_STREAMS_PER_IP,
 * VANTAGE_STREAMS_PER_ACCOUNT): one more is 429 before any work, and a closed stream frees its slot.
 * The node holds every job until the test ends, so every stream stays open until its client leaves.
 */
describe.each(forms)("live stream caps, Form %s", (form) => {
  const db = useTestDb("pglite");

  async function setup(env: Record<string, string>) {
    const t = db.app(form, { VANTAGE_ALLOW_PRIVATE_TARGETS: "true", ...env });
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    const node = serveNode(t.bus, { id: "slow" }, async (job) => {
      await held;
      return doneReply(job);
    });
    await settle();
    return { t, node, release };
  }

  async function stream(t: TestApp, headers: Record<string, string> = {}) {
    const res = await t.app.request("/v1/probe/tcp", {
      method: "POST",
      headers: { accept: "text/event-stream", "content-type": "application/json", ...headers },
      body: JSON.stringify(tcpBody(form, "127.0.0.1", 9, ["slow"])),
    });
    if (res.status !== 200) return { res, reader: undefined, taskId: undefined };
    const reader = new SseReader(res.body!);
    // The stream is open once its `start` event has come.
    const start = await reader.next();
    expect(start?.event).toBe("start");
    return { res, reader, taskId: JSON.parse(start?.data ?? "{}").task_id as string };
  }

  it("per IP: the cap's worth are served, one more is 429 before any work, a closed one frees a slot", async () => {
    const { t, node, release } = await setup({ VANTAGE_STREAMS_PER_IP: "2" });
    try {
      const first = await stream(t);
      const second = await stream(t);
      expect([first.res.status, second.res.status]).toEqual([200, 200]);
      const refused = await stream(t);
      expect(refused.res.status).toBe(429);
      const body = (await refused.res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("rate_limited");
      expect(body.error.message).toContain("2 live streams");
      expect(refused.res.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(refused.res.headers.get("ratelimit-limit")).toBe("2");
      expect(refused.res.headers.get("ratelimit-remaining")).toBe("0");
      // Refused before any work: no task went to the node for it.
      await settle();
      expect(node.jobs).toHaveLength(2);
      // Following an existing task takes a slot too.
      const follow = await t.app.request(`/v1/probe/tasks/${first.taskId}`, {
        headers: { accept: "text/event-stream" },
      });
      expect(follow.status).toBe(429);
      await first.reader!.cancel();
      let again: Awaited<ReturnType<typeof stream>> | undefined;
      await until("a slot freed by the closed stream", async () => {
        again = await stream(t);
        return again.res.status === 200;
      });
      expect(again?.res.status).toBe(200);
      expect((await stream(t)).res.status).toBe(429);
      await Promise.all([second.reader!.cancel(), again!.reader!.cancel()]);
    } finally {
      release();
    }
  });

  it("per account: its cap holds whichever address, anonymous callers keep the IP's own", async () => {
    const { t, release } = await setup({ VANTAGE_STREAMS_PER_IP: "10", VANTAGE_STREAMS_PER_ACCOUNT: "1" });
    try {
      const alice = await newUser(t, "streams");
      const held = await stream(t, alice.headers);
      expect(held.res.status).toBe(200);
      const refused = await stream(t, alice.headers);
      expect(refused.res.status).toBe(429);
      expect(((await refused.res.json()) as { error: { message: string } }).error.message).toContain(
        "this account",
      );
      const anonymous = await stream(t);
      expect(anonymous.res.status).toBe(200);
      await Promise.all([held.reader!.cancel(), anonymous.reader!.cancel()]);
    } finally {
      release();
    }
  });
});
