import { execFileSync } from "node:child_process";

/**
 * A private nftables table for one test file, deleted on `remove()` and again at process exit in case the
 * run is cut short. Rules only touch addresses on loopback, so nothing leaves the machine. Needs root.
 */
/** Each rule names its chain first: `out …` (output hook) or `in …` (input hook). */
export function nftTable(rules: string[]): { remove: () => void } {
  const name = `vantage_probes_test_${process.pid}_${Math.floor(Math.random() * 1e6)}`;
  const script = [
    `add table inet ${name}`,
    `add chain inet ${name} out { type filter hook output priority 0; policy accept; }`,
    `add chain inet ${name} in { type filter hook input priority 0; policy accept; }`,
    ...rules.map((r) => `add rule inet ${name} ${r}`),
  ].join("\n");
  try {
    execFileSync("nft", ["-f", "-"], { input: script, stdio: ["pipe", "pipe", "pipe"] });
  } catch (error) {
    throw new Error(`this test needs root and the nft binary (nftables): ${(error as Error).message}`);
  }
  let removed = false;
  const remove = (): void => {
    if (removed) return;
    removed = true;
    process.off("exit", remove);
    try {
      execFileSync("nft", ["delete", "table", "inet", name], { stdio: "pipe" });
    } catch {
      // Already gone.
    }
  };
  process.once("exit", remove);
  return { remove };
}
