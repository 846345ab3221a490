import net from "node:net";
import { describeNetError } from "@vantage/probes/net-error";
import { resolveTarget } from "../net/resolve-target.js";
import { type LookupContext, LookupError } from "../types.js";

/** Longest answer read: the biggest registry records are a few KiB; more is a server gone wrong. */
export const MAX_ANSWER_BYTES = 64 * 1024;

export interface ServerAddress {
  host: string;
  port: number;
  /** `host:port` (`[v6]:port`), as the result's `server` names it. */
  label: string;
}

/** `host`, `host:port`, `[v6]:port` or a bare IPv6 literal; port 43 unless given. Null when malformed. */
export function parseServerAddress(text: string): ServerAddress | null {
  const s = text.trim().toLowerCase();
  const m = /^(?:\[([0-9a-f:.]+)\]|([^\s:[\]/]+))(?::(\d{1,5}))?$/.exec(s);
  let host: string | undefined;
  let port = 43;
  if (m) {
    host = m[1] ?? m[2];
    if (m[3] !== undefined) port = Number(m[3]);
  } else if (net.isIPv6(s)) {
    host = s;
  }
  if (host === undefined || host === "" || port < 1 || port > 65535) return null;
  const shown = host.includes(":") ? `[${host}]` : host;
  return { host, port, label: `${shown}:${port}` };
}

/**
 * Sends `query` (CRLF added) to a port-43 server and reads its answer to the end, decoded as UTF-8 (JPRS
 * and CNNIC answer in UTF-8; Latin-1 registries lose accents only). The host goes through the target guard
 * and the socket is pinned to the address checked. Rejects with LookupError only: `target_not_allowed`,
 * `upstream_timeout` (`signal` aborted), `upstream_error` (cannot resolve, refused, reset, over 64 KiB).
 */
export async function queryPort43(
  server: ServerAddress,
  query: string,
  ctx: Pick<LookupContext, "allowPrivate" | "lookup">,
  signal: AbortSignal,
): Promise<string> {
  const { address, family } = await resolveTarget(server.host, ctx, signal, {
    subject: `WHOIS server ${server.label}`,
    refusedPrefix: "WHOIS server refused: ",
    timeout: () => timeoutError(server),
  });
  if (signal.aborted) throw timeoutError(server);
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const socket = net.connect({ host: address, port: server.port, family });
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      socket.destroy();
      outcome();
    };
    const onAbort = () => finish(() => reject(timeoutError(server)));
    signal.addEventListener("abort", onAbort, { once: true });
    socket.on("connect", () => socket.write(`${query}\r\n`));
    socket.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) {
        // A cut record could pass for one without the fields cut off: an error, not a partial answer.
        finish(() =>
          reject(new LookupError("upstream_error", `WHOIS server ${server.label}: answer over 64 KiB`)),
        );
        return;
      }
      chunks.push(chunk);
    });
    socket.on("end", () => finish(() => resolve(new TextDecoder("utf-8").decode(Buffer.concat(chunks)))));
    socket.on("error", (error: NodeJS.ErrnoException) =>
      finish(() =>
        reject(
          new LookupError(
            "upstream_error",
            `WHOIS server ${server.label}: ${describeNetError(error)?.message ?? error.code ?? error.message}`,
          ),
        ),
      ),
    );
  });
}

function timeoutError(server: ServerAddress): LookupError {
  return new LookupError("upstream_timeout", `no answer from WHOIS server ${server.label} in time`);
}
