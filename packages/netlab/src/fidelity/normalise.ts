/**
 * Both sides in one presentation form before comparing: names lower-case without the trailing dot, and
 * TXT as its list of character strings. Only spelling is normalised, never content.
 */
export function normaliseRecord(r: { name: string; type: string; value: string; ttl: number }): {
  name: string;
  type: string;
  value: string;
  ttl: number;
} {
  const name = r.name.toLowerCase().replace(/\.$/, "");
  let value = r.value.trim();
  if (r.type === "TXT") {
    const strings = [...value.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1] ?? "");
    value = JSON.stringify(strings.length > 0 ? strings : [value]);
  } else if (["CNAME", "NS", "MX", "SOA"].includes(r.type)) {
    value = value
      .split(/\s+/)
      .map((part) => part.toLowerCase().replace(/\.$/, ""))
      .join(" ");
  }
  return { name, type: r.type, value, ttl: r.ttl };
}
