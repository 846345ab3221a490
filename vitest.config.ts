import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["apps/*/src/**/*.test.ts", "packages/*/src/**/*.test.ts"],
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    reporters: process.env.VITEST_JSON_OUT
      ? ["default", ["json", { outputFile: process.env.VITEST_JSON_OUT }]]
      : ["default"],
  },
});
