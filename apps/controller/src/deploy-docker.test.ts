import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * deploy/docker (docs/containers.md) cannot be built or run where the suite runs (no Docker engine), so this
 * reads the files instead: the capabilities each service gets, what every service falls back on when it
 * fails, and that the Dockerfiles stay in step with the repository (pnpm version, one Node for every stage).
 */
const root = fileURLToPath(new URL("../../../", import.meta.url));
const dockerDir = join(root, "deploy/docker");

/**
 * js-yaml, already installed: swagger-parser (a development dependency of the root) reads YAML through
 * json-schema-ref-parser with it. Reached through them so that this test adds no dependency.
 */
function loadYaml(text: string): unknown {
  const fromRoot = createRequire(join(root, "package.json"));
  const fromSwagger = createRequire(fromRoot.resolve("@apidevtools/swagger-parser"));
  const fromRefParser = createRequire(fromSwagger.resolve("@apidevtools/json-schema-ref-parser"));
  const yaml = fromRefParser("js-yaml") as { load(text: string): unknown };
  return yaml.load(text);
}

type Service = {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  cap_add?: string[];
  cap_drop?: string[];
  security_opt?: string[];
  healthcheck?: { test?: string[]; disable?: boolean };
  restart?: string;
  read_only?: boolean;
  env_file?: string[];
  environment?: Record<string, string>;
  secrets?: { source: string; target: string }[];
  volumes?: string[];
};
type Compose = { services: Record<string, Service>; secrets: Record<string, { file: string }> };

const compose = loadYaml(readFileSync(join(dockerDir, "compose.yaml"), "utf8")) as Compose;
const services = Object.entries(compose.services);
const agents = services.filter(([name]) => name.startsWith("agent-"));
const natsServers = services.filter(([name]) => /^nats-\d$/.test(name));
const dockerfile = (name: string) => readFileSync(join(dockerDir, name), "utf8");
const clusterUrls = "nats://nats-1:4222,nats://nats-2:4222,nats://nats-3:4222";

describe("deploy/docker/compose.yaml", () => {
  it("has PostgreSQL, three NATS servers, a controller and two agents", () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ["agent-1", "agent-2", "controller", "nats-1", "nats-2", "nats-3", "postgres"].sort(),
    );
  });

  it("gives the agents CAP_NET_RAW and nothing else, without no-new-privileges (it would void the file capability)", () => {
    for (const [, agent] of agents) {
      expect(agent.cap_drop).toEqual(["ALL"]);
      expect(agent.cap_add).toEqual(["NET_RAW"]);
      expect(agent.security_opt ?? []).not.toContainEqual(expect.stringContaining("no-new-privileges"));
    }
  });

  it("adds no capability to any other service; the controller and NATS drop them all", () => {
    for (const [name, service] of services) {
      if (name.startsWith("agent-")) continue;
      expect(service.cap_add, name).toBeUndefined();
    }
    for (const name of ["controller", ...natsServers.map(([n]) => n)]) {
      expect(compose.services[name]!.cap_drop, name).toEqual(["ALL"]);
    }
  });

  it("gives every service a restart policy, and a healthcheck of its own or of its image", () => {
    for (const [name, service] of services) {
      expect(service.restart, name).toBe("unless-stopped");
      if (service.build) {
        expect(dockerfile(service.build.dockerfile.replace("deploy/docker/", "")), name).toMatch(
          /^HEALTHCHECK .*\\\n\s+CMD \["node", "-e", /m,
        );
      } else {
        expect(service.healthcheck?.test?.length, name).toBeGreaterThan(0);
      }
    }
  });

  it("keeps every root filesystem read-only", () => {
    for (const [name, service] of services) expect(service.read_only, name).toBe(true);
  });

  it("runs the repository's cluster configuration on each server, named after its service", () => {
    for (const [name, server] of natsServers) {
      const mounted = (server.volumes ?? []).map((v) => v.split(":"));
      const config = mounted.find(([, target]) => target === "/etc/nats/nats-server.conf");
      expect(config?.[0]).toBe("../nats/cluster/nats-server.conf");
      expect(existsSync(resolve(dockerDir, config![0]!))).toBe(true);
      expect(mounted.some(([, target]) => target === "/etc/nats/users.conf")).toBe(true);
      const command = server.command ?? [];
      expect(command[command.indexOf("--name") + 1]).toBe(name);
    }
  });

  it("points the controller and every agent at all three servers, each with its own seed and env file", () => {
    for (const name of ["controller", ...agents.map(([n]) => n)]) {
      expect(compose.services[name]!.environment?.NATS_URL, name).toBe(clusterUrls);
    }
    const seeds = agents.map(([, a]) => compose.secrets[a.secrets![0]!.source]!.file);
    const envFiles = agents.map(([, a]) => a.env_file![0]);
    expect(new Set(seeds).size).toBe(agents.length);
    expect(new Set(envFiles).size).toBe(agents.length);
  });
});

describe("deploy/docker Dockerfiles", () => {
  const pnpm = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).packageManager as string;

  for (const name of ["controller.Dockerfile", "agent.Dockerfile"]) {
    it(`${name}: installs package.json's pnpm and runs one Node image in every stage`, () => {
      const text = dockerfile(name);
      expect(text).toContain(`npm install -g ${pnpm} `);
      // Comments may name corepack (to say it is not used); no command runs it.
      expect(text).not.toMatch(/^\s*(RUN|&&)[^#\n]*corepack/im);
      const froms = text.match(/^FROM \S+/gm) ?? [];
      expect(froms.length).toBeGreaterThanOrEqual(2);
      for (const from of froms) expect(from).toMatch(/^FROM (\$\{NODE_IMAGE\}|toolchain)$/);
      expect(text).toMatch(/^USER 10001:10001$/m);
    });
  }

  it("agent.Dockerfile starts the bundle with the thread-pool preload, from the three files only", () => {
    const text = dockerfile("agent.Dockerfile");
    expect(text).toContain(
      'ENTRYPOINT ["node", "--optimize-for-size", "--no-maglev", "--no-opt", "--require", "/opt/vantage-agent/threadpool.cjs", "/opt/vantage-agent/vantage-agent.mjs"]',
    );
    expect(text).toMatch(/setcap cap_net_raw\+ep /);
  });
});
