import { connect } from "node:net";
import { elapsedMs, now } from "./clock.js";
import { onAbort, settle } from "./outcome.js";
import { ProbeFailure, toProbeFailure } from "./probe-failure.js";
import { type TcpParams, tcpParamsSchema } from "./probe-params.js";
import type { TcpResult } from "./probe-results.js";
import { resolveAndCheck } from "./target-guard.js";
import type { Probe } from "./types.js";

/** TCP connect time to host:port: the three-way handshake only, nothing is sent. */
export const tcpProbe: Probe<"tcp"> = {
  type: "tcp",
  paramsSchema: tcpParamsSchema,
  run: (params, ctx) =>
    settle<"tcp">(async () => {
      // The lookup gets the probe's own timeout_ms and stops on abort: a hung resolver is a timeout.
      const lookupStarted = now();
      const target = await resolveAndCheck(params.host, {
        allowPrivate: ctx.allowPrivate,
        family: params.ip_version,
        timeoutMs: params.timeout_ms,
        signal: ctx.signal,
        lookup: ctx.lookup,
      });
      // timeout_ms covers the whole probe: the connect gets what the lookup left of it.
      const left = Math.max(1, Math.round(params.timeout_ms - elapsedMs(lookupStarted)));
      const connect_ms = await timeConnect(target.address, target.family, params, left, ctx.signal);
      const detail: TcpResult = { resolved_ip: target.address, port: params.port, connect_ms };
      return { detail, latency_ms: connect_ms };
    }),
};

function timeConnect(
  address: string,
  family: 4 | 6,
  params: TcpParams,
  waitMs: number,
  signal?: AbortSignal,
): Promise<number> {
  const failed: TcpResult = { resolved_ip: address, port: params.port, connect_ms: null };
  return new Promise((resolve, reject) => {
    const started = now();
    // The IP is already checked and pinned: passing it as host means Node does no lookup of its own.
    const socket = connect({ host: address, port: params.port, family });
    const finish = (error: ProbeFailure | null): void => {
      clearTimeout(timer);
      removeAbort();
      socket.destroy();
      if (error) reject(error);
    };
    const timer = setTimeout(
      () =>
        finish(
          new ProbeFailure(
            "timeout",
            `no answer from ${address}:${params.port} within ${params.timeout_ms} ms`,
            failed,
          ),
        ),
      waitMs,
    );
    const removeAbort = onAbort(signal, () => finish(new ProbeFailure("timeout", "aborted", failed)));
    socket.once("connect", () => {
      const ms = elapsedMs(started);
      finish(null);
      resolve(ms);
    });
    // `on`, not `once`: a second error with no listener would be thrown, and end the process.
    socket.on("error", (error) => finish(toProbeFailure(error, failed)));
  });
}
