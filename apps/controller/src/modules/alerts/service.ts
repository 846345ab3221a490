import { lockAccount, ownedRow } from "../../db/owned.js";
import { ApiError, type ErrorDetail, fieldError, notFound } from "../../http/errors.js";
import { newId } from "../../lib/ids.js";
import { planOf } from "../../lib/plans.js";
import { type SecretBox, SecretBoxError } from "../../lib/secret-box.js";
import { acknowledgeEvent } from "./acknowledge.js";
import { generatedFor, masked, parseConfig, secretFieldsOf, split } from "./channel-config.js";
import { alertChannels } from "./channels/registry.js";
import type { ChannelType } from "./channels/types.js";
import * as repo from "./repo.js";
import {
  type AlertChannelView,
  type AlertEvent,
  type AlertPolicy,
  type AlertsOwner,
  type AlertsService,
  type AlertsServiceContext,
  type CreatedChannel,
  SECRET_MASK,
} from "./types.js";

const aadOf = (channelId: string) => `alert_channels:${channelId}`;

const noBox = () =>
  new ApiError("unavailable", "VANTAGE_SECRET_KEY is not set: channels with secrets cannot be stored");

const toPolicy = ({ owner_id: _, ...p }: repo.PolicyRow): AlertPolicy => p;
const toEvent = ({ owner_id: _, state_change_id: __, ...e }: repo.EventRow): AlertEvent => e;

/** Channel ids without repeats, in the order given. */
const unique = (ids: readonly string[]) => [...new Set(ids)];

