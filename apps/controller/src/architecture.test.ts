import { fileURLToPath } from "node:url";
import { cruise, type ICruiseOptions, type ICruiseResult } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import { beforeAll, describe, expect, it } from "vitest";

// The architecture rules of docs/architecture.md, as dependency-cruiser rules: see /.dependency-cruiser.cjs
// for each rule and why it exists. `pnpm arch` prints the same violations from the command line.

type Violation = ICruiseResult["summary"]["violations"][number];

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const fixturesRoot = fileURLToPath(new URL("./testing/architecture-fixtures/", import.meta.url));

/** Cruises `apps` and `packages` under `baseDir` (every path in the result is relative to it). */
async function cruiseTree(baseDir: string): Promise<ICruiseResult> {
  const options: ICruiseOptions = await extractDepcruiseOptions(`${repoRoot}.dependency-cruiser.cjs`);
  const { output } = await cruise(["apps", "packages"], { ...options, baseDir });
  if (typeof output === "string") throw new Error("expected a cruise result, got a report");
  return output;
}

/** One line per violation: `rule: from → to`, a cycle written out in full. */
function describeViolation(v: Violation): string {
  const to = v.cycle?.length ? v.cycle.map((step) => step.name).join(" → ") : v.to;
  return `${v.rule.name}: ${v.from} → ${to}`;
}

describe("architecture (dependency-cruiser, .dependency-cruiser.cjs)", () => {
  let tree: ICruiseResult;
  beforeAll(async () => {
    tree = await cruiseTree(repoRoot);
  });

  it("apps/ and packages/ break no rule", () => {
    const lines = tree.summary.violations.map(describeViolation);
    const why = new Map(tree.summary.ruleSetUsed?.forbidden?.map((r) => [r.name, r.comment]) ?? []);
    const broken = [...new Set(tree.summary.violations.map((v) => v.rule.name))];
    const message = [
      `${lines.length} architecture violation(s) (\`pnpm arch\` prints them too):`,
      ...lines.map((l) => `  ${l}`),
      "",
      "Why these rules exist:",
      ...broken.map((name) => `  ${name}: ${why.get(name) ?? ""}`),
    ].join("\n");
    expect(lines.length, message).toBe(0);
  });

  it("sees the whole tree, workspace packages included", () => {
    // A resolution that quietly stopped working would make the rules pass vacuously.
    expect(tree.summary.totalCruised).toBeGreaterThan(100);
    const protocol = tree.modules.filter((m) => m.source.startsWith("packages/protocol/src/"));
    const toProbes = protocol.flatMap((m) =>
      m.dependencies.filter((d) => d.module === "@vantage/probes").map((d) => d.resolved),
    );
    expect(toProbes).toContain("packages/probes/src/index.ts");
    // NodeNext `.js` specifiers resolve to the `.ts` files.
    const app = tree.modules.find((m) => m.source === "apps/controller/src/main.ts");
    expect(app?.dependencies.some((d) => d.module.endsWith(".js") && d.resolved.endsWith(".ts"))).toBe(true);
    expect(tree.modules.some((m) => m.source.includes("node_modules"))).toBe(false);
    expect(tree.modules.some((m) => m.source.includes("architecture-fixtures"))).toBe(false);
  });

  describe("the rules bite: testing/architecture-fixtures/ mirrors the layout and breaks each rule once", () => {
    let fixtures: ICruiseResult;
    beforeAll(async () => {
      fixtures = await cruiseTree(fixturesRoot);
    });

    const src = "apps/controller/src";
    it("reports exactly the planted violations", () => {
      expect(fixtures.summary.violations.map(describeViolation).sort()).toEqual(
        [
          `no-cycles: ${src}/lib/a.ts → ${src}/lib/b.ts → ${src}/lib/a.ts`,
          `http-lib-db-import-no-module: ${src}/http/auth.ts → ${src}/modules/x/secret.ts`,
          `module-public-face-only: ${src}/modules/y/index.ts → ${src}/modules/x/secret.ts`,
          `module-public-face-only-from-outside: ${src}/testing/harness.ts → ${src}/modules/x/secret.ts`,
          `nothing-imports-app: ${src}/modules/y/index.ts → ${src}/app.ts`,
          `deps-is-a-leaf: ${src}/deps.ts → ${src}/modules/x/index.ts`,
          `packages-never-import-apps: packages/widgets/src/index.ts → ${src}/app.ts`,
          `no-unresolvable-imports: ${src}/lib/broken.ts → ./missing.js`,
          `test-support-only-in-tests: ${src}/lib/uses-test-support.ts → ${src}/testing/harness.ts`,
        ].sort(),
      );
    });

    it("counts a cycle of type-only imports as a cycle", () => {
      const cycle = fixtures.summary.violations.find((v) => v.rule.name === "no-cycles");
      expect(cycle?.cycle?.map((step) => step.name)).toEqual([`${src}/lib/b.ts`, `${src}/lib/a.ts`]);
      expect(cycle?.cycle?.every((step) => step.dependencyTypes.includes("type-only"))).toBe(true);
    });

    it("allows a module's public face, a module's own files, testing/ → app.ts, tests → test support", () => {
      const allowed = [
        [`${src}/modules/y/index.ts`, `${src}/modules/x/index.ts`],
        [`${src}/modules/x/index.ts`, `${src}/modules/x/secret.ts`],
        [`${src}/testing/harness.ts`, `${src}/app.ts`],
        [`${src}/modules/x/test/checks.ts`, `${src}/modules/x/testing/fake-secret.ts`],
        [`${src}/modules/x/testing/fake-secret.ts`, `${src}/modules/x/secret.ts`],
      ];
      for (const [from, to] of allowed) {
        const edge = fixtures.modules
          .find((m) => m.source === from)
          ?.dependencies.find((d) => d.resolved === to);
        expect(edge, `${from} → ${to} is cruised`).toBeDefined();
        expect(edge?.valid, `${from} → ${to} is allowed`).toBe(true);
      }
    });
  });
});
