import { execFile, execFileSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/** The system tools the lab drives; `sbin` ones are often missing from a non-login root PATH. */
export const labTools = ["ip", "nft", "sysctl", "ping", "traceroute", "dig", "curl", "openssl"] as const;
/** Tools only the lab's own tests use. */
const testTools = ["runuser", "mtr"] as const;
export type LabTool = (typeof labTools)[number] | (typeof testTools)[number];

const found = new Map<string, string | null>();

/** Absolute path of a binary from PATH plus the sbin directories, or null. */
export function which(name: string): string | null {
  const cached = found.get(name);
  if (cached !== undefined) return cached;
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/sbin", "/usr/bin", "/bin"];
  let hit: string | null = null;
  for (const dir of dirs) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      hit = join(dir, name);
      break;
    } catch {}
  }
  found.set(name, hit);
  return hit;
}

/** Path of a required tool; throws a message naming the missing tool and its Debian package. */
export function tool(name: LabTool): string {
  const path = which(name);
  if (!path)
    throw new Error(`netlab needs \`${name}\` (Debian: ${debianPackage[name]}); it is not installed`);
  return path;
}

const debianPackage: Record<LabTool, string> = {
  ip: "iproute2",
  nft: "nftables",
  sysctl: "procps",
  ping: "iputils-ping",
  traceroute: "traceroute",
  dig: "bind9-dnsutils",
  curl: "curl",
  openssl: "openssl",
  runuser: "util-linux",
  mtr: "mtr-tiny",
};

/**
 * Everything the lab needs, checked up front so a test fails with one clear sentence rather than an
 * obscure `ip` error half-way through the set-up. Never skips: the caller throws the message.
 */
export function missingRequirements(): string[] {
  const missing: string[] = [];
  if (process.platform !== "linux") missing.push("Linux (network namespaces)");
  if (typeof process.getuid === "function" && process.getuid() !== 0) {
    missing.push("root (creating network namespaces needs CAP_NET_ADMIN; run as root or with sudo)");
  }
  for (const t of labTools) {
    if (!which(t)) missing.push(`\`${t}\` (Debian package ${debianPackage[t]})`);
  }
  const ip = which("ip");
  if (ip && missing.length === 0) {
    try {
      execFileSync(ip, ["netns", "list"], { stdio: "pipe" });
    } catch (err) {
      missing.push(`a working \`ip netns\` (${(err as Error).message.split("\n")[0]})`);
    }
  }
  return missing;
}

export function assertRequirements(): void {
  const missing = missingRequirements();
  if (missing.length > 0) throw new Error(`netlab cannot run, missing: ${missing.join("; ")}`);
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion; never throws on a non-zero exit (reference tools exit 1 on loss). */
export function run(
  file: string,
  args: readonly string[],
  opts: { input?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      file,
      args,
      { timeout: opts.timeoutMs ?? 60_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== "number") {
          reject(new Error(`${file} ${args.join(" ")}: ${err.message}`));
          return;
        }
        resolve({ code: typeof err?.code === "number" ? err.code : 0, stdout, stderr });
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/** Like `run` but throws with the command's stderr on failure (set-up steps must all succeed). */
export async function must(file: string, args: readonly string[], input?: string): Promise<string> {
  const r = await run(file, args, input === undefined ? {} : { input });
  if (r.code !== 0) throw new Error(`\`${file} ${args.join(" ")}\` failed (${r.code}): ${r.stderr.trim()}`);
  return r.stdout;
}

/** Synchronous variant for exit handlers, where no promise will ever be awaited. */
export function runSync(file: string, args: readonly string[]): { code: number; stdout: string } {
  try {
    return { code: 0, stdout: execFileSync(file, args, { stdio: ["ignore", "pipe", "pipe"] }).toString() };
  } catch (err) {
    const e = err as { status?: number; stdout?: Buffer };
    return { code: e.status ?? 1, stdout: e.stdout?.toString() ?? "" };
  }
}