export function createAlertsService(ctx: AlertsServiceContext): AlertsService {
  const now = ctx.now ?? Date.now;

  function requireBox(): SecretBox {
    if (!ctx.box) throw noBox();
    return ctx.box;
  }

  function seal(id: string, secrets: Record<string, string>): string | null {
    return Object.keys(secrets).length === 0 ? null : requireBox().sealJson(secrets, aadOf(id));
  }

  /**
   * Which secret settings a stored channel has set. Reading them needs the key; without it (or when the
   * value does not open) every secret setting of the type shows as set, the required ones being set anyway.
   */
  function storedSecretKeys(row: repo.ChannelRow): string[] {
    if (row.secrets === null) return [];
    const all = [...secretFieldsOf(row.type as ChannelType)];
    if (!ctx.box) return all;
    try {
      return Object.keys(ctx.box.openJson(row.secrets, aadOf(row.id)));
    } catch (err) {
      ctx.log.warn({ channel_id: row.id, err: (err as Error).message }, "alert channel secrets do not open");
      return all;
    }
  }

  function view(row: repo.ChannelRow, secretKeys = storedSecretKeys(row), queued = 0): AlertChannelView {
    const type = row.type as ChannelType;
    // Only the type's secret keys are masked, whatever the sealed value holds; the rest never leaves it.
    const shown = secretKeys.filter((k) => secretFieldsOf(type).includes(k));
    return {
      id: row.id,
      name: row.name,
      type,
      config: masked(row.config as Record<string, unknown>, shown),
      created_at: row.created_at,
      updated_at: row.updated_at,
      delivery: {
        failing: row.failing_since !== null,
        failing_since: row.failing_since,
        next_attempt_at: row.failing_since !== null ? row.retry_at : null,
        last_error: row.last_error,
        last_error_at: row.last_error_at,
        queued,
      },
    };
  }

  /** The stored secrets, opened: 503 without the key, 409 when they no longer open. */
  function openStored(row: repo.ChannelRow): Record<string, string> {
    if (row.secrets === null) return {};
    const box = requireBox();
    try {
      return box.openJson(row.secrets, aadOf(row.id));
    } catch (err) {
      if (!(err instanceof SecretBoxError)) throw err;
      ctx.log.warn({ channel_id: row.id, err: err.message }, "alert channel secrets do not open");
      throw new ApiError(
        "conflict",
        "the channel's stored secrets cannot be opened with this deployment's keys: send every secret " +
          `setting again (${secretFieldsOf(row.type as ChannelType).join(", ")})`,
      );
    }
  }

  /** The stored settings with a patch merged in (see `ChannelPatch.config`), checked as on creation. */
  function mergedConfig(row: repo.ChannelRow, patch: Record<string, unknown>): Record<string, unknown> {
    const type = row.type as ChannelType;
    if (!(type in alertChannels))
      throw new ApiError("conflict", `channels of type ${type} can no longer be changed: delete this one`);
    const secretKeys = secretFieldsOf(type);
    const needsStored = secretKeys.some((k) => !(k in patch) || patch[k] === SECRET_MASK);
    const stored = needsStored ? openStored(row) : {};
    const out: Record<string, unknown> = { ...(row.config as Record<string, unknown>), ...stored };
    for (const [k, v] of Object.entries(patch)) {
      // undefined, not deleted: the type's schema still refuses a key it does not know.
      if (v === null) out[k] = undefined;
      else if (v === SECRET_MASK && secretKeys.includes(k)) {
        if (!(k in stored))
          throw fieldError(`body.config.${k}`, "no stored value to keep: send the secret itself");
      } else out[k] = v;
    }
    return parseConfig(type, out, ctx.allowPrivate);
  }

  async function checkChannels(
    tx: Parameters<typeof repo.ownedChannelIds>[0],
    owner: AlertsOwner,
    ids: string[],
  ) {
    const found = await repo.ownedChannelIds(tx, owner.userId, ids);
    const details: ErrorDetail[] = [];
    ids.forEach((id, i) => {
      if (!found.has(id))
        details.push({ path: `body.channel_ids.${i}`, message: `alert channel ${id} not found` });
    });
    if (details.length > 0)
      throw new ApiError("not_found", `${details[0]!.path}: ${details[0]!.message}`, details);
  }

  /** Steps with rising `after_minutes`, each naming the owner's channels (repeats dropped). */
  async function checkEscalation(
    tx: Parameters<typeof repo.ownedChannelIds>[0],
    owner: AlertsOwner,
    steps: { after_minutes: number; channel_ids: string[] }[],
  ) {
    const out = steps.map((s) => ({ after_minutes: s.after_minutes, channel_ids: unique(s.channel_ids) }));
    for (const [i, s] of out.entries()) {
      const prev = out[i - 1];
      if (prev && s.after_minutes <= prev.after_minutes)
        throw fieldError(`body.escalation.${i}.after_minutes`, "must be more than the step before's");
      const found = await repo.ownedChannelIds(tx, owner.userId, s.channel_ids);
      const j = s.channel_ids.findIndex((id) => !found.has(id));
      if (j >= 0)
        throw fieldError(
          `body.escalation.${i}.channel_ids.${j}`,
          `alert channel ${s.channel_ids[j]} not found`,
          "not_found",
        );
    }
    return out;
  }

  return {
    async createChannel(owner, input): Promise<CreatedChannel> {
      const generated = generatedFor(input.type, input.config ?? {});
      const config = parseConfig(input.type, { ...input.config, ...generated }, ctx.allowPrivate);
      const { plain, secrets } = split(input.type, config);
      for (const k of Object.keys(secrets)) {
        if (secrets[k] === SECRET_MASK)
          throw fieldError(`body.config.${k}`, "is the mask of a stored secret: send the secret itself");
      }
      const at = now();
      const id = newId("chn", at);
      const sealed = seal(id, secrets);
      // Count and insert under a lock on the account's row, else concurrent creates all see a count under
      // the limit and all insert.
      const row = await ctx.db.transaction().execute(async (tx) => {
        const account = await lockAccount(tx, owner.userId);
        if (!account) throw notFound("account");
        const plan = planOf(account.plan);
        const limit = ctx.plans[plan].alert_channels;
        if (limit !== null && (await repo.countChannels(tx, owner.userId)) >= limit) {
          throw new ApiError(
            "conflict",
            `the ${plan} plan allows ${limit} alert channels: delete one first, or move to a larger plan`,
            { limit, plan },
          );
        }
        return repo.insertChannel(tx, {
          id,
          ownerId: owner.userId,
          name: input.name,
          type: input.type,
          config: plain,
          secrets: sealed,
          createdAt: new Date(at),
        });
      });
      ctx.log.info({ user_id: owner.userId, channel_id: id, type: input.type }, "alert channel created");
      const created: CreatedChannel = view(row, Object.keys(secrets));
      return Object.keys(generated).length === 0 ? created : { ...created, generated };
    },

    async listChannels(owner, { page, limit }) {
      const [rows, total] = await Promise.all([
        repo.listChannels(ctx.db, owner.userId, { limit, offset: (page - 1) * limit }),
        repo.countChannels(ctx.db, owner.userId),
      ]);
      const queued = await repo.queuedByChannel(
        ctx.db,
        rows.map((r) => r.id),
      );
      return { items: rows.map((r) => view(r, undefined, queued.get(r.id) ?? 0)), total };
    },

    async getChannel(owner, id) {
      const row = await ownedRow(ctx.db, "alert_channels", owner.userId, id);
      if (!row) throw notFound("alert channel");
      const queued = await repo.queuedByChannel(ctx.db, [row.id]);
      return view(row, undefined, queued.get(row.id) ?? 0);
    },

    updateChannel(owner, id, patch) {
      return ctx.db.transaction().execute(async (tx) => {
        const row = await ownedRow(tx, "alert_channels", owner.userId, id, { forUpdate: true });
        if (!row) throw notFound("alert channel");
        const changes: repo.ChannelChanges = {};
        let secretKeys: string[] | undefined;
        if (patch.name !== undefined && patch.name !== row.name) changes.name = patch.name;
        if (patch.config !== undefined) {
          const { plain, secrets } = split(row.type as ChannelType, mergedConfig(row, patch.config));
          changes.config = plain;
          changes.secrets = seal(row.id, secrets);
          secretKeys = Object.keys(secrets);
        }
        if (Object.keys(changes).length === 0) return view(row, secretKeys);
        const updated = await repo.updateChannel(tx, owner.userId, id, changes, new Date(now()));
        return view(updated ?? row, secretKeys);
      });
    },

    async removeChannel(owner, id) {
      if (!(await repo.deleteChannel(ctx.db, owner.userId, id))) throw notFound("alert channel");
      ctx.log.info({ user_id: owner.userId, channel_id: id }, "alert channel deleted");
    },

    async testChannel(owner, id) {
      if (!(await ownedRow(ctx.db, "alert_channels", owner.userId, id))) throw notFound("alert channel");
      const outcome = await ctx.sendTest(id, owner.userId);
      if (!outcome) throw notFound("alert channel");
      return outcome;
    },

    async createPolicy(owner, input) {
      const channelIds = unique(input.channelIds ?? []);
      const at = now();
      const row = await ctx.db.transaction().execute(async (tx) => {
        const monitorId = input.scope === "all" ? null : (input.monitorId ?? null);
        if (input.scope === "all" && input.monitorId !== undefined)
          throw fieldError("body.monitor_id", "must be omitted when scope is all", "validation_error");
        if (monitorId === null && input.scope !== "all")
          throw fieldError("body.monitor_id", "required unless scope is all", "validation_error");
        if (monitorId !== null && !(await repo.ownsMonitor(tx, owner.userId, monitorId)))
          throw fieldError("body.monitor_id", `monitor ${monitorId} not found`, "not_found");
        await checkChannels(tx, owner, channelIds);
        const escalation = await checkEscalation(tx, owner, input.escalation ?? []);
        return repo.insertPolicy(tx, {
          escalation,
          id: newId("pol", at),
          ownerId: owner.userId,
          name: input.name,
          monitorId,
          channelIds,
          onDown: input.onDown ?? true,
          onUp: input.onUp ?? true,
          reminderMinutes: input.reminderMinutes ?? null,
          createdAt: new Date(at),
        });
      });
      ctx.log.info(
        { user_id: owner.userId, policy_id: row.id, monitor_id: row.monitor_id },
        "alert policy created",
      );
      return toPolicy(row);
    },

    async listPolicies(owner, { page, limit, monitorId }) {
      const filter = { monitorId };
      const [rows, total] = await Promise.all([
        repo.listPolicies(ctx.db, owner.userId, filter, { limit, offset: (page - 1) * limit }),
        repo.countPolicies(ctx.db, owner.userId, filter),
      ]);
      return { items: rows.map(toPolicy), total };
    },

    async getPolicy(owner, id) {
      const row = await ownedRow(ctx.db, "alert_policies", owner.userId, id);
      if (!row) throw notFound("alert policy");
      return toPolicy(row);
    },

    updatePolicy(owner, id, patch) {
      return ctx.db.transaction().execute(async (tx) => {
        const row = await ownedRow(tx, "alert_policies", owner.userId, id, { forUpdate: true });
        if (!row) throw notFound("alert policy");
        const changes: repo.PolicyChanges = {};
        if (patch.name !== undefined) changes.name = patch.name;
        if (patch.channelIds !== undefined) {
          changes.channelIds = unique(patch.channelIds);
          await checkChannels(tx, owner, changes.channelIds);
        }
        if (patch.onDown !== undefined) changes.onDown = patch.onDown;
        if (patch.onUp !== undefined) changes.onUp = patch.onUp;
        if (patch.reminderMinutes !== undefined) changes.reminderMinutes = patch.reminderMinutes;
        if (patch.escalation !== undefined)
          changes.escalation = await checkEscalation(tx, owner, patch.escalation);
        if (Object.keys(changes).length === 0) return toPolicy(row);
        const updated = await repo.updatePolicy(tx, owner.userId, id, changes, new Date(now()));
        return toPolicy(updated ?? row);
      });
    },

    async removePolicy(owner, id) {
      if (!(await repo.deletePolicy(ctx.db, owner.userId, id))) throw notFound("alert policy");
      ctx.log.info({ user_id: owner.userId, policy_id: id }, "alert policy deleted");
    },

    async listEvents(owner, { page, limit, monitorId, type }) {
      const filter = { monitorId, type };
      const [rows, total] = await Promise.all([
        repo.listEvents(ctx.db, owner.userId, filter, { limit, offset: (page - 1) * limit }),
        repo.countEvents(ctx.db, owner.userId, filter),
      ]);
      return { items: rows.map(toEvent), total };
    },

    async acknowledge(owner, id) {
      const done = await acknowledgeEvent(ctx.db, id, owner.userId, owner.userId);
      if (!done) throw notFound("alert event");
      return toEvent(done.row);
    },

    async getEvent(owner, id) {
      const row = await ownedRow(ctx.db, "alert_events", owner.userId, id);
      if (!row) throw notFound("alert event");
      const deliveries = await repo.listDeliveries(ctx.db, id);
      return {
        ...toEvent(row),
        deliveries: deliveries.map((d) => ({
          channel_id: d.channel_id,
          status: d.status,
          attempts: d.attempts,
          sent_at: d.sent_at,
          last_error: d.last_error,
          log: d.log,
        })),
      };
    },
  };
}
