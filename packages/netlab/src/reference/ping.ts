/** What iputils `ping` printed: per-reply lines and the summary. Times in milliseconds. */
export interface PingReference {
  target: string | null;
  transmitted: number;
  received: number;
  errors: number;
  /** Percentage as printed (integer for iputils 2022, may carry decimals in other versions). */
  lossPercent: number;
  rtt: { min: number; avg: number; max: number; mdev: number } | null;
  replies: { seq: number; ttl: number; timeMs: number; from: string }[];
}

const replyLine = /^\d+ bytes from (\S+?)(?: \([^)]*\))?: icmp_seq=(\d+) ttl=(\d+) time=([\d.]+) ms/;
const summaryLine =
  /^(\d+) packets transmitted, (\d+) received(?:, \+(\d+) duplicates)?(?:, \+(\d+) errors)?, ([\d.]+)% packet loss/;
const rttLine =
  /^(?:rtt|round-trip) min\/avg\/max\/(?:mdev|stddev) = ([\d.]+)\/([\d.]+)\/([\d.]+)\/([\d.]+) ms/;

export function parsePing(output: string): PingReference {
  const result: PingReference = {
    target: null,
    transmitted: 0,
    received: 0,
    errors: 0,
    lossPercent: 100,
    rtt: null,
    replies: [],
  };
  let sawSummary = false;
  for (const raw of output.split("\n")) {
    const line = raw.trim();
    const head = /^PING (\S+?)(?:\(| \()/.exec(line);
    if (head?.[1]) result.target = head[1];
    const reply = replyLine.exec(line);
    if (reply) {
      result.replies.push({
        from: reply[1] ?? "",
        seq: Number(reply[2]),
        ttl: Number(reply[3]),
        timeMs: Number(reply[4]),
      });
      continue;
    }
    const summary = summaryLine.exec(line);
    if (summary) {
      sawSummary = true;
      result.transmitted = Number(summary[1]);
      result.received = Number(summary[2]);
      result.errors = Number(summary[4] ?? 0);
      result.lossPercent = Number(summary[5]);
      continue;
    }
    const rtt = rttLine.exec(line);
    if (rtt) {
      result.rtt = { min: Number(rtt[1]), avg: Number(rtt[2]), max: Number(rtt[3]), mdev: Number(rtt[4]) };
    }
  }
  if (!sawSummary) throw new Error(`no ping summary in output:\n${output}`);
  return result;
}
