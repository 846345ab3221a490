import type { TaskDocument } from "./task-document.js";

/**
 * The public page of a share link: server-rendered HTML that needs no JavaScript, every value escaped, with
 * Open Graph and Twitter card tags so a pasted link unfurls into a preview (title, one-line summary).
 */

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** "3 of 3 nodes answered; median 12.3 ms" — the card's description and the page's lead. */
export function shareSummary(doc: TaskDocument): string {
  const results = doc.task.results;
  const ok = results.filter((r) => r.success).length;
  const latencies = results
    .map((r) => r.latency_ms)
    .filter((v): v is number => typeof v === "number")
    .sort((a, b) => a - b);
  const median = latencies.length > 0 ? latencies[Math.floor((latencies.length - 1) / 2)] : undefined;
  const signed = doc.signatures.length;
  return (
    `${ok} of ${results.length} node${results.length === 1 ? "" : "s"} succeeded` +
    (median !== undefined ? `; median ${Math.round(median * 10) / 10} ms` : "") +
    (signed > 0 ? `; ${signed} signed result${signed === 1 ? "" : "s"}` : "")
  );
}

export function renderSharePage(doc: TaskDocument, urls: { page: string; json: string }): string {
  const t = doc.task;
  const title = `${t.type} ${t.target} from ${t.results.length} node${t.results.length === 1 ? "" : "s"}`;
  const summary = shareSummary(doc);
  const signedBy = new Set(doc.signatures.map((s) => s.node_id));
  const where = new Map(
    doc.nodes.map((n) => [n.id, [n.country, n.region, n.provider].filter(Boolean).join(" · ")]),
  );
  const rows = t.results
    .map((r) => {
      const latency = typeof r.latency_ms === "number" ? `${Math.round(r.latency_ms * 100) / 100} ms` : "–";
      const outcome = r.success ? "ok" : `failed: ${r.error?.code ?? "error"}`;
      return (
        `<tr><td>${esc(r.node_name)}</td><td>${esc(where.get(r.node_id) ?? "")}</td>` +
        `<td class="${r.success ? "ok" : "bad"}">${esc(outcome)}</td><td>${esc(latency)}</td>` +
        `<td>${signedBy.has(r.node_id) ? "signed" : "–"}</td></tr>`
      );
    })
    .join("");
  const meta = [
    ["og:type", "website"],
    ["og:site_name", "Vantage"],
    ["og:title", `Vantage: ${title}`],
    ["og:description", summary],
    ["og:url", urls.page],
  ]
    .map(([p, v]) => `<meta property="${p}" content="${esc(v ?? "")}">`)
    .join("");
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${esc(`Vantage: ${title}`)}</title><meta name="description" content="${esc(summary)}">${meta}` +
    `<meta name="twitter:card" content="summary"><meta name="twitter:title" content="${esc(`Vantage: ${title}`)}">` +
    `<meta name="twitter:description" content="${esc(summary)}"><meta name="robots" content="noindex">` +
    `<link rel="alternate" type="application/json" href="${esc(urls.json)}">` +
    `<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}` +
    `table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.3rem .6rem;border-bottom:1px solid #ddd}` +
    `.ok{color:#17692b}.bad{color:#a11}</style></head><body>` +
    `<h1>${esc(title)}</h1><p>${esc(summary)}. Status: ${esc(t.status)}. Started ${esc(t.created_at)}.</p>` +
    `<table><thead><tr><th>Node</th><th>Where</th><th>Outcome</th><th>Latency</th><th>Signature</th></tr></thead>` +
    `<tbody>${rows}</tbody></table>` +
    `<p>Read-only share. Full results as <a href="${esc(urls.json)}">JSON</a>; check the signatures offline ` +
    `with <code>vantage verify ${esc(urls.json)}</code>.</p></body></html>`
  );
}
