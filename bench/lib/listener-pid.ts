import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/**
 * The pid of the process listening on 127.0.0.1:`port`, found with `ss -ltnpH` (iproute2), and checked to
 * be a child of this process whose command line contains `mustContain`: a benchmark only ever signals a
 * process it started itself. (`cluster.startController()` hands back only `url` and `stop()`.)
 */
export function listenerPid(port: number, mustContain: string): number {
  const out = execFileSync("ss", ["-ltnpH", `sport = :${port}`], { encoding: "utf8" });
  const pids = [...new Set([...out.matchAll(/pid=(\d+)/g)].map((m) => Number(m[1])))];
  if (pids.length !== 1) throw new Error(`expected one process listening on port ${port}, ss says: ${out}`);
  const pid = pids[0]!;
  // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may contain spaces, so read after the last ')'.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  if (ppid !== process.pid || !cmdline.includes(mustContain)) {
    throw new Error(`process ${pid} on port ${port} is not our child running ${mustContain}: ${cmdline}`);
  }
  return pid;
}
