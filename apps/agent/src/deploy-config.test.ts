import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  agentKey,
  createAgentCredentials,
  createControllerCredentials,
  renderUsers,
} from "@vantage/nats-auth";
import { natsServerBinary } from "@vantage/testing";
import { describe, expect, it } from "vitest";

describe("deploy/nats", () => {
  it("the server config template with a generated users file is valid for nats-server", () => {
    const dir = mkdtempSync(join(tmpdir(), "vantage-deploy-"));
    try {
      const template = fileURLToPath(new URL("../../../deploy/nats/nats-server.conf", import.meta.url));
      copyFileSync(template, join(dir, "nats-server.conf"));
      writeFileSync(
        join(dir, "users.conf"),
        renderUsers([
          { key: "controller", user: createControllerCredentials().user },
          { key: agentKey("fra-1"), user: createAgentCredentials("fra-1").user },
        ]),
      );
      const res = spawnSync(natsServerBinary(), ["-t", "-c", join(dir, "nats-server.conf")], {
        encoding: "utf8",
        timeout: 10_000,
      });
      if (res.error) throw new Error(`cannot run nats-server (${res.error.message}); set NATS_SERVER_BIN`);
      expect(res.status, res.stderr + res.stdout).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
