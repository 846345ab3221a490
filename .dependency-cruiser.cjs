// Architecture rules (docs/architecture.md §2 "Layout", §6 "Conventions"), checked by
// apps/controller/src/architecture.test.ts as part of `pnpm test`, and printed by `pnpm arch`.
//
// Paths are relative to the repository root (the base directory). The architecture test also cruises
// apps/controller/src/testing/architecture-fixtures/ with that folder as the base directory: the fixtures
// mirror the real layout (apps/controller/src/http/, .../modules/x/, packages/widgets/, ...), so the rules
// below match them unchanged and the test proves each rule reports what it should.

/** The controller's source root. */
const SRC = "^apps/controller/src/";

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      comment:
        "An import cycle (type-only imports included) means two files can no longer be understood, tested or " +
        "moved apart, and runtime cycles make module initialisation order matter. Break it by moving the " +
        "shared part down a layer (shared types go to deps.ts).",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "http-lib-db-import-no-module",
      comment:
        "http/, lib/ and db/ are the layers under the modules: they know no module. The HTTP layer gets what it " +
        "needs from a module as an interface the module implements (e.g. the Authenticator), passed in by app.ts.",
      severity: "error",
      from: { path: `${SRC}(http|lib|db)/` },
      to: { path: `${SRC}modules/` },
    },
    {
      name: "module-public-face-only",
      comment:
        "A module reaches another module only through its public face, modules/<other>/index.ts; everything " +
        "else in a module is its private implementation. A module's own files (its tests included) may " +
        "import each other freely.",
      severity: "error",
      from: { path: `${SRC}modules/([^/]+)/` },
      to: {
        path: `${SRC}modules/[^/]+/`,
        pathNot: [`${SRC}modules/$1/`, `${SRC}modules/[^/]+/index\\.ts$`],
      },
    },
    {
      name: "module-public-face-only-from-outside",
      comment:
        "The same rule for everything outside modules/ (app.ts, runtime.ts, testing/, e2e/, other apps and " +
        "packages): a module is entered through modules/<name>/index.ts only, so the composition root and the " +
        "test harness depend on the same face as every other consumer. http/, lib/ and db/ are left out here " +
        "only because http-lib-db-import-no-module already forbids them any module file (no double reports).",
      severity: "error",
      from: { pathNot: [`${SRC}modules/`, `${SRC}(http|lib|db)/`] },
      to: {
        path: `${SRC}modules/[^/]+/`,
        pathNot: `${SRC}modules/[^/]+/index\\.ts$`,
      },
    },
    {
      name: "nothing-imports-app",
      comment:
        "app.ts is the composition root: it imports the modules and the layers, so anything they import from " +
        "it closes a cycle and couples them to the whole application. Only runtime.ts, main.ts and testing/ " +
        "(and app.test.ts) may use it. Types every module receives live in deps.ts.",
      severity: "error",
      from: { path: [`${SRC}(modules|http|lib|db)/`, `${SRC}deps\\.ts$`] },
      to: { path: `${SRC}app\\.ts$` },
    },
    {
      name: "deps-is-a-leaf",
      comment:
        "deps.ts holds the types every module may receive; it sits under every module, so it imports no " +
        "module (modules/) and nothing from the composition layer (app.ts, runtime.ts, main.ts, testing/). " +
        "Type imports from npm packages, @vantage/* packages and the lower layers (config, db/, http/, lib/) " +
        "are fine: AppDeps needs Config, Db, Logger, ControllerTransport and HttpMetrics.",
      severity: "error",
      from: { path: `${SRC}deps\\.ts$` },
      to: { path: `${SRC}(modules/|app\\.ts$|runtime\\.ts$|main\\.ts$|testing/)` },
    },
    {
      name: "packages-never-import-apps",
      comment:
        "packages/* are the libraries the apps are built from (protocol, probes, lookups, transport, ...); " +
        "an import from an app would turn the dependency upside down and drag the app into every user of " +
        "the package.",
      severity: "error",
      from: { path: "^packages/" },
      to: { path: "^apps/" },
    },
    {
      name: "test-support-only-in-tests",
      comment:
        "Test support (fixtures, harnesses, fake peers) lives in `testing/` folders or `testing-*.ts` files; " +
        "tests live in `*.test.ts` files and `test/` and `e2e/` folders. Production code imports none of " +
        "them, so nothing built for a test (a fixture server, a planted secret, vitest itself) can reach a " +
        "release. Tests and other test support may import them freely.",
      severity: "error",
      from: {
        pathNot: ["\\.test\\.ts$", "(^|/)(testing|test|e2e)/", "(^|/)testing-"],
      },
      to: { path: ["(^|/)(testing|test|e2e)/", "(^|/)testing-", "\\.test\\.ts$"] },
    },
    {
      name: "no-unresolvable-imports",
      comment:
        "An import dependency-cruiser cannot resolve is an edge it cannot check: without this rule a broken " +
        "resolution (e.g. a .js specifier that no longer maps to a .ts file) would silently hide violations.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Cruise the source, not the dependencies. The workspace packages (@vantage/*) are symlinks in
    // node_modules; with preserveSymlinks false they resolve to their real paths (packages/*/src/index.ts),
    // so edges between apps and packages and between packages are seen and checked.
    doNotFollow: { path: "node_modules" },
    exclude: {
      path: [
        "node_modules",
        // Build output (pnpm build): bundles of the sources cruised here.
        "^apps/[^/]+/dist/",
        // Each fixture breaks a rule on purpose; the architecture test cruises them on their own.
        "^apps/controller/src/testing/architecture-fixtures/",
      ],
    },
    preserveSymlinks: false,
    moduleSystems: ["es6", "cjs"],
    // Type-only imports are dependencies too: a cycle through `import type` is still a cycle.
    tsPreCompilationDeps: true,
    // NodeNext: `import "./foo.js"` means foo.ts. dependency-cruiser maps .js → .ts (as tsc does) for
    // TypeScript sources (and .tsx: the dashboard); the extensions below cover extension-less specifiers.
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
      extensions: [".ts", ".tsx", ".js", ".cjs", ".mjs", ".d.ts", ".json"],
    },
  },
};
