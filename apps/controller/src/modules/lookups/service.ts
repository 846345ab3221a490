import {
  type IcpCacheStore,
  type IcpResult,
  type IpDataSource,
  type LookupContext,
  LookupError,
  type LookupInputByKind,
  type LookupKind,
  type LookupResultByKind,
  lookups,
  parseLookupInput,
  type ReputationDataSource,
  type ReputationOptions,
  reputationNow,
} from "@vantage/lookups";
import { ApiError, type ErrorCode, unavailableError } from "../../http/errors.js";
import type { QuotaCaller, RateLimitStatus } from "../../http/rate-limit/index.js";
import type { PlansService } from "../plans/index.js";
import { LookupCache } from "./cache.js";
import type { IpData } from "./ip-data.js";
import type { LookupRecordRepo } from "./repo.js";
import type { ReputationData } from "./reputation-data.js";

export interface LookupAnswer<K extends LookupKind> {
  data: LookupResultByKind[K];
  /** The answer came from this controller's cache (see `cacheTtlMs`), not from a fresh lookup. */
  cached: boolean;
  /** The caller's tightest lookup limit after this call; undefined when unlimited. */
  quota: RateLimitStatus | undefined;
}

export interface LookupsService {
  /**
   * Runs one lookup for `caller`: validates `input` (400, details named by `fieldNames`: lookup field →
   * the request's name for it), takes one lookup from the caller's hourly quota (429), answers from the
   * cache or the lookup. Throws ApiErrors: 404, 422, 502, 503, 504 as the lookup fails.
   */
  lookup<K extends LookupKind>(
    kind: K,
    input: Record<string, unknown>,
    caller: QuotaCaller,
    fieldNames?: Record<string, string>,
  ): Promise<LookupAnswer<K>>;
  /**
   * `lookup("reputation", …)` of the canonical address `ip` for `caller`, synchronously, when it can answer
   * without waiting: the data in memory, the answer kept in the cache or needing no DNS check (no DNSBL
   * zone, reverse DNS off), and the caller's limits decidable now and not reached. The same answer, quota
   * taken and cache kept as `lookup` would; undefined when `lookup` must answer (nothing is taken then).
   */
  reputationNow(ip: string, caller: QuotaCaller): LookupAnswer<"reputation"> | undefined;
  /** The IP data: its version, and a reload that swaps in new files atomically (SIGHUP). */
  readonly ipData: IpData;
  /** The reputation datasets: reload (SIGHUP) and refresh from their URLs. */
  readonly reputationData: ReputationData;
}

export interface LookupsDeps {
  /** The plans module's limits and meter: `lookups` for /v1/info/*, `reputation` for the reputation kind. */
  limits: Pick<PlansService, "charge" | "chargeNow" | "record">;
  ipData: IpData;
  /** The reputation datasets and what the reputation lookup asks (DNSBL zones, resolver, rDNS, deadline). */
  reputation: {
    data: ReputationData;
    options: Omit<ReputationOptions, "data">;
    timeoutMs: number;
  };
  records: LookupRecordRepo;
  /** What every lookup's context holds (guard switch, timeouts, resolver, servers…), but the IP data. */
  context: Omit<LookupContext, "ipData" | "icp"> & { icp?: Omit<NonNullable<LookupContext["icp"]>, "cache"> };
  cacheEntries: number;
}

const MINUTE = 60_000;

/**
 * How long an answer is kept, per kind. IP answers come from memory in a microsecond: keeping them would
 * only cost memory. DNS answers are kept at most a minute and never past their smallest record TTL; a
 * partial one (`failed_types`) not at all.
 */
