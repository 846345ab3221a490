import { Agent, request } from "node:http";

export interface PacedAnswer {
  /** `data.task_id` of a 200 answer. */
  taskId: string;
  /** performance.now() when the whole answer had arrived. */
  at: number;
  /** Response time, ms. */
  latency: number;
}

export interface PacedLoad {
  readonly answers: PacedAnswer[];
  /** Requests sent so far. */
  readonly sent: number;
  /** Requests that failed at the socket (e.g. the server was killed) or answered other than 200. */
  readonly failed: number;
  /** Stops sending; requests already sent still settle. */
  halt(): void;
  /** Resolves once sending has stopped and every request sent has settled. */
  settled(): Promise<void>;
}

/**
 * An open-loop, paced POST load: request i leaves at start + i / rate whatever the answers do (a slow
 * answer does not delay the next request), over kept-alive node:http sockets (as many as are needed, up
 * to `maxSockets`). Bounded: stops by itself after `maxSeconds`. Every 200 answer's `data.task_id` is kept
 * with the time it arrived.
 */
export function pacedPosts(opts: {
  baseUrl: string;
  path: string;
  body: string;
  ratePerSecond: number;
  maxSeconds: number;
  maxSockets?: number;
}): PacedLoad {
  const base = new URL(opts.baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 64 });
  const headers = { "content-type": "application/json", "content-length": Buffer.byteLength(opts.body) };
  const answers: PacedAnswer[] = [];
  const limit = Math.ceil(opts.ratePerSecond * opts.maxSeconds);
  let sent = 0;
  let failed = 0;
  let outstanding = 0;
  let halted = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  const maybeDone = () => {
    if (halted && outstanding === 0) wake?.();
  };

  const send = () => {
    const start = performance.now();
    sent++;
    outstanding++;
    const settle = () => {
      outstanding--;
      maybeDone();
    };
    const req = request(
      { host: base.hostname, port: base.port, path: opts.path, method: "POST", agent, headers },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => {
          const at = performance.now();
          const taskId =
            res.statusCode === 200
              ? (JSON.parse(text) as { data?: { task_id?: string } }).data?.task_id
              : undefined;
          if (taskId) answers.push({ taskId, at, latency: at - start });
          else failed++;
          settle();
        });
        res.on("error", () => {
          failed++;
          settle();
        });
      },
    );
    req.on("error", () => {
      failed++;
      settle();
    });
    req.end(opts.body);
  };

  const t0 = performance.now();
  const tick = () => {
    if (halted) return;
    const due = Math.min(limit, Math.floor(((performance.now() - t0) * opts.ratePerSecond) / 1000) + 1);
    while (sent < due) send();
    if (sent >= limit) halt();
    else timer = setTimeout(tick, 1);
  };
  const halt = () => {
    halted = true;
    if (timer) clearTimeout(timer);
    maybeDone();
  };
  tick();

  return {
    answers,
    get sent() {
      return sent;
    },
    get failed() {
      return failed;
    },
    halt,
    async settled() {
      if (!(halted && outstanding === 0)) await new Promise<void>((r) => (wake = r));
      agent.destroy();
    },
  };
}
