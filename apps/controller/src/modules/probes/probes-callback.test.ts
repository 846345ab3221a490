import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { doneReply, serveNode, settle } from "../../testing/agents.js";
import { dbKinds } from "../../testing/test-app.js";
import { until } from "../../testing/until.js";
import { useTestDb } from "../../testing/use-test-db.js";

/** A receiver on loopback that records what it is sent. */
async function receiver() {
  const got: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  let arrived: () => void = () => {};
  const first = new Promise<void>((r) => {
    arrived = r;
  });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.end("ok");
      arrived();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, got, first, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** Form A's completion webhook (issue #30 item 5): signed per Standard Webhooks with the secret shown once. */
describe.each(dbKinds)("probe completion webhook on %s", (kind) => {
  const db = useTestDb(kind);
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it("POSTs the finished task, and the documented secret verifies it", async () => {
    const t = await db.freshApp("a", { VANTAGE_ALLOW_PRIVATE_TARGETS: "true" });
    const hook = await receiver();
    closers.push(hook.close);
    serveNode(t.bus, { id: "n1" }, (job) => doneReply(job, 4));
    await settle();
    const created = await t.call("POST", "/v1/probe/tcp", {
      body: { target: "example.com:443", node_ids: ["n1"], callback_url: hook.url },
    });
    expect(created.status).toBe(202);
    const secret = created.body.data.callback_secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await hook.first;
    expect(hook.got).toHaveLength(1);
    const [sent] = hook.got;
    const payload = new Webhook(secret).verify(sent!.body, {
      "webhook-id": String(sent!.headers["webhook-id"]),
      "webhook-timestamp": String(sent!.headers["webhook-timestamp"]),
      "webhook-signature": String(sent!.headers["webhook-signature"]),
    }) as { type: string; data: { task_id: string; status: string; succeeded: number } };
    expect(payload.type).toBe("probe.task.finished");
    expect(payload.data).toMatchObject({ task_id: created.body.data.task_id, status: "done", succeeded: 1 });
    // Another secret (another task's) does not verify it.
    const other = await t.call("POST", "/v1/probe/tcp", {
      body: { target: "example.com:443", node_ids: ["n1"], callback_url: hook.url },
    });
    expect(other.body.data.callback_secret).not.toBe(secret);
    // Its own webhook arrives too, before the receiver closes: a delivery refused then would be retried for
    // 12 s, and the app's drain at the end of the file would wait for the retries.
    await until("the second task's webhook", () => hook.got.length === 2);
    expect(() =>
      new Webhook(other.body.data.callback_secret).verify(sent!.body, {
        "webhook-id": String(sent!.headers["webhook-id"]),
        "webhook-timestamp": String(sent!.headers["webhook-timestamp"]),
        "webhook-signature": String(sent!.headers["webhook-signature"]),
      }),
    ).toThrow();
    // Without callback_url there is no secret in the answer.
    const plain = await t.call("POST", "/v1/probe/tcp", {
      body: { target: "example.com:443", node_ids: ["n1"] },
    });
    expect(plain.body.data.callback_secret).toBeUndefined();
  });

  it("refuses a private callback_url unless private targets are allowed, and a non-http one", async () => {
    const t = await db.freshApp("a");
    serveNode(t.bus, { id: "n1" }, (job) => doneReply(job, 4));
    await settle();
    const body = (url: string) => ({ target: "example.com:443", node_ids: ["n1"], callback_url: url });
    const loopback = await t.call("POST", "/v1/probe/tcp", { body: body("http://127.0.0.1:9/hook") });
    expect(loopback.status).toBe(422);
    expect(loopback.body.error.code).toBe("target_not_allowed");
    const metadata = await t.call("POST", "/v1/probe/tcp", { body: body("http://169.254.169.254/latest") });
    expect(metadata.status).toBe(422);
    const ftp = await t.call("POST", "/v1/probe/tcp", { body: body("ftp://example.com/x") });
    expect(ftp.status).toBe(400);
    expect(ftp.body.error.details[0].path).toBe("body.callback_url");
  });
});
