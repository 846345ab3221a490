import { randomBytes } from "node:crypto";
import { errors, type NatsConnection, type Subscription } from "@nats-io/transport-node";
import { subjects } from "@vantage/protocol";

/** What `checkAuthorizationEnforced` found out. */
export interface AuthorizationCheck {
  /** The server refused what these credentials must never be allowed: permissions are enforced. */
  enforced: boolean;
  /**
   * False when the server answered neither way in time (or the connection closed meanwhile): `enforced`
   * is then false too, but nothing was proven open. Try again rather than treating the server as open.
   */
  conclusive: boolean;
  /** The subject the check subscribed to. */
  subject: string;
  /** One sentence for the log. */
  detail: string;
}

export interface AuthorizationCheckOptions {
  /**
   * A subject these credentials may not subscribe to. Default: the job subject of a node that cannot exist
   * (`probe.v1.node._authz-check-<random>.job`: node ids have no `_`), which neither an agent (it may
   * subscribe to its own job subject only) nor the controller (it publishes jobs, never subscribes to
   * them) is allowed, and which an open server accepts without stealing anyone's jobs.
   */
  probeSubject?: string;
  /** Upper bound for the whole check (default 2000 ms). */
  timeoutMs?: number;
  /** How long to wait after the server's PONG for a refusal that has not been processed yet (default 100 ms). */
  graceMs?: number;
}

/** A fresh default probe subject: another node's job subject that no real node can have. */
export function authorizationProbeSubject(): string {
  return subjects.job(`_authz-check-${randomBytes(6).toString("hex")}`);
}

/**
 * The server's refusal of the check's own subscription, as it also shows in `nc.status()` (an `error`
 * event). Callers that log status events use it to keep that expected refusal out of their error log.
 */
export function isAuthorizationProbeRefusal(err: unknown, probeSubject: string): boolean {
  return (
    err instanceof errors.PermissionViolationError &&
    err.operation === "subscription" &&
    err.subject === probeSubject
  );
}

type Outcome =
  | { kind: "refused"; err: InstanceType<typeof errors.PermissionViolationError> }
  | { kind: "closed"; err: Error | undefined }
  | { kind: "accepted" }
  | { kind: "timeout" }
  | { kind: "failed"; err: unknown };

/**
 * Checks that the NATS server enforces permissions for this connection's credentials: subscribes to a
 * subject they must not be allowed (by default another node's job subject) and waits, at most
 * `timeoutMs`, for the server's refusal. nats.js does not throw on a refused subscription: the
 * subscription's `closed` resolves with a `PermissionViolationError` (and `nc.status()` reports it). The
 * server answers a SUB before the PONG of the flush that follows it, so on an open server the check ends
 * one round trip (plus `graceMs`) after it started. Never throws; the subscription is removed either way.
 */
export async function checkAuthorizationEnforced(
  nc: NatsConnection,
  opts: AuthorizationCheckOptions = {},
): Promise<AuthorizationCheck> {
  const subject = opts.probeSubject ?? authorizationProbeSubject();
  const timeoutMs = opts.timeoutMs ?? 2000;
  const graceMs = opts.graceMs ?? 100;
  const result = (enforced: boolean, conclusive: boolean, detail: string): AuthorizationCheck => ({
    enforced,
    conclusive,
    subject,
    detail,
  });
  if (nc.isClosed()) return result(false, false, "the NATS connection is closed");

  let sub: Subscription;
  try {
    // A callback keeps messages (an open server may deliver some) from queueing anywhere.
    sub = nc.subscribe(subject, { callback: () => {} });
  } catch (err) {
    return result(false, false, `could not subscribe to ${subject}: ${message(err)}`);
  }

  const timers: NodeJS.Timeout[] = [];
  const after = <T>(ms: number, value: T) =>
    new Promise<T>((resolve) => {
      timers.push(setTimeout(() => resolve(value), ms));
    });
  const refused = sub.closed.then(
    (err): Outcome =>
      err instanceof errors.PermissionViolationError
        ? { kind: "refused", err }
        : { kind: "closed", err: err instanceof Error ? err : undefined },
  );
  const accepted = nc.flush().then(
    () => after<Outcome>(graceMs, { kind: "accepted" }),
    (err: unknown): Outcome => ({ kind: "failed", err }),
  );
  const outcome = await Promise.race([refused, accepted, after<Outcome>(timeoutMs, { kind: "timeout" })]);
  for (const t of timers) clearTimeout(t);
  if (!sub.isClosed()) {
    try {
      sub.unsubscribe();
    } catch {
      // the connection closed meanwhile: nothing left to clean up
    }
  }

  switch (outcome.kind) {
    case "refused":
      return result(true, true, `the server refused a subscription to ${subject} (${outcome.err.message})`);
    case "accepted":
      return result(
        false,
        true,
        `the server accepted a subscription to ${subject}, which these credentials must not be allowed`,
      );
    case "timeout":
      return result(false, false, `the NATS server did not answer within ${timeoutMs} ms`);
    case "closed":
      return result(
        false,
        false,
        `the subscription to ${subject} closed without a permission error${outcome.err ? ` (${outcome.err.message})` : ""}`,
      );
    case "failed":
      return result(false, false, `the NATS connection failed during the check: ${message(outcome.err)}`);
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * `checkAuthorizationEnforced` until it is conclusive: a server that answers neither way in time is asked
 * again every `retryMs` (the connection itself keeps reconnecting meanwhile), with `onRetry` told why.
 * Resolves with the first conclusive answer; it never treats silence as an open server.
 */
export async function checkAuthorizationUntilConclusive(
  nc: NatsConnection,
  opts: AuthorizationCheckOptions & { retryMs?: number; onRetry?: (check: AuthorizationCheck) => void } = {},
): Promise<AuthorizationCheck> {
  for (;;) {
    const check = await checkAuthorizationEnforced(nc, opts);
    if (check.conclusive) return check;
    opts.onRetry?.(check);
    await new Promise((r) => setTimeout(r, opts.retryMs ?? 1000));
  }
}
