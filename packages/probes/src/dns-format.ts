import type { Answer } from "dns-packet";

/** Names the way dig prints them: fully qualified, with the trailing dot (the root is "."). */
export const fqdn = (name: string): string =>
  name === "" || name === "." ? "." : `${name.replace(/\.$/, "")}.`;

/** One TXT character-string quoted as dig does: `"` and `\` escaped, non-printable bytes as \DDD. */
function quoteTxt(part: string | Buffer): string {
  const bytes = typeof part === "string" ? Buffer.from(part) : part;
  let out = "";
  for (const b of bytes) {
    if (b === 0x22 || b === 0x5c) out += `\\${String.fromCharCode(b)}`;
    else if (b < 0x20 || b > 0x7e) out += `\\${b.toString().padStart(3, "0")}`;
    else out += String.fromCharCode(b);
  }
  return `"${out}"`;
}

/** The RDATA of one answer as dig's presentation format shows it. */
export function formatValue(answer: Answer): string {
  switch (answer.type) {
    case "A":
    case "AAAA":
      return answer.data;
    case "CNAME":
    case "DNAME":
    case "NS":
    case "PTR":
      return fqdn(answer.data);
    case "MX":
      return `${answer.data.preference ?? 0} ${fqdn(answer.data.exchange)}`;
    case "SOA": {
      const d = answer.data;
      return [fqdn(d.mname), fqdn(d.rname), d.serial, d.refresh, d.retry, d.expire, d.minimum]
        .map((v) => String(v ?? 0))
        .join(" ");
    }
    case "TXT": {
      const parts = Array.isArray(answer.data) ? answer.data : [answer.data];
      return parts.map(quoteTxt).join(" ");
    }
    case "SRV":
      return `${answer.data.priority ?? 0} ${answer.data.weight ?? 0} ${answer.data.port} ${fqdn(answer.data.target)}`;
    case "OPT":
      return "";
    default: {
      const data: unknown = answer.data;
      // RFC 3597 generic form for types this probe does not pretty-print.
      if (Buffer.isBuffer(data)) return `\\# ${data.length} ${data.toString("hex")}`;
      return JSON.stringify(data);
    }
  }
}
