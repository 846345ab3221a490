import { beforeAll } from "vitest";
import { newUser, type TestUser } from "../../../testing/accounts.js";
import type { Form, TestApp } from "../../../testing/test-app.js";
import type { TestDbFixture } from "../../../testing/use-test-db.js";

/** What the monitors API's test files share: create bodies and field names in each form. */

export type Type = "http" | "ping" | "tcp" | "dns" | "traceroute" | "mtr";

/** A create body in the form's names: `target` is Form A's text; Form B gets url/host/port/domain. */
export function createBody(
  form: Form,
  type: Type,
  target: string,
  extra: { name?: string; config?: Record<string, unknown>; interval?: number } = {},
): Record<string, unknown> {
  const name = extra.name ?? `${type} monitor`;
  const config = extra.config ? { config: extra.config } : {};
  if (form === "a") {
    return {
      name,
      type,
      target,
      ...config,
      ...(extra.interval !== undefined ? { interval_s: extra.interval } : {}),
    };
  }
  const interval = extra.interval !== undefined ? { interval: extra.interval } : {};
  const where: Record<Type, () => Record<string, unknown>> = {
    http: () => ({ url: target }),
    ping: () => ({ host: target }),
    traceroute: () => ({ host: target }),
    mtr: () => ({ host: target }),
    dns: () => ({ domain: target }),
    tcp: () => {
      const i = target.lastIndexOf(":");
      return { host: target.slice(0, i), port: Number(target.slice(i + 1)) };
    },
  };
  return { name, type, ...where[type](), ...config, ...interval };
}

/** The form's names for the interval and page-size fields, and the path a 400 gives for a type's target. */
export function formFields(form: Form) {
  const intervalKey = form === "a" ? "interval_s" : "interval";
  const sizeKey = form === "a" ? "limit" : "per_page";
  const targetPath = (type: Type) =>
    form === "a"
      ? "body.target"
      : {
          http: "body.url",
          ping: "body.host",
          traceroute: "body.host",
          mtr: "body.host",
          tcp: "body.host",
          dns: "body.domain",
        }[type];
  return { intervalKey, sizeKey, targetPath };
}

/**
 * For a `describe` block of one form: its app (made before the block's tests) with a registered user
 * `alice`, and `create`, which posts a monitor as any user. Read `t` and `alice` inside tests only.
 */
export function useMonitorsApi(db: TestDbFixture, form: Form) {
  const api = {
    t: undefined as unknown as TestApp,
    alice: undefined as unknown as TestUser,
    create: (user: TestUser, body: unknown) =>
      api.t.call("POST", "/v1/monitors", { headers: user.headers, body }),
  };
  beforeAll(async () => {
    api.t = db.app(form);
    api.alice = await newUser(api.t, "alice");
  });
  return api;
}
