import { describe, expect, it } from "vitest";
import { startPollLoop } from "./poll-loop.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("startPollLoop", () => {
  it("runs a round at once, then again after each pause, never two at a time", async () => {
    let inRound = 0;
    let most = 0;
    let rounds = 0;
    const loop = startPollLoop({
      everyMs: 5,
      onError: () => {},
      async round() {
        inRound++;
        most = Math.max(most, inRound);
        rounds++;
        await sleep(20);
        inRound--;
      },
    });
    expect(rounds).toBe(1);
    await sleep(200);
    await loop.stop();
    expect(rounds).toBeGreaterThanOrEqual(3);
    expect(most).toBe(1);
  });

  it("goes on after a failed round (and a failing error handler), giving each error to onError", async () => {
    const errors: unknown[] = [];
    let rounds = 0;
    const loop = startPollLoop({
      everyMs: 1,
      onError: (err) => {
        errors.push(err);
        throw new Error("the handler fails too");
      },
      async round() {
        rounds++;
        throw new Error(`round ${rounds}`);
      },
    });
    await sleep(100);
    await loop.stop();
    expect(rounds).toBeGreaterThanOrEqual(3);
    expect(errors.length).toBe(rounds);
    expect((errors[0] as Error).message).toBe("round 1");
  });

  it("stop() waits for the round in progress and no round starts after it", async () => {
    let finished = false;
    let rounds = 0;
    const loop = startPollLoop({
      everyMs: 1,
      onError: () => {},
      async round() {
        rounds++;
        await sleep(50);
        finished = true;
      },
    });
    await loop.stop();
    expect(finished).toBe(true);
    const after = rounds;
    await sleep(30);
    expect(rounds).toBe(after);
  });

  it("with immediate: false waits one pause first; the pause is read again each round", async () => {
    let rounds = 0;
    let asked = 0;
    const loop = startPollLoop({
      everyMs: () => {
        asked++;
        return 10;
      },
      jitter: 0,
      immediate: false,
      onError: () => {},
      async round() {
        rounds++;
      },
    });
    expect(rounds).toBe(0);
    await sleep(120);
    await loop.stop();
    expect(rounds).toBeGreaterThanOrEqual(2);
    expect(asked).toBeGreaterThanOrEqual(rounds);
  });

  it("wake() runs a round at once while pausing, and once more after a round in progress, never two at a time", async () => {
    let rounds = 0;
    let inRound = 0;
    let most = 0;
    let release: (() => void) | undefined;
    const loop = startPollLoop({
      everyMs: 60_000,
      immediate: false,
      onError: () => {},
      async round() {
        rounds++;
        inRound++;
        most = Math.max(most, inRound);
        await new Promise<void>((r) => {
          release = r;
        });
        inRound--;
      },
    });
    expect(rounds).toBe(0);
    loop.wake();
    expect(rounds).toBe(1);
    // Three wakes during the round make one more round, right after it, not three and not beside it.
    loop.wake();
    loop.wake();
    loop.wake();
    expect(rounds).toBe(1);
    release?.();
    await sleep(10);
    expect(rounds).toBe(2);
    release?.();
    await sleep(30);
    expect(rounds).toBe(2);
    expect(most).toBe(1);
    await loop.stop();
    loop.wake();
    await sleep(10);
    expect(rounds).toBe(2);
  });
});
