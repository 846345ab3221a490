import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Piscina } from "piscina";
import { ApiError } from "../../http/errors.js";

/** bcrypt cost factor (2^10 rounds, ≈ 50–80 ms of CPU here): the floor OWASP accepts for bcrypt. */
export const BCRYPT_COST = 10;

/**
 * A hash of a password nobody has, at `BCRYPT_COST`: a login for an unknown email is compared with it, so it
 * costs the same bcrypt work as a wrong password. Fixed, so the first such login does not pay for making it.
 */
export const DUMMY_HASH = "$2b$10$fTRiv6xulKLPUfP7oLEszeH37xCKBXFw8O36rsxno2KX0sv2a5fFq";

/** Seconds a caller refused for a full queue is asked to wait: the queue drains in about that. */
const BUSY_RETRY_AFTER_S = 1;

/** bcrypt off the event loop: a few worker threads, a bounded queue in front of them. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  compare(password: string, hash: string): Promise<boolean>;
  /** Compares with a hash of a password nobody has, at this pool's cost: the work a wrong password costs. */
  compareUnknown(password: string): Promise<boolean>;
  /** Lets running work finish, stops the threads; later calls are refused (503). For shutdown. */
  close(): Promise<void>;
}

export interface PasswordHasherOptions {
  cost?: number;
  /** Worker threads: default one per core but one, at least one (the event loop keeps a core). */
  threads?: number;
  /** Operations that may wait for a thread; one more is refused with 503. Default 32 per thread. */
  maxQueue?: number;
  /** A thread idle this long exits; the next operation starts one (≈ 30 ms). Default 60 s. */
  idleTimeoutMs?: number;
}

export function defaultHasherThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

function busy(message: string): ApiError {
  return new ApiError("unavailable", message, undefined, { "Retry-After": String(BUSY_RETRY_AFTER_S) });
}

/**
 * The pool behind register and login. bcrypt is CPU work by design (50–80 ms an operation at cost 10); on
 * the event loop it held every other request behind it. Here it runs in worker threads (piscina), started
 * when first needed and ended when idle, so an application that never checks a password starts none.
 *
 * The queue is bounded: operations beyond `threads + maxQueue` in flight are refused at once with 503
 * `unavailable` and `Retry-After`, so a flood of logins cannot grow memory or latency without bound. The
 * threads run at a lower priority than the event loop (`niceIncrement`, Linux), so a queue of hashes slows
 * other logins, not every other request.
 */
export function createPasswordHasher(opts: PasswordHasherOptions = {}): PasswordHasher {
  const cost = opts.cost ?? BCRYPT_COST;
  const threads = Math.max(1, opts.threads ?? defaultHasherThreads());
  const capacity = threads + (opts.maxQueue ?? 32 * threads);
  let pool: Piscina | undefined;
  // The fixed dummy at the default cost; at another cost one is made on first use.
  let dummy: Promise<string> | undefined = cost === BCRYPT_COST ? Promise.resolve(DUMMY_HASH) : undefined;
  let inFlight = 0;
  let closed = false;

  function open(): Piscina {
    pool ??= new Piscina({
      filename: fileURLToPath(new URL("./password-worker.mjs", import.meta.url)),
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: opts.idleTimeoutMs ?? 60_000,
      // The worker is plain JavaScript: it needs none of the parent's flags (tsx's loader among them).
      execArgv: [],
      niceIncrement: 5,
    });
    return pool;
  }

  async function run<T>(task: Record<string, unknown>): Promise<T> {
    if (closed) throw busy("the server is shutting down; retry shortly");
    if (inFlight >= capacity) throw busy("too many password checks in progress; retry shortly");
    inFlight++;
    try {
      return (await open().run(task)) as T;
    } finally {
      inFlight--;
    }
  }

  return {
    hash: (password) => run<string>({ op: "hash", password, cost }),
    compare: (password, hash) => run<boolean>({ op: "compare", password, hash }),
    async compareUnknown(password) {
      dummy ??= run<string>({ op: "hash", password: "a password nobody has", cost });
      return run<boolean>({ op: "compare", password, hash: await dummy });
    },
    async close() {
      closed = true;
      await pool?.close();
      pool = undefined;
    },
  };
}
