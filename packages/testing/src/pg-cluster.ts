import { execFile, execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runWithOwner } from "./owner-watch.js";
import { freePort } from "./ports.js";

/** A PostgreSQL cluster of its own that a test can stop and start (fault tests); destroyed afterwards. */
export interface PostgresCluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust auth on loopback). */
  url: string;
  port: number;
  /** Its directory (data, log and socket), removed by `destroy`. */
  dir: string;
  /** `pg_ctl stop -m fast`: connections are cut, new ones refused until `start`. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stopped for `seconds`, then started again: when it stopped and when it was back (ms since the epoch). */
  away(seconds: number): Promise<{ stoppedAt: number; backAt: number }>;
  destroy(): Promise<void>;
}

function binDir(): string {
  const fromPath = (() => {
    try {
      return execFileSync("sh", ["-c", "command -v pg_ctl"], { encoding: "utf8" }).trim();
    } catch {
      return "";
    }
  })();
  if (fromPath) return join(fromPath, "..");
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (existsSync(join(root, v, "bin", "pg_ctl"))) return join(root, v, "bin");
  throw new Error(
    "PostgreSQL binaries (initdb, pg_ctl) not found: apt-get install postgresql (pnpm test does)",
  );
}

/**
 * Runs a PostgreSQL binary, as the `postgres` user when we are root (initdb refuses to run as root).
 * Asynchronous: a test's own clock and traffic go on while pg_ctl waits for a stop, and clusters that start
 * together run their initdb side by side (run synchronously, two took 3 s of the worker's event loop).
 */
async function pg(bin: string, args: string[]): Promise<void> {
  const [file, argv] = asPostgres(bin, args);
  await new Promise<void>((resolve, reject) => {
    const child = execFile(file, argv, (err, _stdout, stderr) =>
      err ? reject(new Error(`${bin.split("/").pop()} ${args.at(-1)}: ${err.message} ${stderr}`)) : resolve(),
    );
    child.stdin?.end();
  });
}

/** The command line that runs `bin` as the `postgres` user when we are root, as itself otherwise. */
function asPostgres(bin: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
}

/** initdb + pg_ctl start on a free port in a temporary directory (a few seconds). */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), "vantage-pgc-"));
  chmodSync(dir, 0o777);
  if (process.getuid?.() === 0) {
    try {
      execFileSync("id", ["postgres"], { stdio: "ignore" });
    } catch {
      execFileSync("useradd", ["-r", "-M", "postgres"]);
    }
  }
  const data = join(dir, "data");
  const port = await freePort();
  await pg(join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8"]);
  const ctl = (action: string, extra: string[] = []) =>
    pg(join(bin, "pg_ctl"), ["-D", data, "-l", join(dir, "log"), "-w", ...extra, action]);
  const start = async () =>
    ctl("start", ["-o", `-h 127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c full_page_writes=off`]);
  // pg_ctl daemonizes the server: stopped and removed if this process ends without `destroy`.
  const forget = runWithOwner(
    asPostgres(join(bin, "pg_ctl"), ["-D", data, "-w", "stop", "-m", "immediate"]).flat(),
    ["rm", "-rf", dir],
  );
  await start();
  const stop = () => ctl("stop", ["-m", "fast"]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    stop,
    start,
    async away(seconds) {
      await stop();
      const stoppedAt = Date.now();
      await new Promise((r) => setTimeout(r, seconds * 1000));
      await start();
      return { stoppedAt, backAt: Date.now() };
    },
    async destroy() {
      try {
        await ctl("stop", ["-m", "immediate"]);
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
      forget();
    },
  };
}
