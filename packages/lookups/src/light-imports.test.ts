import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/*
 * The controller loads this package; the ping and traceroute probes load a native raw-socket module that
 * only agents need. The lookups reach probes through subpath exports (target-guard, dns-query) that must
 * keep it that way: this walks the runtime imports from src/index.ts (`import type` is erased under
 * verbatimModuleSyntax; `import { type X }` is not, so it counts) and checks where they lead.
 */

const here = dirname(fileURLToPath(import.meta.url));
const probesDir = resolve(here, "../../probes");
const probesExports = (
  JSON.parse(readFileSync(resolve(probesDir, "package.json"), "utf8")) as {
    exports: Record<string, string>;
  }
).exports;

const IMPORT = /^(?:import|export)\s+(type\s+)?(?:[^"';]*?\sfrom\s+)?"([^"]+)";/gm;

function walk(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (files.has(file)) continue;
    files.add(file);
    for (const [, typeOnly, specifier = ""] of readFileSync(file, "utf8").matchAll(IMPORT)) {
      if (typeOnly) continue;
      if (specifier.startsWith(".")) {
        pending.push(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
      } else if (specifier.startsWith("@vantage/probes")) {
        const target = probesExports[`.${specifier.slice("@vantage/probes".length)}`];
        if (target === undefined) throw new Error(`${specifier} is not exported by @vantage/probes`);
        pending.push(resolve(probesDir, target));
      } else {
        packages.add(specifier.startsWith("node:") ? "node:*" : specifier);
      }
    }
  }
  return { files, packages };
}

describe("what loading @vantage/lookups loads", () => {
  const { files, packages } = walk(resolve(here, "index.ts"));
  const probeFiles = [...files]
    .filter((f) => f.startsWith(`${probesDir}/`))
    .map((f) => f.slice(probesDir.length + 1))
    .sort();

  it("reaches packages/probes only through its light subpaths, never ping, traceroute or the main entry", () => {
    expect(probeFiles.length).toBeGreaterThan(0);
    for (const banned of [
      "index.ts",
      "ping.ts",
      "traceroute.ts",
      "icmp-socket.ts",
      "http.ts",
      "registry.ts",
    ]) {
      expect(probeFiles).not.toContain(`src/${banned}`);
    }
  });

  it("loads no native module: node builtins and pure-JS packages only", () => {
    expect([...packages].sort()).toEqual([
      "asn1js",
      "dns-packet",
      "maxmind",
      "node:*",
      "pkijs",
      "zod",
      "zod/locales",
    ]);
  });
});
