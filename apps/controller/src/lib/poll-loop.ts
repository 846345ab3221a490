/**
 * The background loops' one shape (outbox, alerts, billing sweep, task sweeper, roll-ups): a round, then a
 * pause, then the next round. Rounds never overlap; the pause is counted from the end of a round and
 * jittered (±`jitter` of it) so the loops of several controllers drift apart instead of hitting the
 * database together; its timer is unref'd, so a loop never keeps a process alive; `stop()` ends the loop
 * and resolves once a round in progress has finished.
 */
export interface PollLoop {
  /** No round starts after this; resolves when the one running (if any) has ended. */
  stop(): Promise<void>;
  /**
   * A round now instead of after the pause: at once when the loop is pausing, right after the round in
   * progress when one is running (never two at a time; several wakes meanwhile make one round).
   */
  wake(): void;
}

export interface PollLoopOptions {
  /** One round. A rejection goes to `onError`; the loop goes on. */
  round(): Promise<unknown>;
  onError(err: unknown): void;
  /** The pause between rounds (ms), read again after every round. */
  everyMs: number | (() => number);
  /** The pause varies by ± this fraction of itself; default 0.1. */
  jitter?: number;
  /** Whether the first round runs at once (default) or after the first pause. */
  immediate?: boolean;
}

export function startPollLoop(opts: PollLoopOptions): PollLoop {
  const jitter = opts.jitter ?? 0.1;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let woken = false;

  const pause = () => {
    const base = typeof opts.everyMs === "function" ? opts.everyMs() : opts.everyMs;
    return Math.max(0, base * (1 + jitter * (2 * Math.random() - 1)));
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(run, pause());
    timer.unref();
  };
  const run = () => {
    timer = undefined;
    woken = false;
    if (stopped) return;
    running = (async () => {
      try {
        await opts.round();
      } catch (err) {
        try {
          opts.onError(err);
        } catch {
          // A failing error handler must not end the loop (nor the process).
        }
      }
    })().finally(() => {
      running = undefined;
      if (woken && !stopped) {
        woken = false;
        run();
      } else schedule();
    });
  };

  if (opts.immediate ?? true) run();
  else schedule();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
    },
    wake() {
      if (stopped) return;
      if (running) {
        woken = true;
        return;
      }
      if (timer) clearTimeout(timer);
      run();
    },
  };
}
