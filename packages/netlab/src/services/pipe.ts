import type { Socket } from "node:net";

/** Joins two connections both ways; either side's end or error closes both. */
export function joinSockets(inbound: Socket, outbound: Socket): void {
  inbound.pipe(outbound).pipe(inbound);
  const close = (): void => {
    inbound.destroy();
    outbound.destroy();
  };
  inbound.on("error", close).on("close", close);
  outbound.on("error", close).on("close", close);
}
