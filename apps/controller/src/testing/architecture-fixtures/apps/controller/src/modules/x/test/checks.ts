// Allowed: test code (here a test/ folder; *.test.ts files alike) imports its module's test support.
import { fakeSecret } from "../testing/fake-secret.js";

export const seen = fakeSecret();
