import { connect } from "node:net";
import { createControllerCredentials } from "@vantage/nats-auth";
import { createTestDatabase, freePort, startNatsServer, type TestDatabase } from "@vantage/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exitOf, seedFile, startController, startListening } from "./testing/controller-process.js";

/** A controller listening on a port of its own, with its exit (code and stderr) already being watched. */
async function listeningController(env: Record<string, string>) {
  const { child, port, log } = await startListening(env, 30_000);
  const exited = exitOf(child);
  return { port, child, exited, log };
}

/** A raw TCP connection whose received bytes accumulate in `received()`. */
async function rawConnection(port: number) {
  const socket = connect({ port, host: "127.0.0.1" });
  await new Promise((r) => socket.once("connect", r));
  let response = "";
  socket.on("data", (d: Buffer) => {
    response += d.toString();
  });
  return { socket, received: () => response };
}

describe("controller process", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it("stops at start-up with one clear line naming a bad variable (exit 2)", async () => {
    const child = startController({ PORT: "not-a-port", DATABASE_URL: db.url });
    const { code, stderr } = await exitOf(child);
    expect(code).toBe(2);
    const lines = stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/PORT/);
    const child2 = startController({ VANTAGE_API_FORM: "c", DATABASE_URL: db.url });
    const second = await exitOf(child2);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/VANTAGE_API_FORM/);
  });

  it("stops with one clear line (exit 2) when NATS refuses its credentials", async () => {
    const nats = await startNatsServer({ users: [createControllerCredentials().user] });
    const seed = seedFile(createControllerCredentials().seed);
    try {
      const child = startController({
        DATABASE_URL: db.url,
        NATS_URL: nats.url,
        NATS_NKEY_SEED_FILE: seed.path,
      });
      const { code, stderr } = await exitOf(child);
      expect(code).toBe(2);
      expect(stderr.trim().split("\n")).toHaveLength(1);
      expect(stderr).toContain("NATS refused the controller's credentials");
    } finally {
      seed.remove();
      await nats.stop();
    }
  });

  it("stops with one clear line naming the cause (exit 1, so a unit restarts it) when the database cannot be reached", async () => {
    // Nothing listens on the port: the connection is refused. (A name that does not resolve says EAI_AGAIN
    // or ENOTFOUND in the same place: database-host.e2e.test.ts covers names, in a namespace.)
    const closed = await freePort();
    const child = startController({
      DATABASE_URL: `postgres://postgres:secret@127.0.0.1:${closed}/postgres`,
    });
    const { code, stderr } = await exitOf(child);
    expect(code).toBe(1);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toContain("failed to start: the database cannot be reached (ECONNREFUSED");
    expect(stderr).toContain(`127.0.0.1:${closed}`);
    expect(stderr).not.toContain("secret");
  });

  it("accepts a POST without a body, Content-Length or Content-Type (as curl -X POST sends it)", async () => {
    const { port, child, exited } = await listeningController({ DATABASE_URL: db.url });
    const { socket, received } = await rawConnection(port);
    socket.write("POST /v1/auth/logout HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    await new Promise((r) => socket.once("close", r));
    // Logout without credentials: the auth check answers, not the body guard.
    expect(received()).toMatch(/^HTTP\/1\.1 401/);
    expect(received()).toContain('"unauthorized"');
    child.kill("SIGTERM");
    expect((await exited).code).toBe(0);
  });

  it("answers requests Node's parser refuses (unknown method, bad header) with the error envelope", async () => {
    const { port, child, exited } = await listeningController({ DATABASE_URL: db.url });
    for (const raw of [
      "FOO /v1/nodes HTTP/1.1\r\nHost: x\r\n\r\n",
      "GET /v1/nodes HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n",
    ]) {
      const { socket, received } = await rawConnection(port);
      socket.write(raw);
      await new Promise((r) => socket.once("close", r));
      const [head = "", body = ""] = received().split("\r\n\r\n");
      expect(head).toMatch(/^HTTP\/1\.1 400 /);
      expect(head).toMatch(/\r\nX-Request-Id: req_/);
      const parsed = JSON.parse(body);
      expect(parsed.error.code).toBe("malformed_request");
      expect(head).toContain(`X-Request-Id: ${parsed.request_id}`);
    }
    const { socket, received } = await rawConnection(port);
    socket.write(`GET /v1/nodes HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
    await new Promise((r) => socket.once("close", r));
    expect(received()).toMatch(/^HTTP\/1\.1 431 /);
    expect(received()).toContain('"headers_too_large"');
    child.kill("SIGTERM");
    expect((await exited).code).toBe(0);
  });

  it("writes one JSON access-log line per request, with the request id it answered", async () => {
    const { port, child, exited, log } = await listeningController({ DATABASE_URL: db.url });
    const res = await fetch(`http://127.0.0.1:${port}/v1/nope?x="1"`, {
      headers: { "x-request-id": "trace-42" },
    });
    expect(res.status).toBe(404);
    expect(res.headers.get("x-request-id")).toBe("trace-42");
    child.kill("SIGTERM");
    expect((await exited).code).toBe(0);
    const access = log.lines.filter((l) => l.msg === "request");
    expect(access).toHaveLength(1);
    expect(access[0]).toMatchObject({
      level: 30,
      name: "vantage-controller",
      pid: child.pid,
      request_id: "trace-42",
      method: "GET",
      path: "/v1/nope",
      status: 404,
    });
    expect(typeof access[0]!.ms).toBe("number");
    expect(new Date(String(access[0]!.time)).toISOString()).toBe(access[0]!.time);
  });

  it("on SIGTERM finishes the request in flight, then exits 0", async () => {
    const { port, child, exited } = await listeningController({ DATABASE_URL: db.url });

    // A request whose body is still arriving when the signal comes.
    const { socket, received } = await rawConnection(port);
    const body = JSON.stringify({ hello: "world" });
    socket.write(
      `POST /v1/nodes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    socket.write(body.slice(0, 5));
    await new Promise((r) => setTimeout(r, 200));
    child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 300));
    expect(child.exitCode).toBeNull(); // still draining
    socket.write(body.slice(5));
    const { code } = await exited;
    expect(code).toBe(0);
    expect(received()).toMatch(/^HTTP\/1\.1 405/);
    expect(received()).toContain('"method_not_allowed"');
    socket.destroy();
  });
});
