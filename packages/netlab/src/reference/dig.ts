/** What `dig +noall +answer +comments +stats` printed. */
export interface DigReference {
  status: string | null;
  flags: string[];
  /** dig saw TC over UDP and asked again over TCP. */
  retriedOverTcp: boolean;
  protocol: "udp" | "tcp" | null;
  queryTimeMs: number | null;
  answers: { name: string; ttl: number; class: string; type: string; value: string }[];
}

const headerLine = /^;; ->>HEADER<<- opcode: \S+, status: (\w+), id: \d+/;
const flagsLine = /^;; flags: ([^;]*);/;
const recordLine = /^(\S+)\s+(\d+)\s+(IN|CH|HS)\s+(\S+)\s+(.*)$/;

/** Parses dig's output; when dig retried over TCP only the last answer's header counts. */
export function parseDig(output: string): DigReference {
  const result: DigReference = {
    status: null,
    flags: [],
    retriedOverTcp: false,
    protocol: null,
    queryTimeMs: null,
    answers: [],
  };
  let section: string | null = null;
  for (const raw of output.split("\n")) {
    const line = raw.trimEnd();
    if (line.startsWith(";; Truncated, retrying in TCP mode")) result.retriedOverTcp = true;
    const header = headerLine.exec(line);
    if (header) result.status = header[1] ?? null;
    const flags = flagsLine.exec(line);
    if (flags) result.flags = (flags[1] ?? "").trim().split(/\s+/).filter(Boolean);
    const time = /^;; Query time: (\d+) msec/.exec(line);
    if (time) result.queryTimeMs = Number(time[1]);
    const server = /^;; SERVER: .*\((UDP|TCP)\)$/.exec(line);
    if (server) result.protocol = server[1] === "TCP" ? "tcp" : "udp";
    const sectionHead = /^;; (\w+) SECTION:/.exec(line);
    if (sectionHead) section = sectionHead[1] ?? null;
    if (line === "") section = null;
    if (line.startsWith(";")) continue;
    const rec = recordLine.exec(line);
    // With +noall +answer the records come without a section header, so any record line outside a
    // named non-answer section is an answer.
    if (rec && (section === null || section === "ANSWER")) {
      result.answers.push({
        name: rec[1] ?? "",
        ttl: Number(rec[2]),
        class: rec[3] ?? "IN",
        type: rec[4] ?? "",
        value: rec[5] ?? "",
      });
    }
  }
  return result;
}
