/**
 * Per-agent NATS credentials.
 *
 *   pnpm agent:add <node-id> [--name N] [--country CC] [--region R] [--provider P] [options]
 *   pnpm nats:controller-user [options]              (same as: pnpm agent:add --controller)
 *   pnpm agent:add <node-id> --remove                (revokes the agent: drops its users entry and seed)
 *   pnpm agent:add <node-id> --env-only [--name …]   (prints the agent's environment again; no key change)
 *
 * Options: --out-dir DIR (seed files, default .vantage/nats), --users-file FILE (default
 * <out-dir>/users.conf), --nats-url URL (for the printed environment), --seed-path PATH (where the seed
 * will live on the agent's host, default /etc/vantage/agent.nk), --inbox-prefix P (controller), --rotate.
 *
 * Writes the nkey seed (mode 0600) into the output directory, adds the public key with its permissions to
 * the users file that deploy/nats/nats-server.conf includes, and prints the environment block.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  agentKey,
  assertNodeId,
  createAgentCredentials,
  createControllerCredentials,
  parseUsers,
  removeUser,
  renderAgentEnv,
  renderUsers,
  type UsersEntry,
  upsertUser,
} from "@vantage/nats-auth";

const out = (s: string) => process.stdout.write(s);

function fail(message: string): never {
  process.stderr.write(`agent:add: ${message}\n`);
  process.exit(2);
}

function readUsers(file: string): UsersEntry[] {
  return existsSync(file) ? parseUsers(readFileSync(file, "utf8")) : [];
}

function writeUsers(file: string, entries: UsersEntry[]): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, renderUsers(entries), { mode: 0o644 });
  renameSync(tmp, file);
}

function writeSeed(file: string, seed: string, rotate: boolean): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(file, `${seed}\n`, { mode: 0o600, flag: rotate ? "w" : "wx" });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") {
      fail(`${file} already exists; pass --rotate to replace the key`);
    }
    throw err;
  }
  chmodSync(file, 0o600);
}

function main(): void {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  const { values, positionals } = parsed;
  const outDir = resolve(values["out-dir"]);
  const usersFile = resolve(values["users-file"] ?? join(outDir, "users.conf"));
  const natsUrl = values["nats-url"];
  const rotate = values.rotate;

  let entries: UsersEntry[];
  try {
    entries = readUsers(usersFile);
  } catch (err) {
    fail(`${usersFile}: ${err instanceof Error ? err.message : String(err)}`);
  }

  if (values.controller) {
    const creds = createControllerCredentials({ inboxPrefix: values["inbox-prefix"] });
    let next: UsersEntry[];
    try {
      next = upsertUser(entries, { key: "controller", user: creds.user }, { replace: rotate });
    } catch (err) {
      fail(err instanceof Error ? err.message : String(err));
    }
    const seedFile = join(outDir, "controller.nk");
    writeSeed(seedFile, creds.seed, rotate);
    writeUsers(usersFile, next);
    out(
      `created ${seedFile} (mode 0600): the controller's nkey seed; keep it on the controller hosts only\n`,
    );
    out(
      `updated ${usersFile} (${next.length} users): reload nats-server (systemctl reload nats-server, or nats-server --signal reload[=<pid>])\n\n`,
    );
    out(`# users entry\n${JSON.stringify(creds.user)} # vantage:controller\n\n`);
    out(
      `# controller environment\nNATS_URL=${natsUrl}\nNATS_NKEY_SEED_FILE=${values["seed-path"] ?? "/etc/vantage/controller.nk"}\n`,
    );
    return;
  }

  const nodeId = positionals[0];
  if (!nodeId || positionals.length > 1)
    fail("usage: pnpm agent:add <node-id> [--name … --country … --region … --provider …]");
  try {
    assertNodeId(nodeId);
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }

  const agentSeedPath = values["seed-path"] ?? "/etc/vantage/agent.nk";
  // The agent's environment block; it holds no secret, so it can be printed again at any time.
  const agentEnv = () => {
    try {
      return renderAgentEnv({
        nodeId,
        name: values.name,
        country: values.country,
        region: values.region,
        provider: values.provider,
        natsUrl,
        seedFile: agentSeedPath,
      });
    } catch (err) {
      fail(err instanceof Error ? err.message : String(err));
    }
  };

  if (values["env-only"]) {
    if (!entries.some((e) => e.key === agentKey(nodeId))) fail(`${nodeId} has no entry in ${usersFile}`);
    out(agentEnv());
    return;
  }

  if (values.remove) {
    const next = removeUser(entries, agentKey(nodeId));
    if (next.length === entries.length) fail(`${nodeId} has no entry in ${usersFile}`);
    writeUsers(usersFile, next);
    out(
      `removed ${nodeId} from ${usersFile}: reload nats-server to disconnect it (systemctl reload nats-server, or nats-server --signal reload[=<pid>])\n`,
    );
    // A revoked key is worth nothing; leaving its seed would only make a later add of the same id fail.
    const seedFile = join(outDir, `agent-${nodeId}.nk`);
    if (existsSync(seedFile)) {
      rmSync(seedFile);
      out(`deleted ${seedFile}; delete the copy on the agent's host too\n`);
    }
    return;
  }

  const creds = createAgentCredentials(nodeId);
  let next: UsersEntry[];
  try {
    next = upsertUser(entries, { key: agentKey(nodeId), user: creds.user }, { replace: rotate });
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  const env = agentEnv();
  const seedFile = join(outDir, `agent-${nodeId}.nk`);
  writeSeed(seedFile, creds.seed, rotate);
  writeUsers(usersFile, next);
  out(`created ${seedFile} (mode 0600): copy it to the agent's host as ${agentSeedPath}\n`);
  out(
    `updated ${usersFile} (${next.length} users): reload nats-server (systemctl reload nats-server, or nats-server --signal reload[=<pid>])\n\n`,
  );
  out(`# users entry\n${JSON.stringify(creds.user)} # vantage:${agentKey(nodeId)}\n\n`);
  out(`# agent environment (e.g. /etc/vantage/agent.env)\n${env}`);
}

function parse() {
  return parseArgs({
    allowPositionals: true,
    options: {
      name: { type: "string" },
      country: { type: "string" },
      region: { type: "string" },
      provider: { type: "string" },
      "out-dir": { type: "string", default: ".vantage/nats" },
      "users-file": { type: "string" },
      "nats-url": { type: "string", default: "nats://127.0.0.1:4222" },
      "seed-path": { type: "string" },
      "inbox-prefix": { type: "string" },
      controller: { type: "boolean", default: false },
      remove: { type: "boolean", default: false },
      "env-only": { type: "boolean", default: false },
      rotate: { type: "boolean", default: false },
    },
  });
}

main();
