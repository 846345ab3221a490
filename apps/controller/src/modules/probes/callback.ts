import { z } from "@hono/zod-openapi";
import { guardedRequest, LookupError } from "@vantage/lookups";
import type { Logger } from "pino";
import { Webhook } from "standardwebhooks";
import { ApiError } from "../../http/errors.js";
import { assertPublicUrl } from "../../lib/public-url.js";
import type { SecretBox } from "../../lib/secret-box.js";
import type { TaskRecord } from "./repo.js";

/**
 * Form A's completion webhook (issue #30 item 5, docs/shares.md): a task created with `callback_url` is
 * POSTed there once it finishes, signed per Standard Webhooks with the same library and headers as the
 * alert webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The secret is the task's own:
 * HMAC of its id under a key derived from VANTAGE_SECRET_KEY, so nothing is stored, and it is shown once,
 * in the 202 answer (`callback_secret`). The URL obeys the target guard: a literal private address is
 * refused at creation (422), and every send resolves and pins the address through the guard.
 */

export const callbackUrlField = z
  .string()
  .max(2048)
  .url()
  .regex(/^https?:\/\//i, "must be an http or https URL")
  .openapi({
    description:
      "Form A: POSTed once the task finishes, signed per Standard Webhooks with `callback_secret` (docs/shares.md). " +
      "Must reach a public address unless VANTAGE_ALLOW_PRIVATE_TARGETS.",
    example: "https://example.com/hooks/vantage",
  });

const PURPOSE = "probe-callback";
const ATTEMPTS = [0, 2_000, 10_000];

export interface CompletionHooks {
  /** The task's signing secret (`whsec_…`); undefined when no secret key is configured. */
  secret(taskId: string): string | undefined;
  /** 400/422 for a URL that can never be called; 503 when no secret can sign it. */
  check(url: string, path: string): void;
  /** Sends the finished task's notice, trying three times; never rejects. */
  deliver(task: TaskRecord, url: string): Promise<void>;
}

export function completionHooks(opts: {
  box: SecretBox | undefined;
  allowPrivate: boolean;
  lookup?: import("@vantage/probes").HostLookup | undefined;
  log: Logger;
  publicUrl: string | undefined;
}): CompletionHooks {
  const secret = (taskId: string) =>
    opts.box && `whsec_${Buffer.from(opts.box.sign(PURPOSE, taskId), "base64url").toString("base64")}`;
  return {
    secret,
    check(url, path) {
      if (!opts.box)
        throw new ApiError("unavailable", "callback_url needs VANTAGE_SECRET_KEY to sign its webhook");
      assertPublicUrl(url, path, opts.allowPrivate);
    },
    async deliver(task, url) {
      const key = secret(task.id);
      if (!key) return;
      const body = JSON.stringify({
        type: "probe.task.finished",
        timestamp: (task.finished_at ?? new Date()).toISOString(),
        data: {
          task_id: task.id,
          type: task.type,
          target: task.target,
          status: task.status,
          finished_at: task.finished_at?.toISOString() ?? null,
          results: task.results.length,
          succeeded: task.results.filter((r) => r.success).length,
          ...(opts.publicUrl
            ? { task_url: `${opts.publicUrl.replace(/\/+$/, "")}/v1/probe/tasks/${task.id}` }
            : {}),
        },
      });
      const id = `${task.id}.finished`;
      let error = "";
      for (const wait of ATTEMPTS) {
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const at = new Date();
        try {
          const res = await guardedRequest(
            url,
            {
              method: "POST",
              headers: {
                "content-type": "application/json",
                "user-agent": "vantage-callback/1",
                "webhook-id": id,
                "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
                "webhook-signature": new Webhook(key).sign(id, at, body),
              },
              body,
              timeoutMs: 5_000,
              maxBytes: 16 * 1024,
              maxRedirects: 0,
            },
            { allowPrivate: opts.allowPrivate, lookup: opts.lookup },
          );
          if (res.status >= 200 && res.status < 300) return;
          error = `HTTP ${res.status}`;
          if (res.status === 410) break;
        } catch (err) {
          error = err instanceof LookupError ? `${err.code}: ${new URL(url).host}` : (err as Error).message;
        }
      }
      opts.log.warn({ task_id: task.id, error }, "probe completion webhook not delivered");
    },
  };
}
