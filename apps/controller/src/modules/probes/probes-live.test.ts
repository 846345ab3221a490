import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { type SseEvent, SseReader } from "../../http/sse.js";
import { newUser } from "../../testing/accounts.js";
import { doneReply, serveNode, settle } from "../../testing/agents.js";
import { runTask, tcpBody } from "../../testing/probe-requests.js";
import { dbKinds, type Form, forms, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

/**
 * Live results over Server-Sent Events (`Accept: text/event-stream`) on the probe routes, both forms, both
 * databases. Agent doubles on the in-process bus: `fast` answers at once, `slow` holds its job until the
 * test lets it go. Targets are loopback only (the doubles connect nowhere anyway).
 */

const FAST = { id: "fast", country: "DE", region: "eu-central", provider: "hetzner" };
const SLOW = { id: "slow", country: "US", region: "us-east", provider: "aws" };

/** The slow node: holds every job until `release()`; `answered` turns true when it has replied. */
function serveSlow(t: TestApp) {
  let release: () => void = () => {};
  const held = new Promise<void>((r) => {
    release = r;
  });
  let arrived: () => void = () => {};
  const jobArrived = new Promise<void>((r) => {
    arrived = r;
  });
  const state = { answered: false };
  serveNode(t.bus, SLOW, async (job) => {
    arrived();
    await held;
    state.answered = true;
    return doneReply(job, 40);
  });
  return { release, jobArrived, state };
}

/** Sends a request asking for an event stream; the body is read event by event. */
async function openStream(
  t: TestApp,
  method: string,
  path: string,
  opts: { body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { accept: "text/event-stream", ...opts.headers };
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await t.app.request(path, {
    method,
    headers,
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
  });
  let reader: SseReader | undefined;
  return {
    res,
    /** The body as events (read lazily: an error answer is read as JSON instead). */
    get events(): SseReader {
      if (!res.body) throw new Error("no body");
      reader ??= new SseReader(res.body);
      return reader;
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
const data = (e: SseEvent | undefined): any => JSON.parse(e?.data ?? "null");

const nodeView = (n: typeof FAST) => ({
  node_id: n.id,
  node_name: `Node ${n.id}`,
  country: n.country,
  region: n.region,
  provider: n.provider,
});

const body = (form: Form) => tcpBody(form, "127.0.0.1", 9, ["fast", "slow"]);

describe.each(dbKinds)("live probe streams on %s", (kind) => {
  const db = useTestDb(kind);
  const fresh = (form: Form, env: Record<string, string> = {}) =>
    db.freshApp(form, { VANTAGE_ALLOW_PRIVATE_TARGETS: "true", ...env });

  describe.each(forms)("form %s", (form) => {
    it("POST streams start, the fast node's result while the slow node still holds its job, then done as GET answers it", async () => {
      const t = await fresh(form);
      serveNode(t.bus, FAST);
      const slow = serveSlow(t);
      await settle();

      const { res, events } = await openStream(t, "POST", "/v1/probe/tcp", { body: body(form) });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
      expect(res.headers.get("x-request-id")).toMatch(/^req_/);

      const start = await events.next();
      expect(start).toMatchObject({ event: "start", id: "1" });
      const taskId = data(start).task_id as string;
      expect(data(start)).toEqual({
        task_id: expect.stringMatching(/^task_/),
        type: "tcp",
        status: "running",
        nodes: [nodeView(FAST), nodeView(SLOW)],
      });

      const fast = await events.next();
      expect(fast).toMatchObject({ event: "result", id: "2" });
      expect(data(fast)).toMatchObject({ node_id: "fast", success: true, latency_ms: 1.5, port: 9 });
      // The fast node's result is at the client while the slow node has its job and has not answered.
      await slow.jobArrived;
      expect(slow.state.answered).toBe(false);

      slow.release();
      const late = await events.next();
      expect(late).toMatchObject({ event: "result", id: "3" });
      expect(data(late)).toMatchObject({ node_id: "slow", success: true, latency_ms: 40 });
      const done = await events.next();
      expect(done).toMatchObject({ event: "done", id: "4" });
      expect(await events.next()).toBeUndefined();

      expect(data(done)).toMatchObject({
        task_id: taskId,
        type: "tcp",
        target: "127.0.0.1:9",
        status: "done",
      });
      // Each result event is that node's entry of results[], exactly.
      expect(data(done).results).toEqual([data(fast), data(late)]);
      const read = await t.call("GET", `/v1/probe/tasks/${taskId}`);
      expect(read.status).toBe(200);
      expect(read.body.data).toEqual(data(done));
    });

    it("GET streams a running task: what it has first, then what arrives, then done", async () => {
      const t = await fresh(form);
      serveNode(t.bus, FAST);
      const slow = serveSlow(t);
      await settle();
      let taskId: string;
      if (form === "a") {
        const created = await t.call("POST", "/v1/probe/tcp", { body: body(form) });
        expect(created.status).toBe(202);
        taskId = created.body.data.task_id;
        // Until the fast node's result is stored.
        for (let i = 0; i < 200; i++) {
          const read = await t.call("GET", `/v1/probe/tasks/${taskId}`);
          if (read.body.data.results.length === 1) break;
          await new Promise((r) => setTimeout(r, 10));
        }
      } else {
        // Form B stores a task once it is finished: a running one is followed on the controller running it,
        // whose first stream names it.
        const first = await openStream(t, "POST", "/v1/probe/tcp", { body: body(form) });
        taskId = data(await first.events.next()).task_id;
        expect(data(await first.events.next()).node_id).toBe("fast");
        void first.events.rest();
      }
      await slow.jobArrived;

      const { res, events } = await openStream(t, "GET", `/v1/probe/tasks/${taskId}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
      const start = await events.next();
      expect(data(start)).toEqual({
        task_id: taskId,
        type: "tcp",
        status: "running",
        nodes: [nodeView(FAST), nodeView(SLOW)],
      });
      const fast = await events.next();
      expect(fast?.event).toBe("result");
      expect(data(fast).node_id).toBe("fast");
      expect(slow.state.answered).toBe(false);

      slow.release();
      const late = await events.next();
      expect(late?.event).toBe("result");
      expect(data(late).node_id).toBe("slow");
      const done = await events.next();
      expect(done?.event).toBe("done");
      expect(await events.next()).toBeUndefined();
      const read = await t.call("GET", `/v1/probe/tasks/${taskId}`);
      expect(read.body.data).toEqual(data(done));
      expect(data(done).status).toBe("done");
    });

    it("GET streams a finished task at once: start, every result, done, end", async () => {
      const t = await fresh(form);
      serveNode(t.bus, FAST);
      serveNode(t.bus, { ...SLOW });
      await settle();
      const { created } = await runTask(t, form, "tcp", body(form));
      const taskId = created.body.data.task_id as string;
      const json = await t.call("GET", `/v1/probe/tasks/${taskId}`);
      expect(json.headers.get("content-type")).toMatch(/^application\/json/);

      const { events } = await openStream(t, "GET", `/v1/probe/tasks/${taskId}`);
      const all = await events.rest();
      expect(all.map((e) => [e.event, e.id])).toEqual([
        ["start", "1"],
        ["result", "2"],
        ["result", "3"],
        ["done", "4"],
      ]);
      expect(data(all[0])).toEqual({
        task_id: taskId,
        type: "tcp",
        status: "done",
        nodes: [nodeView(FAST), nodeView(SLOW)],
      });
      expect(data(all[3])).toEqual(json.body.data);
      expect([data(all[1]), data(all[2])]).toEqual(json.body.data.results);
    });

    it("a client that goes away mid-stream cancels nothing: the task is stored complete", async () => {
      const t = await fresh(form);
      serveNode(t.bus, FAST);
      const slow = serveSlow(t);
      await settle();
      const { events } = await openStream(t, "POST", "/v1/probe/tcp", { body: body(form) });
      const taskId = data(await events.next()).task_id as string;
      expect(data(await events.next()).node_id).toBe("fast");
      await events.cancel();

      await slow.jobArrived;
      slow.release();
      let read = await t.call("GET", `/v1/probe/tasks/${taskId}`);
      for (let i = 0; i < 300 && read.body?.data?.status !== "done"; i++) {
        await new Promise((r) => setTimeout(r, 10));
        read = await t.call("GET", `/v1/probe/tasks/${taskId}`);
      }
      expect(read.status).toBe(200);
      expect(read.body.data.status).toBe("done");
      expect(read.body.data.results.map((r: { node_id: string }) => r.node_id)).toEqual(["fast", "slow"]);
      // Form B answers from memory and writes behind the answer (ADR 0003): the rows land shortly after.
      let stored: { node_id: string }[] = [];
      for (let i = 0; i < 300 && stored.length < 2; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 10));
        stored = await t.db.kysely
          .selectFrom("probe_results")
          .select("node_id")
          .where("task_id", "=", taskId)
          .execute();
      }
      expect(stored.map((r) => r.node_id).sort()).toEqual(["fast", "slow"]);
    });

    it("a task created with credentials streams to its account only; anyone else gets the JSON 404", async () => {
      const t = await fresh(form);
      serveNode(t.bus, FAST);
      await settle();
      const alice = await newUser(t, "alice");
      const bob = await newUser(t, "bob");
      const { events } = await openStream(t, "POST", "/v1/probe/tcp", {
        body: tcpBody(form, "127.0.0.1", 9, ["fast"]),
        headers: alice.headers,
      });
      const all = await events.rest();
      expect(all.map((e) => e.event)).toEqual(["start", "result", "done"]);
      const taskId = data(all[0]).task_id as string;
      for (const headers of [bob.headers, {}]) {
        const other = await openStream(t, "GET", `/v1/probe/tasks/${taskId}`, { headers });
        expect(other.res.status).toBe(404);
        expect(other.res.headers.get("content-type")).toMatch(/^application\/json/);
      }
      const own = await openStream(t, "GET", `/v1/probe/tasks/${taskId}`, { headers: alice.headers });
      expect(own.res.status).toBe(200);
      expect((await own.events.rest()).map((e) => e.event)).toEqual(["start", "result", "done"]);
    });

    it("errors before the stream starts are the JSON envelope: 400, 401, 404, 422, 503", async () => {
      const t = await fresh(form);
      serveNode(t.bus, FAST);
      await settle();
      const expectJsonError = async (
        opened: Awaited<ReturnType<typeof openStream>>,
        status: number,
        code: string,
      ) => {
        expect(opened.res.status).toBe(status);
        expect(opened.res.headers.get("content-type")).toMatch(/^application\/json/);
        const parsed = (await opened.res.json()) as { error: { code: string }; request_id: string };
        expect(parsed.error.code).toBe(code);
        expect(parsed.request_id).toMatch(/^req_/);
      };
      const invalid = form === "a" ? { target: "127.0.0.1:0" } : { host: "127.0.0.1", port: 0 };
      await expectJsonError(
        await openStream(t, "POST", "/v1/probe/tcp", { body: invalid }),
        400,
        "validation_error",
      );
      await expectJsonError(
        await openStream(t, "POST", "/v1/probe/tcp", {
          body: tcpBody(form, "127.0.0.1", 9),
          headers: { authorization: "Bearer not-a-credential" },
        }),
        401,
        "unauthorized",
      );
      await expectJsonError(
        await openStream(t, "GET", "/v1/probe/tasks/task_doesnotexist"),
        404,
        "not_found",
      );
      await expectJsonError(
        await openStream(t, "GET", "/v1/probe/tasks/task_doesnotexist", {
          headers: { authorization: "Bearer not-a-credential" },
        }),
        401,
        "unauthorized",
      );

      const guarded = await fresh(form, { VANTAGE_ALLOW_PRIVATE_TARGETS: "false" });
      serveNode(guarded.bus, FAST);
      await settle();
      await expectJsonError(
        await openStream(guarded, "POST", "/v1/probe/tcp", { body: tcpBody(form, "127.0.0.1", 9) }),
        422,
        "target_not_allowed",
      );
      const empty = await fresh(form);
      await expectJsonError(
        await openStream(empty, "POST", "/v1/probe/tcp", { body: tcpBody(form, "127.0.0.1", 9) }),
        503,
        "no_nodes_available",
      );
    });
  });
});

describe.each(forms)("live probe streams, form %s (PGlite)", (form) => {
  const db = useTestDb("pglite");

  it("sends `: keep-alive` comment lines every VANTAGE_SSE_HEARTBEAT_MS while the task runs", async () => {
    const t = await db.freshApp(form, {
      VANTAGE_ALLOW_PRIVATE_TARGETS: "true",
      VANTAGE_SSE_HEARTBEAT_MS: "1000",
    });
    serveNode(t.bus, FAST);
    const slow = serveSlow(t);
    await settle();
    const { events } = await openStream(t, "POST", "/v1/probe/tcp", { body: body(form) });
    expect((await events.next())?.event).toBe("start");
    expect((await events.next())?.event).toBe("result");
    await slow.jobArrived;
    const beat = await events.next({ comments: true });
    expect(beat).toMatchObject({ comment: "keep-alive" });
    slow.release();
    const rest = await events.rest();
    expect(rest.map((e) => e.event)).toEqual(["result", "done"]);
  });

  it("the OpenAPI document gives the probe routes and the task route a text/event-stream answer", async () => {
    const t = db.app(form);
    // biome-ignore lint/suspicious/noExplicitAny: walking the generated document
    const paths = (t.openapi() as any).paths;
    for (const type of ["http", "ping", "dns", "tcp", "traceroute"]) {
      const op = paths[`/v1/probe/${type}`].post;
      expect(Object.keys(op.responses["200"].content)).toContain("text/event-stream");
      expect(op.description).toContain("text/event-stream");
    }
    const get = paths["/v1/probe/tasks/{id}"].get;
    expect(Object.keys(get.responses["200"].content).sort()).toEqual([
      "application/json",
      "text/event-stream",
    ]);
    await expect(SwaggerParser.validate(structuredClone(t.openapi()) as never)).resolves.toBeDefined();
  });
});
