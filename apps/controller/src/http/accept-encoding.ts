/** Whether an `Accept-Encoding` header allows gzip (`gzip`, `x-gzip` or `*`, with a q-value above 0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let star: boolean | undefined;
  for (const part of header.split(",")) {
    const [name = "", ...params] = part.split(";").map((s) => s.trim());
    const coding = name.toLowerCase();
    let q = 1;
    for (const p of params) {
      const m = /^q=([0-9.]+)$/i.exec(p);
      if (m) q = Number(m[1]);
    }
    if (coding === "gzip" || coding === "x-gzip") return q > 0;
    if (coding === "*") star = q > 0;
  }
  return star ?? false;
}
