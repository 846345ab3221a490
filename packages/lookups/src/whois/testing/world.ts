import type { LookupContext } from "../../types.js";
import {
  fixture,
  type RdapReply,
  type RdapServer,
  startRdapServer,
  startWhoisServer,
  testBootstrap,
  type WhoisReply,
  type WhoisServer,
} from "./servers.js";

/*
 * The servers the lookup tests talk to, all on 127.0.0.1 (IP literals, never names), and a context whose
 * `lookup` throws, so no test can ask a resolver. Every TLD a test uses is named by the bootstrap or the
 * WHOIS overrides (IANA included): nothing falls through to a real server. Answers are fixtures.
 */
export interface World {
  rdap: RdapServer;
  /** The registry's port-43 server (every TLD's, and ARIN's stand-in). */
  registry: WhoisServer;
  /** A registrar's server, reached by referral (and RIPE's stand-in). */
  registrar: WhoisServer;
  iana: WhoisServer;
  /** Accepts the connection, never answers. */
  silent: WhoisServer;
  /** The context: RDAP for com, exampletld (ok), cn (500), co.uk (HTML), jp (hangs), 192.0.2.0/24. */
  ctx: (extra?: Partial<LookupContext>) => LookupContext;
  /** The same without RDAP: the port-43 path alone. */
  whoisOnly: (extra?: Partial<LookupContext>) => LookupContext;
  close: () => Promise<void>;
}

export async function startWorld(): Promise<World> {
  let rdapRoutes: Record<string, RdapReply> = {};
  let answers: Record<string, WhoisReply> = {};
  const rdap = await startRdapServer((path) => rdapRoutes[path] ?? { status: 404, body: { errorCode: 404 } });
  const registrar = await startWhoisServer((q) => {
    if (q === "example-thin.com") return fixture("com-registrar.txt", { REGISTRAR_WHOIS: "127.0.0.1:9" });
    if (q === "193.0.6.139") return fixture("ripe.txt");
    return "No match for this query.\r\n";
  });
  const registry = await startWhoisServer((q) => answers[q] ?? fixture("com-not-found.txt"));
  const iana = await startWhoisServer((q) =>
    q === "exampletld2"
      ? fixture("iana-tld.txt", { REGISTRY_WHOIS: `whois://${registry.address}/` })
      : fixture("iana-no-tld.txt"),
  );
  const silent = await startWhoisServer(() => ({ hang: true }));

  const thin = JSON.parse(fixture("rdap-com.json", { RDAP: rdap.url })) as {
    events: { eventAction: string }[];
  };
  rdapRoutes = {
    "/com/domain/example.com": { status: 200, body: fixture("rdap-com.json", { RDAP: rdap.url }) },
    // The registry's record without the expiry, as a thin registry answers: the registrar's record has it.
    "/com/domain/example-thin.com": {
      status: 200,
      body: { ...thin, events: thin.events.filter((e) => e.eventAction !== "expiration") },
    },
    "/registrar/domain/EXAMPLE.COM": { status: 200, body: fixture("rdap-registrar.json") },
    "/cc/domain/example.exampletld": { status: 200, body: fixture("rdap-cctld.json") },
    "/err/domain/example.cn": { status: 500, body: "internal error" },
    "/html/domain/example.co.uk": { status: 200, body: "<html>maintenance</html>" },
    "/hang/domain/example.jp": { status: 200, hang: true },
    "/ip/ip/192.0.2.1": { status: 200, body: fixture("rdap-ip.json") },
  };
  const ref = { REGISTRAR_WHOIS: registrar.address };
  answers = {
    "DOMAIN example.com": fixture("com-registry.txt", ref),
    "DOMAIN example-thin.com": fixture("thin-registry.txt", ref),
    // A registry answer naming the registry itself as the place to look next.
    "DOMAIN self-referring.com": fixture("thin-registry.txt", { REGISTRAR_WHOIS: registry.address }),
    "example.cn": fixture("cn.txt"),
    "example.co.uk": fixture("uk.txt"),
    "no-such-name.co.uk": fixture("uk-not-found.txt"),
    "-T dn,ace xn--mller-example-wob.de": fixture("de.txt"),
    "example.jp/e": fixture("jp.txt"),
    "example.co.jp/e": fixture("jp-org.txt"),
    "example.exampletld2": fixture("com-registry.txt", ref),
    "n + 193.0.6.139": fixture("arin.txt", { RIPE_WHOIS: registrar.address }),
    "DOMAIN huge.com": `Domain Name: HUGE.COM\r\n${"% padding padding padding padding\r\n".repeat(2500)}`,
    "DOMAIN rate-limited.com": "Query rate exceeded. Try again in an hour.\r\n",
  };

  const at = (path: string) => `${rdap.url}/${path}/`;
  const ctx = (extra: Partial<LookupContext> = {}): LookupContext => ({
    allowPrivate: true,
    timeoutMs: 3000,
    lookup: async (host) => {
      throw new Error(`the test asked a resolver for ${host}`);
    },
    whois: {
      rdapBootstrap: testBootstrap({
        dns: [
          [["com"], [at("com")]],
          [["exampletld"], [at("cc")]],
          [["cn"], [at("err")]],
          [["co.uk"], [at("html")]],
          [["jp"], [at("hang")]],
        ],
        ipv4: [[["192.0.2.0/24"], [at("ip")]]],
      }),
      whoisServers: {
        com: registry.address,
        cn: registry.address,
        uk: registry.address,
        de: registry.address,
        jp: registry.address,
        hangtld: silent.address,
        ip: registry.address,
        iana: iana.address,
      },
    },
    ...extra,
  });
  const whoisOnly = (extra: Partial<LookupContext> = {}): LookupContext => {
    const base = ctx(extra);
    return { ...base, whois: { ...base.whois, rdapBootstrap: testBootstrap({}) } };
  };
  return {
    rdap,
    registry,
    registrar,
    iana,
    silent,
    ctx,
    whoisOnly,
    close: async () => {
      await Promise.all([rdap, registry, registrar, iana, silent].map((s) => s.close()));
    },
  };
}
