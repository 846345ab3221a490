// Breaks test-support-only-in-tests: production code importing a test harness.
import type { Harness } from "../testing/harness.js";

export type Wrapped = { harness: Harness };
