import { sql } from "kysely";
import { expect } from "vitest";
import type { TestUser } from "../../../testing/accounts.js";
import type { TestApp } from "../../../testing/test-app.js";
import { SECRET_MASK } from "../types.js";

/** What the alerts API's test files share: valid settings per channel type and the calls they make. */

export const whsec = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;

/** A valid config per type, and which of its values are secrets (never in an answer or in the clear). */
export const configs: Record<string, { config: Record<string, unknown>; secrets: string[] }> = {
  email: { config: { to: ["ops@example.com"] }, secrets: [] },
  webhook: { config: { url: "https://hooks.example.com/vantage", secret: whsec }, secrets: ["secret"] },
  slack: {
    config: { webhook_url: "https://hooks.slack.com/services/T0/B0/slackSecretPath42" },
    secrets: ["webhook_url"],
  },
  dingtalk: {
    config: {
      webhook_url: "https://oapi.dingtalk.com/robot/send?access_token=dingTokenSecret42",
      secret: "SECdingSigningSecret42",
    },
    secrets: ["webhook_url", "secret"],
  },
  feishu: {
    config: {
      webhook_url: "https://open.feishu.cn/open-apis/bot/v2/hook/feishuHookSecret42",
      secret: "feishuSigningSecret42",
    },
    secrets: ["webhook_url", "secret"],
  },
  wecom: {
    config: { webhook_url: "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=wecomKeySecret42" },
    secrets: ["webhook_url"],
  },
  pagerduty: {
    config: { routing_key: "pdRoutingKeySecret42".padEnd(32, "x"), severity: "critical" },
    secrets: ["routing_key"],
  },
  sms: {
    config: {
      account_sid: "AC0123456789",
      auth_token: "smsAuthTokenSecret42",
      from: "+14155550100",
      to: ["+14155550101"],
    },
    secrets: ["auth_token"],
  },
};

export const maskedOf = (type: string) => {
  const { config, secrets } = configs[type]!;
  return { ...config, ...Object.fromEntries(secrets.map((k) => [k, SECRET_MASK])) };
};
export const secretValues = (type: string) =>
  configs[type]!.secrets.map((k) => String(configs[type]!.config[k]));

/**
 * The calls of the alerts API's tests, on the app `tOf()` gives (set in the file's `beforeAll`) in one API
 * form.
 */
export function alertsApiHelpers(tOf: () => TestApp, form: "a" | "b") {
  const call = (user: TestUser, method: string, path: string, body?: unknown) =>
    tOf().call(method, path, { headers: user.headers, ...(body === undefined ? {} : { body }) });
  const createChannel = (user: TestUser, type: string, extra: Record<string, unknown> = {}) =>
    call(user, "POST", "/v1/alert-channels", {
      name: `${type} channel`,
      type,
      config: configs[type]!.config,
      ...extra,
    });
  const channelRow = (id: string) =>
    tOf().db.kysely.selectFrom("alert_channels").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  const openRow = (row: { id: string; secrets: string | null }) =>
    row.secrets === null ? {} : tOf().modules.alerts.box!.openJson(row.secrets, `alert_channels:${row.id}`);
  const createMonitor = async (user: TestUser, host = "example.com") => {
    const body =
      form === "a" ? { name: "site", type: "ping", target: host } : { name: "site", type: "ping", host };
    const res = await call(user, "POST", "/v1/monitors", body);
    expect(res.status, res.text).toBe(201);
    return res.body.data.id as string;
  };
  return { call, createChannel, channelRow, openRow, createMonitor };
}

/** Every column of the channel's row as text, straight from SQL. */
export async function rowText(t: TestApp, id: string): Promise<string> {
  const { rows } = await sql<{ t: string }>`
    select row_to_json(c)::text as t from alert_channels c where id = ${id}`.execute(t.db.kysely);
  return rows[0]?.t ?? "";
}
