import { runOffThread } from "../worker/off-thread.js";
import type { AddressSet } from "./address-set.js";
import { parseAsnList } from "./asn-list.js";
import {
  isVersionText,
  type OpenReputationDataOptions,
  openReputationData,
  type ReputationParts,
} from "./data.js";
import {
  type AddressMatch,
  type AsnEntry,
  buildReputationData,
  isProviderName,
  parseAddressTexts,
  type ReputationData,
  type ReputationDataSource,
  type ReputationDatasetName,
  type ReputationDatasets,
  reputationDatasetNames,
} from "./datasets.js";

export interface ReplaceDatasetOptions {
  /** For `cloud_ranges` (required there): the provider whose ranges the text replaces, e.g. `amazon`. */
  provider?: string | undefined;
}

/** Datasets replaced from text: laid over whatever the directory holds, reloads included. */
interface Replaced {
  datasets: ReputationDatasets;
  versions: Record<string, string>;
}

/**
 * The reputation data the service answers from, replaced whole: a reload or replacement builds complete new
 * data before one reference changes, so a lookup sees the old data or the new, never a mix, and a failure
 * leaves the old data answering. Reloads run one at a time, in the order asked.
 *
 * A dataset replaced from text (`replaceDataset`, e.g. the Tor list fetched hourly by the controller) stays
 * in place across reloads of the directory: the fetched copy is the fresher one, and a reload must not put
 * a years-old file back until the next fetch.
 */
export class ReputationDataHolder implements ReputationDataSource {
  #current: ReputationData;
  #options: OpenReputationDataOptions;
  #queue: Promise<unknown> = Promise.resolve();
  #replaced: Replaced = { datasets: {}, versions: {} };

  private constructor(current: ReputationData, options: OpenReputationDataOptions) {
    this.#current = current;
    this.#options = options;
  }

  static async open(options: OpenReputationDataOptions = {}): Promise<ReputationDataHolder> {
    return new ReputationDataHolder(await openReputationData(options), options);
  }

  /** The data answering now; keep it for a run of reads that must agree with each other. */
  get current(): ReputationData {
    return this.#current;
  }

  get versions(): Readonly<Record<string, string>> {
    return this.#current.versions;
  }

  get loaded(): readonly ReputationDatasetName[] {
    return this.#current.loaded;
  }

  get missing(): readonly ReputationDatasetName[] {
    return this.#current.missing;
  }

  match(ip: string): AddressMatch {
    return this.#current.match(ip);
  }

  hostingAsn(asn: number): AsnEntry | null {
    return this.#current.hostingAsn(asn);
  }

  vpnAsn(asn: number): AsnEntry | null {
    return this.#current.vpnAsn(asn);
  }

  /**
   * Reads the directory again (or `changes.dir`; `dir: undefined` goes back to the shipped copy) and swaps
   * the result in, datasets replaced from text laid over it. Rejects, leaving the current data in place,
   * when a file is unreadable, empty or malformed, or no dataset is found at all.
   */
  reload(changes: Partial<OpenReputationDataOptions> = {}): Promise<ReputationData> {
    const run = async () => {
      const options = { ...this.#options, ...changes };
      let next: ReputationData;
      try {
        const read = options.offThread
          ? buildReputationData(
              (await runOffThread(
                { kind: "reputation", options: { dir: options.dir, cacheDir: options.cacheDir } },
                options.onEvent,
              )) as ReputationParts,
            )
          : await openReputationData(options);
        next = overlay(read, this.#replaced);
      } catch (error) {
        // The reason once, in the message: no `cause`, which a logger would print a second time.
        const reason = (error as Error).message;
        throw new Error(`reputation data reload failed, still answering from the previous data: ${reason}`);
      }
      this.#current = next;
      this.#options = options;
      return next;
    };
    const result = this.#queue.then(run, run);
    this.#queue = result.catch(() => {});
    return result;
  }

  /**
   * Replaces one dataset with `text` as its upstream URL serves it (one address/CIDR or `AS123 # name` per
   * line; a range dataset's IPv4 and IPv6 lists may come concatenated) and swaps it in at once, versioned
   * `version` (e.g. the fetch's date). `cloud_ranges` is replaced one provider at a time. Throws, leaving the
   * current data in place, on an unknown name, a bad version or provider, and text that is empty or not
   * the dataset's format (an error page, a truncated download).
   */
  replaceDataset(
    name: ReputationDatasetName,
    text: string,
    version: string,
    options: ReplaceDatasetOptions = {},
  ): ReputationData {
    if (!(reputationDatasetNames as readonly string[]).includes(name)) {
      throw new Error(
        `unknown reputation dataset ${JSON.stringify(name)}: one of ${reputationDatasetNames.join(", ")}`,
      );
    }
    if (!isVersionText(version)) {
      throw new Error(
        `bad version ${JSON.stringify(version)} for ${name}: letters, digits and . _ : + - only, at most 64`,
      );
    }
    const { provider } = options;
    if (
      name === "cloud_ranges" ? provider === undefined || !isProviderName(provider) : provider !== undefined
    ) {
      throw new Error(
        name === "cloud_ranges"
          ? `cloud_ranges is replaced per provider: give a provider name (a-z, 0-9, - and _), not ${JSON.stringify(provider)}`
          : `only cloud_ranges takes a provider, not ${name}`,
      );
    }
    const label = provider === undefined ? `${name} (replacement)` : `cloud_ranges/${provider} (replacement)`;
    const patch: Replaced = { datasets: {}, versions: {} };
    if (name === "hosting_asns" || name === "vpn_asns") {
      patch.datasets[name] = parseAsnList(text, label);
      patch.versions[name] = version;
    } else if (name === "cloud_ranges") {
      patch.datasets.cloud_ranges = new Map([
        [provider as string, parseAddressTexts([{ text, label }], true)],
      ]);
      patch.versions[`cloud_ranges/${provider}`] = version;
    } else {
      patch.datasets[name] = parseAddressTexts([{ text, label }], name !== "tor_exits");
      patch.versions[name] = version;
    }
    const next = overlay(this.#current, patch);
    this.#replaced = layer(this.#replaced, patch);
    this.#current = next;
    return next;
  }
}

/** `patch`'s datasets and versions replacing those of `base`; cloud ranges per provider. */
function layer(base: Replaced, patch: Replaced): Replaced {
  const datasets: ReputationDatasets = { ...base.datasets, ...patch.datasets };
  const cloud = joinCloud(base.datasets.cloud_ranges, patch.datasets.cloud_ranges);
  if (cloud) datasets.cloud_ranges = cloud;
  return { datasets, versions: { ...base.versions, ...patch.versions } };
}

function joinCloud(
  base: ReadonlyMap<string, AddressSet> | undefined,
  patch: ReadonlyMap<string, AddressSet> | undefined,
): ReadonlyMap<string, AddressSet> | undefined {
  if (!patch) return base;
  return new Map([...(base ?? []), ...patch]);
}

/** `base` with the replaced datasets laid over it. */
function overlay(base: ReputationData, replaced: Replaced): ReputationData {
  const { datasets, versions } = layer({ datasets: base.datasets, versions: { ...base.versions } }, replaced);
  return buildReputationData({
    dir: base.dir,
    datasets,
    versions,
    missing: base.missing.filter((name) => datasets[name] === undefined),
  });
}
