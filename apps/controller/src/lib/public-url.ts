import { isIP } from "node:net";
import { isBlockedAddress } from "@vantage/probes";
import { ApiError } from "../http/errors.js";

/**
 * Refuses, with 422 `target_not_allowed` on `path`, a URL the controller will send to (a task's callback,
 * an alert channel's webhook, a status page's webhook subscriber) whose host is, as written, `localhost` or
 * a private, loopback, link-local, metadata or reserved address, unless the operator allows private targets.
 * A name is left to the sending: the target guard checks the address it resolves to then, since a name can
 * move after it is saved. Something that is not a URL is the schema's to refuse, not this.
 */
export function assertPublicUrl(url: string, path: string, allowPrivate: boolean): void {
  if (allowPrivate) return;
  let host: string;
  try {
    // The WHATWG parser writes every IPv4 form (0x7f.1, 2130706433) as dotted decimal.
    host = new URL(url).hostname.replace(/^\[|\]$/g, "").toLowerCase();
  } catch {
    return;
  }
  const local = host === "localhost" || host.endsWith(".localhost");
  if (local || (isIP(host) !== 0 && isBlockedAddress(host)))
    throw new ApiError("target_not_allowed", `${path}: ${host} is not a public address`, [
      { path, message: "private, loopback, link-local and reserved addresses are refused" },
    ]);
}
