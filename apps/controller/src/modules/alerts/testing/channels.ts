import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { sendHttp } from "../channels/send.js";
import type {
  AlertChannel,
  AlertMessage,
  ChannelContext,
  OutgoingRequest,
  Verdict,
} from "../channels/types.js";

/** One request as a receiver saw it. */
export interface Received {
  method: string;
  /** Path and query. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A vendor stand-in on 127.0.0.1 (random port) for one test file: keeps every request, answers with what
 * the test set (`answer`), 200 `ok` after each test's reset.
 */
export function useReceiver() {
  let server: Server;
  const state = {
    base: "",
    received: [] as Received[],
    reply: { status: 200, body: "ok", headers: {} as Record<string, string> },
    /** The next answers: status, body and headers besides `content-type: text/plain`. */
    answer(status: number, body: string, headers: Record<string, string> = {}) {
      state.reply = { status, body, headers };
    },
  };
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        state.received.push({
          method: req.method ?? "",
          url: req.url ?? "",
          headers: req.headers,
          body: Buffer.concat(chunks).toString("utf8"),
        });
        const { status, body, headers } = state.reply;
        res.writeHead(status, { "content-type": "text/plain", ...headers }).end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    state.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    state.received.length = 0;
    state.answer(200, "ok");
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return state;
}

/** A fixed clock (close to real time: Standard Webhooks verification checks it) and loopback vendors. */
export function testContext(base: string, now = Date.now()): ChannelContext {
  return {
    now: () => now,
    pagerdutyUrl: `${base}/v2/enqueue`,
    smsBaseUrl: base,
    randomId: () => "rnd_1",
  };
}

/** Builds, sends every request to the loopback receiver and judges each answer. */
export async function deliver<C>(
  channel: AlertChannel<C>,
  message: AlertMessage,
  config: C,
  ctx: ChannelContext,
): Promise<{ requests: OutgoingRequest[]; verdicts: Verdict[] }> {
  const requests = channel.build(message, channel.configSchema.parse(config), ctx);
  const verdicts: Verdict[] = [];
  for (const req of requests) {
    if (req.kind !== "http") throw new Error(`${channel.type} built a ${req.kind} request`);
    const res = await sendHttp(req, { allowPrivate: true, timeoutMs: 5000 });
    verdicts.push(channel.judge(res.status, res.body));
  }
  return { requests, verdicts };
}

const occurred_at = "2026-07-01T12:34:56.000Z";
const monitor = {
  id: "mon_01J0ABC",
  name: "Shop API",
  type: "http",
  target: "https://shop.example.com/health",
};

/** One message of each kind, English unless a locale is given. */
export function sampleMessage(
  kind: AlertMessage["kind"],
  locale: AlertMessage["locale"] = "en",
): AlertMessage {
  if (kind === "test") return { kind, event_id: "evt_test1", monitor: null, occurred_at, locale };
  return {
    kind,
    event_id: `evt_${kind}1`,
    monitor: { ...monitor },
    occurred_at,
    error: kind === "up" ? null : "connection refused",
    nodes:
      kind === "up"
        ? []
        : [
            { node_id: "node-fra", error_code: "connection_refused" },
            { node_id: "node-sin", error_code: null },
          ],
    locale,
    dashboard_url: `https://vantage.example.com/monitors/${monitor.id}`,
  };
}
