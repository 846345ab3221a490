import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import type { Logger } from "pino";
import type { Db } from "./connect.js";

/** How often a controller renews its lease, and how long an unrenewed lease counts as alive. */
export const LEASE_RENEW_MS = 5000;
export const LEASE_TTL_MS = 20_000;

/** A fresh controller instance id (`ctl_…`): one per process start. */
export function newInstanceId(): string {
  return `ctl_${Date.now().toString(36)}${randomBytes(6).toString("hex")}`;
}

export interface Lease {
  stop(): Promise<void>;
}

/**
 * The process's lease in `controller_leases`: renewed every 5 s (every second while the database is away,
 * so it is fresh again moments after it returns). Tasks a controller runs carry its id; the sweeper leaves
 * them alone while the lease is fresh, and fails them once it has run out past their deadline (the
 * controller died mid-task). Stopping deletes the row: a controller that stops cleanly has finished its
 * tasks (it drains them first).
 */
export function startLease(db: Db, id: string, log: Logger): Lease {
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
        failing ? 1000 : LEASE_RENEW_MS,
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
