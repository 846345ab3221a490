import { describe, expect, it } from "vitest";
import { issueKey, keyHeaders, newUser } from "../../testing/accounts.js";
import { type FakeNode, serveNode, settle } from "../../testing/agents.js";
import { runTask, tcpBody } from "../../testing/probe-requests.js";
import { type Form, forms, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

/** Twelve simulated agents in several countries, regions and providers (issue #30 item 3). */
const twelve: FakeNode[] = [
  { id: "de1", country: "DE", region: "eu-central", provider: "hetzner" },
  { id: "de2", country: "DE", region: "eu-central", provider: "hetzner" },
  {
    id: "de3",
    country: "DE",
    region: "eu-central",
    provider: "aws",
    capabilities: ["ipv4", "ipv6", "tcp", "http", "dns", "ping"],
  },
  { id: "fr1", country: "FR", region: "eu-west", provider: "ovh", asn: 16276 },
  { id: "gb1", country: "GB", region: "eu-west", provider: "aws" },
  { id: "us1", country: "US", region: "us-east", provider: "aws", asn: 13335, tags: ["eyeball"] },
  { id: "us2", country: "US", region: "us-east", provider: "aws" },
  { id: "us3", country: "US", region: "us-west", provider: "gcp" },
  { id: "br1", country: "BR", region: "sa-east", provider: "aws" },
  { id: "jp1", country: "JP", region: "ap-northeast", provider: "gcp", asn: 13335 },
  { id: "sg1", country: "SG", region: "ap-southeast", provider: "digitalocean" },
  { id: "au1", country: "AU", region: "ap-southeast", provider: "vultr" },
];
const byId = new Map(twelve.map((n) => [n.id, n]));

describe.each(forms)("probe locations, form %s", (form: Form) => {
  const db = useTestDb("pglite");

  const app = async () => {
    const t = await db.freshApp(form, { VANTAGE_ALLOW_PRIVATE_TARGETS: "false" });
    for (const n of twelve) serveNode(t.bus, n);
    await settle();
    return t;
  };
  /** The nodes a TCP probe with these extra body fields ran on (its results), sorted. */
  const ranOn = async (t: TestApp, extra: Record<string, unknown>) => {
    const run = await runTask(t, form, "tcp", { ...tcpBody(form, "example.com", 443), ...extra });
    expect(run.created.status, JSON.stringify(run.created.body)).toBe(form === "a" ? 202 : 200);
    expect(run.results.every((r: { success: boolean }) => r.success)).toBe(true);
    return {
      id: run.task.task_id ?? run.task.id,
      nodes: run.results.map((r: { node_id: string }) => r.node_id).sort() as string[],
    };
  };
  const place = (id: string) => byId.get(id)!;

  it("picks by country, name, continent, region, provider and tag, combined with +, each entry its count", async () => {
    const t = await app();
    expect((await ranOn(t, { locations: [{ selector: "germany+hetzner", count: 2 }] })).nodes).toEqual([
      "de1",
      "de2",
    ]);
    expect((await ranOn(t, { locations: ["DE+ipv6"] })).nodes).toEqual(["de3"]);
    expect((await ranOn(t, { locations: ["us-west"] })).nodes).toEqual(["us3"]);
    expect((await ranOn(t, { locations: [{ selector: "United States + AWS", count: 5 }] })).nodes).toEqual([
      "us1",
      "us2",
    ]);

    // Europe, three of its five nodes: one in each of its three countries.
    for (let i = 0; i < 3; i++) {
      const eu = (await ranOn(t, { locations: [{ selector: "europe", count: 3 }] })).nodes;
      expect(new Set(eu.map((id) => place(id).country))).toEqual(new Set(["DE", "FR", "GB"]));
    }

    // Alternatives: each its own count, never a node twice.
    const mixed = (
      await ranOn(t, {
        locations: ["JP", { selector: "NA", count: 1 }, { selector: "north america", count: 3 }],
      })
    ).nodes;
    expect(mixed).toHaveLength(4);
    expect(new Set(mixed).size).toBe(4);
    expect(mixed).toContain("jp1");
    expect(mixed.filter((id) => place(id).country === "US")).toHaveLength(3);
    // `NA` is Namibia (a country code wins over a continent's): no node there, so that entry adds none.

    // A network and an operator's tag (VANTAGE_NODE_ASN, VANTAGE_NODE_TAGS).
    expect((await ranOn(t, { locations: [{ selector: "AS13335", count: 5 }] })).nodes).toEqual([
      "jp1",
      "us1",
    ]);
    expect((await ranOn(t, { locations: ["as13335+asia"] })).nodes).toEqual(["jp1"]);
    expect((await ranOn(t, { locations: [{ selector: "eyeball", count: 3 }] })).nodes).toEqual(["us1"]);

    // Oceania and Asia by name, then a provider alone.
    expect((await ranOn(t, { locations: ["oceania"] })).nodes).toEqual(["au1"]);
    expect((await ranOn(t, { locations: [{ selector: "asia", count: 9 }] })).nodes).toEqual(["jp1", "sg1"]);
    expect((await ranOn(t, { locations: ["DigitalOcean"] })).nodes).toEqual(["sg1"]);
  });

  it("refuses an unknown selector with a 400 naming it, and locations with node ids", async () => {
    const t = await app();
    const unknown = await t.call("POST", "/v1/probe/tcp", {
      body: { ...tcpBody(form, "example.com", 443), locations: ["DE", "hetzner+atlantis"] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe("validation_error");
    expect(unknown.body.error.details[0].path).toBe("body.locations.1");
    expect(unknown.body.error.message).toContain('"atlantis"');
    // A network no node is in is unknown too.
    const network = await t.call("POST", "/v1/probe/tcp", {
      body: { ...tcpBody(form, "example.com", 443), locations: ["AS64500"] },
    });
    expect(network.status).toBe(400);
    expect(network.body.error.details[0].path).toBe("body.locations.0");

    const both = await t.call("POST", "/v1/probe/tcp", {
      body: { ...tcpBody(form, "example.com", 443, ["de1"]), locations: ["DE"] },
    });
    expect(both.status).toBe(400);
    expect(both.body.error.details[0].path).toBe("body.locations");

    // A place with no node (a real country): nothing to run on.
    const none = await t.call("POST", "/v1/probe/tcp", {
      body: { ...tcpBody(form, "example.com", 443), locations: ["iceland"] },
    });
    expect(none.status).toBe(503);
    expect(none.body.error.code).toBe("no_nodes_available");
    expect(none.body.error.message).toContain('"iceland"');
  });

  it("reuse runs on the nodes of an earlier task; an unknown task is a 400", async () => {
    const t = await app();
    const first = await ranOn(t, { locations: [{ selector: "europe", count: 2 }, "asia"] });
    expect(first.nodes).toHaveLength(3);
    for (let i = 0; i < 3; i++) {
      expect((await ranOn(t, { reuse: first.id })).nodes).toEqual(first.nodes);
    }
    const missing = await t.call("POST", "/v1/probe/tcp", {
      body: { ...tcpBody(form, "example.com", 443), reuse: "task_doesnotexist0" },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details[0].path).toBe("body.reuse");
  });

  it("reuse of an account's task: its owner only; a stranger or an anonymous caller gets the 400", async () => {
    const t = await app();
    const owner = await newUser(t, "reuse-owner");
    const stranger = await newUser(t, "reuse-stranger");
    const ownerKey = await issueKey(t, owner.userId, { scopes: ["read"] });
    const strangerKey = await issueKey(t, stranger.userId, { scopes: ["read"] });
    const post = (extra: Record<string, unknown>, headers: Record<string, string> = {}) =>
      t.call("POST", "/v1/probe/tcp", { body: { ...tcpBody(form, "example.com", 443), ...extra }, headers });
    const first = await post(
      { locations: [{ selector: "asia", count: 2 }] },
      keyHeaders(form, ownerKey.secret),
    );
    expect(first.status).toBe(form === "a" ? 202 : 200);
    const id = first.body.data.task_id as string;
    await t.drain();
    const again = await post({ reuse: id }, keyHeaders(form, ownerKey.secret));
    expect(again.status).toBe(form === "a" ? 202 : 200);
    for (const headers of [keyHeaders(form, strangerKey.secret), {}]) {
      const refused = await post({ reuse: id }, headers);
      expect(refused.status).toBe(400);
      expect(refused.body.error.details[0].path).toBe("body.reuse");
    }
  });

  it("GET /v1/nodes/selectors lists what the nodes answer to, with counts", async () => {
    const t = await app();
    const res = await t.call("GET", "/v1/nodes/selectors");
    expect(res.status).toBe(200);
    const items = res.body.data.items as {
      selector: string;
      kind: string;
      name: string;
      nodes: number;
      online: number;
    }[];
    const find = (kind: string, selector: string) =>
      items.find((i) => i.kind === kind && i.selector === selector);
    expect(find("country", "DE")).toEqual({
      selector: "DE",
      kind: "country",
      name: "Germany",
      nodes: 3,
      online: 3,
    });
    expect(find("continent", "europe")).toMatchObject({ name: "Europe", nodes: 5 });
    expect(find("continent", "north-america")).toMatchObject({ nodes: 3 });
    expect(find("provider", "aws")).toMatchObject({ nodes: 5 });
    expect(find("region", "ap-southeast")).toMatchObject({ nodes: 2 });
    expect(find("tag", "ipv6")).toMatchObject({ nodes: 1 });
    expect(find("asn", "AS13335")).toMatchObject({ nodes: 2, online: 2 });
    expect(find("tag", "eyeball")).toMatchObject({ nodes: 1 });
    expect(items[0]!.kind).toBe("continent");
    expect((await t.call("GET", "/v1/nodes/selectors?x=1")).status).toBe(400);
  });
});