export function cacheTtlMs<K extends LookupKind>(kind: K, data: LookupResultByKind[K]): number {
  switch (kind) {
    case "ip":
      return 0;
    case "whois":
      return 60 * MINUTE;
    case "ssl":
      return 5 * MINUTE;
    case "dns": {
      const dns = data as LookupResultByKind["dns"];
      // A partial answer (some types failed) is not kept: the next call asks again.
      if (dns.failed_types !== undefined) return 0;
      const ttls = dns.records.map((r) => r.ttl * 1000);
      return Math.min(MINUTE, ...ttls);
    }
    case "icp":
      return 60 * MINUTE;
    case "reputation":
      return 5 * MINUTE;
    default:
      return 0;
  }
}

/** The lookups' codes → the API's: the statuses `packages/lookups` documents. */
const statusOf: Record<LookupError["code"], ErrorCode> = {
  invalid_input: "validation_error",
  not_found: "not_found",
  target_not_allowed: "target_not_allowed",
  upstream_error: "upstream_error",
  unavailable: "source_unavailable",
  upstream_timeout: "upstream_timeout",
};

export function infoService(deps: LookupsDeps): LookupsService {
  const cache = new LookupCache<unknown>(deps.cacheEntries);
  const icpCache: IcpCacheStore = {
    async get(domain) {
      return (await deps.records.get("icp", domain)) as IcpResult | undefined;
    },
    async put(result) {
      await deps.records.put("icp", result.domain, result, new Date(result.checked_at));
    },
  };

  // One context per kind, built once: the IP data source is the holder, which swaps its data on reload.
  const remote: LookupContext = { ...deps.context, icp: { ...deps.context.icp, cache: icpCache } };
  // The DNS lookup talks to one remote only, the resolver the operator configured (often 127.0.0.53 or a
  // private address): configuration, not a caller's target, so the guard does not apply to it.
  const dns: LookupContext = { ...remote, allowPrivate: true };
  let ip: LookupContext | undefined;
  async function ipContext(): Promise<LookupContext> {
    if (ip) return ip;
    try {
      ip = { allowPrivate: deps.context.allowPrivate, ipData: await deps.ipData.current() };
    } catch (error) {
      throw unavailableError(`the IP data could not be loaded: ${(error as Error).message}`);
    }
    return ip;
  }
  let reputation: LookupContext | undefined;
  // Its remotes are the operator's resolvers (as the DNS lookup's); a domain resolving to a private
  // address is answered "not applicable", never probed.
  const reputationContextOf = (data: ReputationDataSource, ipData: IpDataSource | undefined) => {
    reputation ??= {
      ...dns,
      ipData,
      timeoutMs: deps.reputation.timeoutMs,
      reputation: { ...deps.reputation.options, data },
    };
    return reputation;
  };
  async function reputationContext(): Promise<LookupContext> {
    if (reputation) return reputation;
    let data: ReputationDataSource;
    try {
      data = await deps.reputation.data.current();
    } catch (error) {
      throw unavailableError(`the reputation data could not be loaded: ${(error as Error).message}`);
    }
    // Without the IP data the answer still comes, its country, ASN and ISP null and `ip_data` unavailable.
    const ipData = await deps.ipData.current().catch(() => undefined);
    return reputationContextOf(data, ipData);
  }
  /** The same context, synchronously, once both datasets are in memory (else the async one decides). */
  function reputationContextNow(): LookupContext | undefined {
    if (reputation) return reputation;
    const data = deps.reputation.data.loaded();
    const ipData = deps.ipData.loaded();
    return data && ipData ? reputationContextOf(data, ipData) : undefined;
  }

  return {
    async lookup(kind, input, caller, fieldNames = {}) {
      let parsed: unknown;
      try {
        parsed = parseLookupInput(kind, input);
      } catch (error) {
        throw toApiError(error, fieldNames);
      }
      const family = kind === "reputation" ? "reputation" : "lookups";
      const quota = await deps.limits.charge(family, caller, 1);
      try {
        // IP answers come from memory in a microsecond: no cache, no remote to wait for.
        if (kind === "ip") {
          const data = await lookups.ip.run(parsed as LookupInputByKind["ip"], await ipContext());
          deps.limits.record(caller, family, 1);
          return { data: data as LookupResultByKind[typeof kind], cached: false, quota };
        }
        const ctx = kind === "dns" ? dns : kind === "reputation" ? await reputationContext() : remote;
        if (kind === "reputation") {
          // An address needing no DNS check, not kept or in flight: answered at once, and kept as `get` keeps.
          const key = cacheKey(kind, parsed);
          const now =
            cache.peek(key) === undefined && !cache.loading(key) ? answerNow(parsed, ctx) : undefined;
          if (now !== undefined) {
            cache.put(key, now, cacheTtlMs("reputation", now));
            deps.limits.record(caller, family, 1);
            return { data: now as LookupResultByKind[typeof kind], cached: false, quota };
          }
        }
        const { value, cached } = await cache.get(
          cacheKey(kind, parsed),
          () => bounded(lookups[kind].run(parsed as never, ctx), ctx.timeoutMs),
          (v) => cacheTtlMs(kind, v as LookupResultByKind[typeof kind]),
        );
        deps.limits.record(caller, family, 1);
        return { data: value as LookupResultByKind[typeof kind], cached, quota };
      } catch (error) {
        throw toApiError(error, fieldNames);
      }
    },
    reputationNow(ip, caller) {
      const ctx = reputationContextNow();
      if (ctx === undefined) return undefined;
      const input = { kind: "ip", ip } as const;
      const key = cacheKey("reputation", input);
      const kept = cache.peek(key) as LookupResultByKind["reputation"] | undefined;
      // A lookup of the same address in flight is shared by `lookup`'s callers: that one answers.
      if (kept === undefined && cache.loading(key)) return undefined;
      const data = kept ?? answerNow(input, ctx);
      if (data === undefined) return undefined;
      const quota = deps.limits.chargeNow("reputation", caller, 1);
      if (quota === false) return undefined;
      if (kept !== undefined) cache.touch(key);
      else cache.put(key, data, cacheTtlMs("reputation", data));
      deps.limits.record(caller, "reputation", 1);
      return { data, cached: kept !== undefined, quota };
    },
    ipData: deps.ipData,
    reputationData: deps.reputation.data,
  };
}

