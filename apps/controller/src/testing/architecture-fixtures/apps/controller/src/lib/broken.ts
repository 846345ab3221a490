// Breaks no-unresolvable-imports: the imported file does not exist.
// @ts-expect-error the missing file is the point of this fixture
import type { Missing } from "./missing.js";

export type Broken = Missing;
