import { secretsRotate } from "./secret-rotate.js";

/** `pnpm secrets:rotate [--dry-run] [--batch-size N]`: see secret-rotate.ts. */
process.exitCode = await secretsRotate(process.argv.slice(2));
