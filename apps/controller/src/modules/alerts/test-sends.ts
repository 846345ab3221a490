import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.js";
import { ApiError } from "../../http/errors.js";
import {
  dbRateLimitStore,
  type QuotaCaller,
  RateLimiter,
  type RateLimitStatus,
  rateLimitedError,
} from "../../http/rate-limit/index.js";

export const TEST_SEND_WINDOW_MS = 3_600_000;

type AccountCaller = Extract<QuotaCaller, { kind: "account" }>;

export interface TestSendDeps {
  db: Kysely<Database>;
  /** Test sends per channel and hour (`VANTAGE_ALERT_TEST_LIMIT_CHANNEL`). */
  perChannel: number;
  /** Test sends per account and hour, all its channels together (`VANTAGE_ALERT_TEST_LIMIT_ACCOUNT`). */
  perAccount: number;
  /** Whether the account has verified its email address (the accounts service). */
  emailVerified(userId: string): Promise<boolean>;
  /** Meters one test send (the plans service: family `alert_tests`). */
  meter(caller: AccountCaller): void;
}

export interface TestSends {
  /**
   * Runs `send` (one test message) for `caller` on `channelId` when the account may send it: 403
   * `email_not_verified` for an unverified account, 429 `rate_limited` over the per-channel or per-account
   * hourly limit. A refused or failed send (404 included) costs nothing; a sent one counts under both
   * limits and is metered. Returns the tighter limit's state after it, for `RateLimit-*` headers.
   */
  run<T>(
    caller: AccountCaller,
    channelId: string,
    send: () => Promise<T>,
  ): Promise<{ value: T; limit: RateLimitStatus }>;
}

/**
 * Test sends reach whatever address or URL a channel names, chosen by the caller: without limits they
 * are a free flood source (40 mails in a second, hundreds of webhook POSTs). So they need a verified
 * account, and are counted in the shared `rate_limits` table (exact across controllers) per channel and
 * per account, each attempt before it is sent.
 */
export function createTestSends(deps: TestSendDeps): TestSends {
  const store = dbRateLimitStore(deps.db);
  const perChannel = new RateLimiter(store, {
    name: "alert-test:channel",
    limit: deps.perChannel,
    windowMs: TEST_SEND_WINDOW_MS,
  });
  const perAccount = new RateLimiter(store, {
    name: "alert-test:account",
    limit: deps.perAccount,
    windowMs: TEST_SEND_WINDOW_MS,
  });
  return {
    async run(caller, channelId, send) {
      if (!(await deps.emailVerified(caller.userId)))
        throw new ApiError(
          "email_not_verified",
          "verify the account's email address first: test messages are sent only from verified accounts",
        );
      // Per account and channel: a caller cannot spend another account's channel's allowance.
      const channelKey = `${caller.userId}:${channelId}`;
      const channel = await perChannel.consume(channelKey);
      if (channel.exceeded) {
        await perChannel.consume(channelKey, -1);
        throw rateLimitedError(
          [channel],
          `test sends are limited to ${channel.limit} per channel and hour; this channel has had them`,
        );
      }
      const account = await perAccount.consume(caller.userId);
      if (account.exceeded) {
        await Promise.all([perChannel.consume(channelKey, -1), perAccount.consume(caller.userId, -1)]);
        throw rateLimitedError(
          [account],
          `test sends are limited to ${account.limit} per account and hour, all channels together`,
        );
      }
      let value: Awaited<ReturnType<typeof send>>;
      try {
        value = await send();
      } catch (err) {
        await Promise.all([perChannel.consume(channelKey, -1), perAccount.consume(caller.userId, -1)]);
        throw err;
      }
      deps.meter(caller);
      return { value, limit: channel.remaining <= account.remaining ? channel : account };
    },
  };
}
