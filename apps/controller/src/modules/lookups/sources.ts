import { loadRdapBootstrap, type WhoisOptions } from "@vantage/lookups";
import { type Config, ConfigError } from "../../config.js";

/**
 * The WHOIS lookup's sources from the configuration: the RDAP bootstrap (`VANTAGE_RDAP_BOOTSTRAP`, else
 * the shipped IANA snapshot) and port-43 server overrides (`VANTAGE_WHOIS_SERVERS`). A bootstrap that
 * cannot be read stops the controller at start with one line, as any other bad setting does.
 */
export function loadWhoisOptions(config: Config): WhoisOptions {
  let rdapBootstrap: WhoisOptions["rdapBootstrap"];
  try {
    rdapBootstrap = loadRdapBootstrap(config.VANTAGE_RDAP_BOOTSTRAP);
  } catch (error) {
    throw new ConfigError(
      `invalid configuration: VANTAGE_RDAP_BOOTSTRAP=${JSON.stringify(config.VANTAGE_RDAP_BOOTSTRAP ?? "")}: ${(error as Error).message}`,
    );
  }
  return {
    rdapBootstrap,
    ...(config.VANTAGE_WHOIS_SERVERS ? { whoisServers: config.VANTAGE_WHOIS_SERVERS } : {}),
  };
}
