import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import type { Logger } from "pino";
import type { Db } from "./connect.js";

/**
 * How long an unrenewed lease counts as alive by default (`VANTAGE_CONTROLLER_LEASE_MS`); a controller
 * renews its own every quarter of that.
 */
export const LEASE_TTL_MS = 20_000;

/** How often a controller renews a lease that lives `ttlMs`: four times per lifetime. */
export const leaseRenewMs = (ttlMs: number): number => Math.round(ttlMs / 4);

/** A fresh controller instance id (`ctl_…`): one per process start. */
export function newInstanceId(): string {
  return `ctl_${Date.now().toString(36)}${randomBytes(6).toString("hex")}`;
}

export interface Lease {
  stop(): Promise<void>;
}

/**
 * The process's lease in `controller_leases`: renewed every quarter of `ttlMs` (5 s of the default
 * 20 s), and every second while the database is away, so it is fresh again moments after it returns.
 * Tasks a controller runs carry its id; the sweeper leaves them alone while the lease is fresh, and fails
 * them once it has run out past their deadline (the controller died mid-task). Stopping deletes the row:
 * a controller that stops cleanly has finished its tasks (it drains them first).
 */
export function startLease(db: Db, id: string, log: Logger, ttlMs = LEASE_TTL_MS): Lease {
  const renewMs = leaseRenewMs(ttlMs);
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let failing = false;
  let running: Promise<void> = Promise.resolve();
  const renew = async () => {
    try {
      await sql`
        insert into controller_leases (id, renewed_at) values (${id}, now())
        on conflict (id) do update set renewed_at = now()`.execute(db.kysely);
      if (failing) log.info({ controller_id: id }, "controller lease renewed again");
      failing = false;
    } catch (err) {
      if (!failing)
        log.warn({ err, controller_id: id }, "controller lease not renewed; retrying every second");
      failing = true;
    }
    if (!stopped) {
      timer = setTimeout(
        () => {
          running = renew();
        },
        failing ? Math.min(1000, renewMs) : renewMs,
      );
      timer.unref();
    }
  };
  running = renew();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await db.kysely
        .deleteFrom("controller_leases")
        .where("id", "=", id)
        .execute()
        .catch(() => {});
    },
  };
}
