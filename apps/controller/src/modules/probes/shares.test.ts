import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startAgent } from "@vantage/agent";
import type { ProbeJobSpec, ProbeOutcome } from "@vantage/probes";
import { resultSigner, verifyResultSignature } from "@vantage/protocol";
import { type NatsServer, startNatsServer } from "@vantage/testing";
import { connectNats, openResultsLog, type ResultsLog } from "@vantage/transport";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { verifySource } from "../../../../cli/src/verify.js";
import { issueKey, keyHeaders, newUser } from "../../testing/accounts.js";
import { doneReply, serveNode, settle } from "../../testing/agents.js";
import { dbKinds, forms, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

/**
 * Share links, exports and result signatures (issue #30 items 5–6) through the API, with the real agent
 * code (`startAgent`: runner, signing, heartbeats) on the in-process bus. Only the probe itself is a stand-in
 * (no packet leaves the machine); everything around it is what runs in production.
 */
const quiet = pino({ level: "silent" });
const fakeProbe = async (spec: ProbeJobSpec): Promise<ProbeOutcome> => ({
  success: true,
  latency_ms: 3.25,
  error: null,
  detail: {
    resolved_ip: "192.0.2.10",
    port: (spec.params as { port?: number }).port ?? 443,
    connect_ms: 3.25,
  },
});

async function signingNode(t: TestApp, id: string) {
  const signer = resultSigner(generateKeyPairSync("ed25519").privateKey);
  const agent = startAgent({
    config: {
      VANTAGE_NODE_ID: id,
      VANTAGE_NODE_NAME: `Signer ${id}`,
      VANTAGE_NODE_COUNTRY: "NL",
      VANTAGE_NODE_REGION: "eu-west",
      VANTAGE_NODE_PROVIDER: "lab",
      VANTAGE_AGENT_CONCURRENCY: 4,
      VANTAGE_HEARTBEAT_MS: 60_000,
      VANTAGE_ALLOW_PRIVATE_TARGETS: true,
    },
    link: t.bus.agent(),
    log: quiet,
    probe: fakeProbe,
    signer,
  });
  for (let i = 0; i < 200; i++) {
    const nodes = await t.call("GET", "/v1/nodes");
    if (nodes.body.data.items.some((n: { id: string }) => n.id === id)) break;
    await settle();
  }
  return { signer, agent };
}

/** A node whose heartbeats announce one key while its replies are signed by another (or tampered with). */
async function forgingNode(t: TestApp, id: string) {
  const honest = resultSigner(generateKeyPairSync("ed25519").privateKey);
  const forger = resultSigner(generateKeyPairSync("ed25519").privateKey);
  const node = serveNode(t.bus, { id }, (job) => ({
    ...(doneReply(job, 2) as object),
    agent_version: "9.9.9",
    signature: { key: honest.key, sig: forger.sign("{}") },
  }));
  node.heartbeat({ signing_key: honest.key });
  await settle();
  return node;
}

/** Runs a tcp probe as `headers`' account on `nodeIds` and returns the finished task's id. */
async function finishedTask(t: TestApp, form: "a" | "b", headers: Record<string, string>, nodeIds: string[]) {
  const body =
    form === "a"
      ? { target: "example.com:443", node_ids: nodeIds }
      : { host: "example.com", port: 443, nodes: nodeIds };
  const created = await t.call("POST", "/v1/probe/tcp", { body, headers });
  expect(created.status).toBeLessThan(300);
  const id = created.body.data.task_id as string;
  for (let i = 0; i < 400; i++) {
    const got = await t.call("GET", `/v1/probe/tasks/${id}`, { headers });
    if (got.status === 200 && got.body.data.status === "done") return id;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`task ${id} did not finish`);
}

describe.each(dbKinds)("share links and signed results on %s", (kind) => {
  const db = useTestDb(kind);
  const stops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  describe.each(forms)("form %s", (form) => {
    it("publishes a signed task anyone can open and check; revoking it gives 404", async () => {
      const t = await db.freshApp(form);
      const { signer, agent } = await signingNode(t, "signer1");
      stops.push(() => agent.stop());
      const owner = await newUser(t, "owner");
      const id = await finishedTask(t, form, owner.headers, ["signer1"]);

      const nodes = await t.call("GET", "/v1/nodes");
      const listed = nodes.body.data.items.find((n: { id: string }) => n.id === "signer1");
      expect(listed.public_key).toBe(signer.key);

      expect((await t.call("POST", `/v1/probe/tasks/${id}/share`)).status).toBe(401);
      const stranger = await newUser(t, "stranger");
      expect(
        (await t.call("POST", `/v1/probe/tasks/${id}/share`, { headers: stranger.headers })).status,
      ).toBe(404);
      const readOnly = await issueKey(t, owner.userId, { scopes: ["read"] });
      const refused = await t.call("POST", `/v1/probe/tasks/${id}/share`, {
        headers: keyHeaders(form, readOnly.secret),
      });
      expect(refused.status).toBe(403);
      // What the dashboard asks before it offers Share: the owner (even with a read-only key) may share and
      // has no link yet; the stranger cannot read the task (404); signed out a 401.
      const state = (headers?: Record<string, string>) =>
        t.call("GET", `/v1/probe/tasks/${id}/share`, headers ? { headers } : {});
      const before = await state(keyHeaders(form, readOnly.secret));
      expect(before.status).toBe(200);
      expect(before.body.data).toEqual({ shareable: true, share: null });
      expect((await state(stranger.headers)).status).toBe(404);
      expect((await state()).status).toBe(401);
      const anonymousId = await finishedTask(t, form, {}, ["signer1"]);
      const anonymous = await t.call("GET", `/v1/probe/tasks/${anonymousId}/share`, {
        headers: owner.headers,
      });
      // An anonymous task: readable by whoever holds its id, nobody's to share.
      expect(anonymous.status).toBe(200);
      expect(anonymous.body.data).toEqual({ shareable: false, share: null });

      const shared = await t.call("POST", `/v1/probe/tasks/${id}/share`, { headers: owner.headers });
      expect(shared.status).toBe(201);
      const share = shared.body.data;
      expect(share.share_id).toMatch(/^shr_[A-Za-z0-9_-]{22}$/);
      const again = await t.call("POST", `/v1/probe/tasks/${id}/share`, { headers: owner.headers });
      expect(again.body.data.share_id).toBe(share.share_id);
      expect((await state(owner.headers)).body.data).toEqual({ shareable: true, share });

      // Signed out: JSON and page.
      const json = await t.call("GET", `/v1/shares/${share.share_id}`);
      expect(json.status).toBe(200);
      expect(json.body.data.task.task_id).toBe(id);
      expect(json.body.data.task.status).toBe("done");
      expect(json.body.data.nodes[0]).toMatchObject({ id: "signer1", country: "NL", public_key: signer.key });
      const [sig] = json.body.data.signatures;
      expect(sig).toMatchObject({ node_id: "signer1", alg: "ed25519", public_key: signer.key });
      expect(verifyResultSignature(listed.public_key, sig.statement, sig.signature)).toBe(true);
      const statement = JSON.parse(sig.statement);
      expect(statement).toMatchObject({ node_id: "signer1", outcome: { success: true, latency_ms: 3.25 } });
      expect(statement.spec).toMatchObject({ type: "tcp", params: { host: "example.com", port: 443 } });
      // A tampered statement does not verify.
      expect(verifyResultSignature(signer.key, sig.statement.replace("3.25", "1.25"), sig.signature)).toBe(
        false,
      );

      // `vantage verify`: the share's URL checks out (keys from the same deployment's /v1/nodes)...
      const viaApp = async (url: string) => {
        const u = new URL(url);
        const r = await t.call("GET", `${u.pathname}${u.search}`);
        return { ok: r.status < 300, status: r.status, json: async () => r.body };
      };
      const good = await verifySource(`http://vantage.test/share/${share.share_id}`, undefined, viaApp);
      expect(good.lines.join("\n")).toContain("ok   node signer1: signature valid, key matches /v1/nodes");
      expect(good.ok).toBe(true);
      // ...a saved copy whose shown latency was edited fails, as does one whose statement was edited.
      const dir = mkdtempSync(join(tmpdir(), "vantage-verify-"));
      const edited = structuredClone(json.body);
      edited.data.task.results[0].latency_ms = 1.25;
      writeFileSync(join(dir, "shown.json"), JSON.stringify(edited));
      const shownEdit = await verifySource(join(dir, "shown.json"), undefined);
      expect(shownEdit.ok).toBe(false);
      expect(shownEdit.lines.join("\n")).toContain("differs from what it signed (latency_ms)");
      const forged = structuredClone(json.body);
      forged.data.signatures[0].statement = forged.data.signatures[0].statement.replace("3.25", "1.25");
      forged.data.task.results[0].latency_ms = 1.25;
      writeFileSync(join(dir, "forged.json"), JSON.stringify(forged));
      const forgedCheck = await verifySource(join(dir, "forged.json"), undefined);
      rmSync(dir, { recursive: true, force: true });
      expect(forgedCheck.ok).toBe(false);
      expect(forgedCheck.lines.join("\n")).toContain("signature does not match");

      const page = await t.call("GET", `/share/${share.share_id}`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toContain("text/html");
      expect(page.text).toContain(
        '<meta property="og:title" content="Vantage: tcp example.com:443 from 1 node">',
      );
      expect(page.text).toContain(
        'property="og:description" content="1 of 1 node succeeded; median 3.3 ms; 1 signed',
      );
      expect(page.text).not.toContain("<script");

      const exported = await t.call("GET", `/v1/probe/tasks/${id}/export`, { headers: owner.headers });
      expect(exported.status).toBe(200);
      expect(exported.body.data.format).toBe("vantage-task/1");
      expect(exported.body.data.nodes[0].agent_version).toMatch(/^\d+\.\d+\.\d+/);
      expect(exported.body.data.signatures).toHaveLength(1);
      expect((await t.call("GET", `/v1/probe/tasks/${id}/export`)).status).toBe(404);

      const revoked = await t.call("DELETE", `/v1/probe/tasks/${id}/share`, { headers: owner.headers });
      expect(revoked.status).toBe(204);
      expect((await state(owner.headers)).body.data).toEqual({ shareable: true, share: null });
      expect((await t.call("GET", `/v1/shares/${share.share_id}`)).status).toBe(404);
      expect((await t.call("GET", `/share/${share.share_id}`)).status).toBe(404);
      expect((await t.call("DELETE", `/v1/probe/tasks/${id}/share`, { headers: owner.headers })).status).toBe(
        404,
      );
      expect((await t.call("GET", "/v1/shares/shr_AAAAAAAAAAAAAAAAAAAAAA")).status).toBe(404);
    });

    it("keeps a result whose signature does not verify, unsigned", async () => {
      const t = await db.freshApp(form);
      const node = await forgingNode(t, "forger");
      const owner = await newUser(t, "owner");
      const id = await finishedTask(t, form, owner.headers, ["forger"]);
      const exported = await t.call("GET", `/v1/probe/tasks/${id}/export`, { headers: owner.headers });
      expect(exported.body.data.task.results[0].success).toBe(true);
      expect(exported.body.data.signatures).toEqual([]);
      await node.stop();
    });
  });

  describe("form b with the results write-ahead log (ADR 0012)", () => {
    let nats: NatsServer;
    let nc: Awaited<ReturnType<typeof connectNats>>;
    beforeAll(async () => {
      nats = await startNatsServer({ jetstream: true });
      nc = await connectNats({ servers: nats.url, name: `shares-${kind}` });
    });
    afterAll(async () => {
      await nc?.close();
      await nats?.stop();
    });

    // The signatures are checked while the append is on its way, not before it: what is stored is the same.
    it("stores an honest node's signature and a forged one's result unsigned", async () => {
      const log = await openResultsLog(nc, {
        controllerId: `ctl_shares_${kind}`,
        maxAgeMs: 600_000,
        timeoutMs: 2000,
      });
      // The real log, with what was appended kept for the assertions.
      const appended: { id: string; results: { node_id: string; signature?: unknown }[] }[] = [];
      const resultsLog: ResultsLog = {
        ...log,
        append: (record) => {
          appended.push(record as (typeof appended)[number]);
          return log.append(record);
        },
      };
      const t = await db.freshApp("b", {}, { resultsLog });
      const { signer, agent } = await signingNode(t, "signer2");
      stops.push(() => agent.stop());
      const node = await forgingNode(t, "forger2");
      stops.push(() => node.stop());
      const owner = await newUser(t, "owner");
      const id = await finishedTask(t, "b", owner.headers, ["signer2", "forger2"]);
      // The log got the claims (the forged one too, its key being the announced one); the store did not.
      const inLog = appended.find((r) => r.id === id);
      expect(inLog?.results.map((r) => [r.node_id, r.signature !== undefined])).toEqual([
        ["signer2", true],
        ["forger2", true],
      ]);
      const exported = await t.call("GET", `/v1/probe/tasks/${id}/export`, { headers: owner.headers });
      expect(exported.status).toBe(200);
      const results = exported.body.data.task.results as { node_id: string; success: boolean }[];
      expect(results.map((r) => [r.node_id, r.success])).toEqual([
        ["signer2", true],
        ["forger2", true],
      ]);
      const signatures = exported.body.data.signatures as {
        public_key: string;
        statement: string;
        signature: string;
      }[];
      expect(signatures.map((x) => x.public_key)).toEqual([signer.key]);
      expect(verifyResultSignature(signer.key, signatures[0]!.statement, signatures[0]!.signature)).toBe(
        true,
      );
    });
  });
});