/** reputationNow of parsed reputation input: its synchronous answer, undefined when it must wait on DNS. */
function answerNow(parsed: unknown, ctx: LookupContext): LookupResultByKind["reputation"] | undefined {
  return reputationNow(parsed as LookupInputByKind["reputation"], ctx);
}

/** The cache's key of a lookup: its kind and its input as the schema parsed it. */
function cacheKey(kind: LookupKind, parsed: unknown): string {
  return `${kind}:${JSON.stringify(parsed)}`;
}

/** Grace past the lookup's own deadline before the service stops waiting for it. */
const OVERRUN_MS = 2_000;

/**
 * Every lookup bounds itself by `timeoutMs`; this is the net under that promise, so that a remote that
 * keeps a socket half-open can never hold a request: 504 a little after the lookup's own deadline.
 */
async function bounded<T>(work: Promise<T>, timeoutMs: number | undefined): Promise<T> {
  const ms = (timeoutMs ?? 10_000) + OVERRUN_MS;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new LookupError("upstream_timeout", `no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A LookupError as the API's error, its field paths named as the request names them (`query.q`). */
function toApiError(error: unknown, fieldNames: Record<string, string>): unknown {
  if (!(error instanceof LookupError)) return error;
  const code = statusOf[error.code];
  if (error.code !== "invalid_input") return new ApiError(code, error.message);
  const rename = (path: string) => {
    const [head = "", ...rest] = path.split(".");
    return ["query", fieldNames[head] ?? head, ...rest].filter((p) => p !== "").join(".");
  };
  const details = error.issues.map((i) => ({ path: rename(i.path), message: i.message }));
  const first = details[0];
  return new ApiError(code, first ? `${first.path}: ${first.message}` : error.message, details);
}
