import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { useReceiver } from "../testing/channels.js";
import { SendError, sendHttp } from "./send.js";
import type { OutgoingRequest } from "./types.js";

const receiver = useReceiver();
const post = (url: string): Extract<OutgoingRequest, { kind: "http" }> => ({
  kind: "http",
  url,
  method: "POST",
  headers: { "content-type": "application/json" },
  body: '{"a":1}',
});

async function listening(server: Server): Promise<Server> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

async function failure(promise: Promise<unknown>): Promise<SendError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SendError) return error;
    throw error;
  }
  throw new Error("expected a SendError");
}

describe("sendHttp", () => {
  it("POSTs through the guarded client with allowPrivate, returning status and body", async () => {
    receiver.answer(202, "accepted");
    const res = await sendHttp(post(`${receiver.base}/in?key=secret`), {
      allowPrivate: true,
      timeoutMs: 2000,
    });
    expect(res).toEqual({ status: 202, body: "accepted" });
    const [req] = receiver.received;
    expect(req).toMatchObject({ method: "POST", url: "/in?key=secret", body: '{"a":1}' });
    expect(req?.headers["user-agent"]).toBe("vantage-alerts/1");
    expect(req?.headers["content-type"]).toBe("application/json");
  });

  it("refuses loopback, literal or behind a name, without allowPrivate, and names only the host", async () => {
    const literal = await failure(
      sendHttp(post(`${receiver.base}/in?key=secret`), { allowPrivate: false, timeoutMs: 2000 }),
    );
    expect(literal.code).toBe("target_not_allowed");
    expect(literal.retry).toBe(false);
    expect(literal.message).not.toContain("secret");
    const port = new URL(receiver.base).port;
    const named = await failure(
      sendHttp(post(`http://hooks.example.test:${port}/in`), {
        allowPrivate: false,
        timeoutMs: 2000,
        lookup: async () => [{ address: "127.0.0.1", family: 4 }],
      }),
    );
    expect(named.code).toBe("target_not_allowed");
    const metadata = await failure(
      sendHttp(post("http://169.254.169.254/latest"), { allowPrivate: false, timeoutMs: 2000 }),
    );
    expect(metadata.code).toBe("target_not_allowed");
    expect(receiver.received).toHaveLength(0);
  });

  it("keeps the first 64 KiB of an answer, and answers a redirect without following it", async () => {
    receiver.answer(500, "x".repeat(100_000));
    const big = await sendHttp(post(`${receiver.base}/big`), { allowPrivate: true, timeoutMs: 2000 });
    expect(big.status).toBe(500);
    expect(big.body.length).toBe(64 * 1024);
    receiver.answer(302, "", { location: "/elsewhere" });
    const moved = await sendHttp(post(`${receiver.base}/moved`), { allowPrivate: true, timeoutMs: 2000 });
    expect(moved.status).toBe(302);
    expect(receiver.received.map((r) => r.url)).toEqual(["/big", "/moved"]);
  });

  it("a refused connection and a timeout are retryable SendErrors without the URL's token", async () => {
    const closed = await listening(createServer());
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await failure(
      sendHttp(post(`http://127.0.0.1:${closedPort}/hook?key=secret`), {
        allowPrivate: true,
        timeoutMs: 2000,
      }),
    );
    expect(refused).toMatchObject({ code: "network", retry: true });
    expect(refused.message).toContain(`127.0.0.1:${closedPort}`);
    expect(refused.message).toContain("ECONNREFUSED");
    expect(refused.message).not.toContain("secret");

    const silent = await listening(createServer((s) => s.on("error", () => {}))); // accepts, never answers
    try {
      const started = performance.now();
      const timedOut = await failure(
        sendHttp(post(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/hook`), {
          allowPrivate: true,
          timeoutMs: 200,
        }),
      );
      expect(timedOut).toMatchObject({ code: "timeout", retry: true });
      expect(performance.now() - started).toBeLessThan(2000);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
