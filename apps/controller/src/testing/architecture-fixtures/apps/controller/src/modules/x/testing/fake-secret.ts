// A module's test support, in its testing/ folder: its tests may import it.
import type { Secret } from "../secret.js";

export const fakeSecret = (): Secret | undefined => undefined;
