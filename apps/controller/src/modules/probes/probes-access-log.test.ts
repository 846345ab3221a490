import { captureLog } from "@vantage/testing";
import { describe, expect, it } from "vitest";
import { serveNode, settle } from "../../testing/agents.js";
import { runTask, tcpBody } from "../../testing/probe-requests.js";
import { forms } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

/**
 * The access log line of a probe request names the task it created (`task_id`: Form A's task id, Form B's
 * answer's), so the request and the task can be found from each other; other requests have none.
 */
describe.each(forms)("a probe's access log line, form %s", (form) => {
  const db = useTestDb("pglite");

  it("carries the task id of the answer, as a plain JSON answer and as a live stream", async () => {
    const captured = captureLog("info");
    const t = db.app(
      form,
      { VANTAGE_ACCESS_LOG: "true", VANTAGE_ALLOW_PRIVATE_TARGETS: "false" },
      { log: captured.log },
    );
    serveNode(t.bus, { id: "de1", country: "DE" });
    await settle();
    const requestLines = () => captured.lines.filter((l) => l.msg === "request");

    const { created } = await runTask(t, form, "tcp", tcpBody(form, "example.com", 443));
    expect(created.status).toBe(form === "a" ? 202 : 200);
    const taskId = created.body.data.task_id as string;
    expect(taskId).toMatch(/^task_/);
    const posted = requestLines().filter((l) => l.method === "POST");
    expect(posted).toEqual([expect.objectContaining({ path: "/v1/probe/tcp", status: created.status })]);
    expect(posted[0]!.task_id).toBe(taskId);
    expect(posted[0]!.request_id).toBe(created.headers.get("x-request-id"));

    // The live stream's line is written when the stream starts: with the task its `start` event names.
    const streamed = await t.call("POST", "/v1/probe/tcp", {
      body: tcpBody(form, "example.com", 443),
      headers: { accept: "text/event-stream" },
    });
    expect(streamed.status).toBe(200);
    const started = /event: start\ndata: (.*)\n/.exec(streamed.text)?.[1];
    const streamedTask = (JSON.parse(started ?? "{}") as { task_id?: string }).task_id;
    expect(streamedTask).toMatch(/^task_/);
    const streamLine = requestLines().find((l) => l.request_id === streamed.headers.get("x-request-id"));
    expect(streamLine).toMatchObject({ method: "POST", path: "/v1/probe/tcp", task_id: streamedTask });

    // Requests that create no task: no task_id, not even for a refused probe.
    const refused = await t.call("POST", "/v1/probe/tcp", { body: tcpBody(form, "127.0.0.1", 443) });
    expect(refused.status).toBe(422);
    await t.call("GET", `/v1/probe/tasks/${taskId}`);
    const others = requestLines().filter(
      (l) => l.request_id !== created.headers.get("x-request-id") && l.task_id !== streamedTask,
    );
    expect(others.length).toBeGreaterThanOrEqual(2);
    for (const l of others) expect(l).not.toHaveProperty("task_id");
  });
});
