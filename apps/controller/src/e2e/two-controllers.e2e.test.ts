import { once } from "node:events";
import { createServer, type IncomingMessage, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkAnswer } from "../testing/test-app.js";
import { type Cluster, type Controller, startCluster } from "./cluster.js";
import { startTargets, type Targets } from "./targets.js";

/**
 * Two controllers (Form B, the default) on one PostgreSQL database and one NATS, behind one port: a
 * round-robin HTTP proxy in this file, which, like nginx's `proxy_next_upstream error`, passes a request
 * to the next controller when one refuses the connection, and names the controller that answered in a
 * header. Accounts, keys and finished tasks are shared through the database; a running Form B task is
 * known only to the controller running it; a killed controller leaves the proxy serving through the other.
 */
const agents = [
  { id: "tc-fra", country: "DE", region: "eu-central", provider: "hetzner" },
  { id: "tc-sfo", country: "US", region: "us-west", provider: "vultr" },
];
const ids = agents.map((a) => a.id);
const UPSTREAM = "x-test-upstream";

interface Proxy {
  url: string;
  close(): Promise<void>;
}

/** Round robin per request over `backends` (base URLs); a refused connection goes to the next one. */
async function startProxy(backends: string[]): Promise<Proxy> {
  let next = 0;
  const forward = (i: number, req: IncomingMessage, body: Buffer) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const to = new URL(backends[i]!);
      const out = request(
        {
          host: to.hostname,
          port: to.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
          agent: false,
        },
        resolve,
      );
      out.once("error", reject);
      out.end(body);
    });
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    for (let tried = 0; tried < backends.length; tried++) {
      const i = next++ % backends.length;
      try {
        const answer = await forward(i, req, body);
        res.writeHead(answer.statusCode ?? 502, { ...answer.headers, [UPSTREAM]: String(i) });
        answer.pipe(res);
        return;
      } catch {
        // Connection refused or reset before an answer: the next controller.
      }
    }
    res.writeHead(502).end();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

interface Call {
  status: number;
  upstream: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  body: any;
}

async function call(
  base: string,
  method: string,
  path: string,
  opts: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Call> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(opts.body === undefined ? {} : { "content-type": "application/json" }), ...opts.headers },
    ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
  });
  const text = await res.text();
  const json: unknown = text ? JSON.parse(text) : undefined;
  // Every controller behind the proxy serves Form B.
  if (json !== undefined) checkAnswer("b", method, path, res.status, json);
  return { status: res.status, upstream: res.headers.get(UPSTREAM), body: json };
}

