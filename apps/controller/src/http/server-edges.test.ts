import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardServerEdges, originFormOnly } from "./server-edges.js";

/** Requests Node's HTTP server answers before the application, through a real server on loopback. */
let server: Server;
let port: number;

beforeAll(async () => {
  // Short header and request timeouts, checked often, so the 408 case takes a moment, not a minute.
  server = createServer(
    { headersTimeout: 300, requestTimeout: 300, connectionsCheckingInterval: 50 },
    originFormOnly((_req, res) => res.writeHead(200, { "content-length": "3" }).end("app")),
  );
  guardServerEdges(server, pino({ level: "silent" }));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/** Sends raw bytes; resolves with what came back once the server closes, or after `waitMs`. */
function exchange(raw: string, waitMs = 3000): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1" });
    let received = "";
    socket.on("data", (d: Buffer) => {
      received += d.toString();
    });
    socket.on("error", reject);
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      const [head = "", body = ""] = received.split("\r\n\r\n");
      resolve({ status: Number(head.split(" ")[1]), head, body });
    };
    const timer = setTimeout(done, waitMs);
    socket.on("close", done);
    socket.write(raw);
  });
}

function envelope(body: string): { code: string; message: string; requestId: string } {
  const parsed = JSON.parse(body) as { error: { code: string; message: string }; request_id: string };
  return { ...parsed.error, requestId: parsed.request_id };
}

describe("server edges", () => {
  it.each([
    ["an unknown method", "FOO /v1/nodes HTTP/1.1\r\nHost: x\r\n\r\n", 400, "malformed_request"],
    [
      "a malformed header line",
      "GET / HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n",
      400,
      "malformed_request",
    ],
    [
      "headers over the limit",
      `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
      431,
      "headers_too_large",
    ],
    ["headers that never finish", "GET / HTTP/1.1\r\nHost: x\r\nX-Partial: a", 408, "request_timeout"],
    [
      "an Expect other than 100-continue",
      "GET / HTTP/1.1\r\nHost: x\r\nExpect: bogus\r\n\r\n",
      417,
      "expectation_failed",
    ],
    ["CONNECT", "CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n", 405, "method_not_allowed"],
    ["OPTIONS *", "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 400, "malformed_request"],
    [
      "a target that is no path",
      "GET x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
      400,
      "malformed_request",
    ],
  ])("%s: answered in the envelope, with a request id", async (_what, raw, status, code) => {
    const res = await exchange(raw);
    expect(res.status).toBe(status);
    const e = envelope(res.body);
    expect(e.code).toBe(code);
    expect(e.requestId).toMatch(/^req_/);
    expect(res.head).toContain(`X-Request-Id: ${e.requestId}`);
    expect(res.head).toMatch(/Content-Type: application\/json/i);
  });

  it.each([
    ["a path", "/v1/nodes"],
    ["an absolute URL (which HTTP/1.1 servers must accept)", "http://x/v1/nodes"],
  ])("a request whose target is %s reaches the application", async (_what, target) => {
    const res = await exchange(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(200);
    expect(res.body).toBe("app");
  });
});
