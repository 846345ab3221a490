/**
 * `pnpm netlab:up` builds a lab that outlives this command and prints its topology; `pnpm netlab:down`
 * removes labs left behind (hand-started ones and those whose owner died; `--all` also live test labs).
 */

import { sweepLabs } from "./cleanup.js";
import { describeLab } from "./describe.js";
import { startLab } from "./lab.js";

const [command, ...flags] = process.argv.slice(2);
if (command === "up") {
  // One hand-made lab at a time: `up` twice replaces the first.
  sweepLabs({ manual: true });
  const lab = await startLab({ manual: true });
  process.stdout.write(`${describeLab(lab)}\n`);
  process.stdout.write("\nstop it with: pnpm netlab:down\n");
  process.exit(0);
} else if (command === "down") {
  const removed = sweepLabs({ manual: true, all: flags.includes("--all") });
  process.stdout.write(
    `${removed.length > 0 ? `removed lab(s): ${removed.join(", ")}` : "no lab to remove"}\n`,
  );
} else {
  console.error("usage: netlab up | down [--all]");
  process.exit(2);
}
