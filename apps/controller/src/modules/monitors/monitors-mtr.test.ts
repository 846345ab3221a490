import { describe, expect, it } from "vitest";
import { newUser } from "../../testing/accounts.js";
import { forms } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import type { NodeResult } from "../probes/index.js";
import { probeBodyOf } from "./config.js";
import { nodeFailure } from "./evaluate.js";
import { createBody, useMonitorsApi } from "./testing/monitors-api.js";

/** mtr as a monitor type: its config in both forms, the probe it runs, and how a run is judged. */
describe.each(forms)("mtr monitors, form %s", (form) => {
  const db = useTestDb("pglite");
  const api = useMonitorsApi(db, form);

  it("creates one with its defaults shown, and refuses bad settings on their paths", async () => {
    const u = await newUser(api.t);
    const created = await api.create(
      u,
      createBody(form, "mtr", "example.com", { config: { mode: "tcp", port: 443 } }),
    );
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({
      type: "mtr",
      config: { mode: "tcp", port: 443, rounds: 5, max_hops: 30, max_loss_percent: 0 },
    });
    if (form === "b") expect(created.body.data.host).toBe("example.com");
    for (const [config, path] of [
      [{ rounds: 101 }, "body.config.rounds"],
      [{ mode: "sctp" }, "body.config.mode"],
      [{ max_loss_percent: 101 }, "body.config.max_loss_percent"],
      [{ hops: 3 }, "body.config.hops"],
    ] as const) {
      const res = await api.create(u, createBody(form, "mtr", "example.com", { config }));
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.details[0].path).toBe(path);
    }
  });
});

describe("mtr monitor runs", () => {
  const result = (detail: Record<string, unknown>): NodeResult => ({
    node_id: "n1",
    node_name: "n1",
    position: 0,
    success: true,
    latency_ms: 1,
    error: null,
    detail,
    duration_ms: 1,
  });

  it("run the probe's settings, without the judging ones", () => {
    const body = probeBodyOf({ type: "mtr", target: "example.com", config: { max_loss_percent: 20 } });
    expect(body).toEqual({ target: "example.com", params: { mode: "icmp", rounds: 5, max_hops: 30 } });
  });

  it("fail when the target is not reached or its loss is above max_loss_percent", () => {
    const hops = (loss: number) => [
      { hop: 1, loss_pct: 0 },
      { hop: 2, loss_pct: loss },
    ];
    expect(nodeFailure("mtr", {}, result({ reached: true, hops: hops(0) }))).toBeNull();
    expect(nodeFailure("mtr", {}, result({ reached: false, hops: hops(0) }))).toBe("not_reached");
    expect(nodeFailure("mtr", {}, result({ reached: true, hops: hops(20) }))).toBe("packet_loss");
    expect(
      nodeFailure("mtr", { max_loss_percent: 20 }, result({ reached: true, hops: hops(20) })),
    ).toBeNull();
  });
});