/** Reads a POST stream until its `start` event; the rest of the stream is left to `rest`. */
async function startStream(url: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("event: start")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before its start event: ${text}`);
    text += value;
  }
  const taskId = /"task_id":"(task_[a-z0-9]+)"/.exec(text)?.[1];
  if (!taskId) throw new Error(`no task id in ${text}`);
  const rest = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return text;
      text += value;
    }
  })();
  return { taskId, rest };
}

describe("two controllers behind one port (real processes)", () => {
  let cluster: Cluster;
  let targets: Targets;
  let controllers: [Controller, Controller];
  let proxy: Proxy;
  let key: Record<string, string>;

  beforeAll(async () => {
    [cluster, targets] = await Promise.all([startCluster(agents), startTargets()]);
    const env = {
      VANTAGE_API_FORM: "b",
      VANTAGE_JWT_SECRET: "two-controllers-e2e-jwt-secret-0123456789",
      VANTAGE_REGISTER_LIMIT_IP: "0",
      VANTAGE_REGISTER_LIMIT_EMAIL: "0",
    };
    controllers = await Promise.all([cluster.startController(env), cluster.startController(env)]);
    await Promise.all(controllers.map((c) => cluster.waitForNodes(c.url, ids)));
    proxy = await startProxy(controllers.map((c) => c.url));
  }, 120_000);
  afterAll(async () => {
    await proxy?.close();
    await Promise.all((controllers ?? []).map((c) => c.stop()));
    await targets?.close();
    await cluster?.stop();
  });

  const tcp = () => ({ host: "127.0.0.1", port: targets.tcpPort, nodes: ids, timeout: 2 });

  it("an account registered through one controller is used through the other", async () => {
    const reg = await call(proxy.url, "POST", "/v1/auth/register", {
      body: { email: `two-controllers-${Date.now()}@example.com`, password: "correct horse battery" },
    });
    expect(reg.status).toBe(201);
    // Round robin: the next request goes to the other controller, with the first one's login session.
    const created = await call(proxy.url, "POST", "/v1/account/api-keys", {
      body: { name: "e2e" },
      headers: { authorization: `Bearer ${reg.body.data.access_token}` },
    });
    expect(created.status).toBe(201);
    expect(created.upstream).not.toBe(reg.upstream);
    key = { "x-api-key": created.body.data.key };
    const profiles = [
      await call(proxy.url, "GET", "/v1/account/profile", { headers: key }),
      await call(proxy.url, "GET", "/v1/account/profile", { headers: key }),
    ];
    expect(profiles.map((p) => p.status)).toEqual([200, 200]);
    expect(new Set(profiles.map((p) => p.upstream))).toEqual(new Set(["0", "1"]));
    expect(profiles[0]!.body.data).toEqual(profiles[1]!.body.data);
  });

  it("a probe answered by one controller is read back through the proxy from either", async () => {
    const created = await call(proxy.url, "POST", "/v1/probe/tcp", { body: tcp(), headers: key });
    expect(created.status).toBe(200);
    expect(created.body.data.status).toBe("done");
    const id = created.body.data.task_id as string;
    // At once: the other controller may find it only once the answering one's write lands, which a read
    // of a recent id waits for (up to 250 ms).
    const reads = [
      await call(proxy.url, "GET", `/v1/probe/tasks/${id}`, { headers: key }),
      await call(proxy.url, "GET", `/v1/probe/tasks/${id}`, { headers: key }),
    ];
    expect(new Set(reads.map((r) => r.upstream))).toEqual(new Set(["0", "1"]));
    for (const r of reads) {
      expect(r.status).toBe(200);
      expect(r.body.data.task_id).toBe(id);
      expect(r.body.data.status).toBe("done");
      expect(r.body.data.results).toEqual(created.body.data.results);
    }
  });

  it("a running Form B task: 404 for a read anywhere, its stream only on the controller running it", async () => {
    const [running, other] = controllers;
    const probe = { url: `${targets.httpUrl}/slow?ms=4000`, nodes: ids, timeout: 6 };
    const { taskId, rest } = await startStream(`${running.url}/v1/probe/http`, probe, key);
    // Form B stores a task when it finishes: until then a read is 404 on every controller (after the
    // short wait for a write in flight), and only the controller running it can follow it live.
    const during = [
      await call(other.url, "GET", `/v1/probe/tasks/${taskId}`, { headers: key }),
      await call(running.url, "GET", `/v1/probe/tasks/${taskId}`, { headers: key }),
      await call(other.url, "GET", `/v1/probe/tasks/${taskId}`, {
        headers: { ...key, accept: "text/event-stream" },
      }),
    ];
    for (const r of during) {
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe("not_found");
    }
    const followed = await fetch(`${running.url}/v1/probe/tasks/${taskId}`, {
      headers: { ...key, accept: "text/event-stream" },
    });
    expect(followed.status).toBe(200);
    const [streamed, followedText] = await Promise.all([rest, followed.text()]);
    expect(followedText).toMatch(/^event: start\ndata: \{[^\n]*"status":"running"/);
    for (const text of [streamed, followedText]) {
      expect(text).toContain("event: done");
      expect(text.match(/event: result/g)).toHaveLength(ids.length);
    }
    // Finished: stored, and read through the proxy from both controllers.
    for (let i = 0; i < 2; i++) {
      const r = await call(proxy.url, "GET", `/v1/probe/tasks/${taskId}`, { headers: key });
      expect(r.status).toBe(200);
      expect(r.body.data.status).toBe("done");
      expect(r.body.data.results).toHaveLength(ids.length);
    }
  }, 30_000);

  it("one controller killed: the proxy serves every request through the other", async () => {
    const before = await call(proxy.url, "POST", "/v1/probe/tcp", { body: tcp(), headers: key });
    expect(before.status).toBe(200);
    await controllers[0].kill("SIGKILL");
    const answers: Call[] = [];
    for (let i = 0; i < 6; i++) {
      answers.push(await call(proxy.url, "POST", "/v1/probe/tcp", { body: tcp(), headers: key }));
      answers.push(
        await call(proxy.url, "GET", `/v1/probe/tasks/${before.body.data.task_id}`, { headers: key }),
      );
    }
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.upstream).toBe("1");
      expect(a.body.data.status).toBe("done");
    }
    for (const a of answers.filter((_, i) => i % 2 === 0))
      expect(a.body.data.results.every((r: { success: boolean }) => r.success)).toBe(true);
  });
});
