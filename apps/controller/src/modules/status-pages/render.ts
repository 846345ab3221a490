import { BAR_DAYS, type ComponentStatus, type DayBar, type Snapshot } from "./snapshot.js";
import { iso } from "./views.js";

/** Every user-supplied text goes through this before it reaches HTML or XML. */
export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const labels: Record<ComponentStatus, string> = {
  operational: "Operational",
  degraded: "Degraded performance",
  major_outage: "Major outage",
  maintenance: "Under maintenance",
  unknown: "No data",
};
const colours: Record<ComponentStatus, string> = {
  operational: "#2e9e4f",
  degraded: "#d9a400",
  major_outage: "#d1362f",
  maintenance: "#3b6fd1",
  unknown: "#8a8f98",
};

const fmtPct = (v: number | null) => (v === null ? "no data" : `${v.toFixed(2)}%`);
const fmtTime = (v: Date | string) => iso(v).replace("T", " ").slice(0, 16) + " UTC";

/** A day's bar colour, by index into `BAR_COLOURS`: no data, operational, degraded, outage. */
const BAR_COLOURS = ["#d5d8dc", colours.operational, colours.degraded, colours.major_outage] as const;
function barKind(uptime: number | null): number {
  if (uptime === null) return 0;
  if (uptime >= 99.9) return 1;
  return uptime >= 95 ? 2 : 3;
}
/** Day i's stroke (`M<x> 0v28`), made once: a page of 50 components × 90 days makes none of its own. */
const SEGMENTS = Array.from({ length: BAR_DAYS }, (_, i) => `M${i * 5 + 2} 0v28`);
const segment = (i: number) => SEGMENTS[i] ?? `M${i * 5 + 2} 0v28`;

/**
 * 90 bars as one inline SVG per component: no script, no external request. All days of one colour are one
 * stroked path (`M<x> 0v28` per day), in the order the colours first appear, so a page of 50 components
 * stays small whatever the days look like; the day-by-day figures are in the JSON.
 */
function bars(days: DayBar[], uptime: number | null): string {
  const d = ["", "", "", ""];
  const order: number[] = [];
  for (let i = 0; i < days.length; i++) {
    const k = barKind(days[i]!.uptime_percent);
    if (d[k] === "") order.push(k);
    d[k] += segment(i);
  }
  let paths = "";
  for (const k of order) paths += `<path stroke="${BAR_COLOURS[k]}" stroke-width="4" d="${d[k]}"/>`;
  return `<svg class="bars" role="img" viewBox="0 0 ${days.length * 5} 28" preserveAspectRatio="none"><title>90-day uptime: ${fmtPct(uptime)}</title>${paths}</svg>`;
}

const style = `body{font:15px/1.5 system-ui,sans-serif;max-width:860px;margin:0 auto;padding:24px;color:#1d2126}
header{display:flex;align-items:center;gap:12px}header img{max-height:48px}
.banner{padding:14px 18px;border-radius:6px;color:#fff;font-weight:600;margin:16px 0}
.c{border:1px solid #e1e4e8;border-radius:6px;padding:12px 16px;margin:8px 0}
.c h3{display:flex;justify-content:space-between;margin:0 0 8px;font-size:15px}
.bars{width:100%;height:28px;display:block}.legend{display:flex;justify-content:space-between;color:#6a737d;font-size:12px}
.i{border-left:4px solid #d1362f;padding:4px 14px;margin:12px 0}.i.resolved{border-color:#2e9e4f}
.m{border-left:4px solid #3b6fd1;padding:4px 14px;margin:12px 0}small{color:#6a737d}`;

/** The page as HTML that needs no JavaScript: every user-supplied text escaped. */
export function renderHtml(s: Snapshot, paths: { base: string }): string {
  const p = s.page;
  const e = escapeXml;
  const logo = p.logo_url ? `<img src="${e(p.logo_url)}" alt="">` : "";
  const components = s.components
    .map(
      (
        c,
      ) => `<section class="c"><h3><span>${e(c.name)}</span><span style="color:${colours[c.status]}">${labels[c.status]}</span></h3>
${bars(c.days, c.uptime_90d_percent)}<div class="legend"><span>90 days ago</span><span>${fmtPct(c.uptime_90d_percent)} uptime</span><span>Today</span></div></section>`,
    )
    .join("\n");
  const incidents = s.incidents
    .map(
      (
        i,
      ) => `<article class="i${i.resolved_at ? " resolved" : ""}"><h3>${e(i.title)} <small>${e(i.status)} · ${e(i.impact)} impact</small></h3>
${i.updates.map((u) => `<p><strong>${e(u.status)}</strong> — ${e(u.message)}<br><small>${fmtTime(u.created_at)}</small></p>`).join("\n")}</article>`,
    )
    .join("\n");
  const maintenance = s.maintenance
    .map(
      (m) =>
        `<article class="m"><h3>${e(m.title)}</h3><p>${e(m.description)}</p><small>${fmtTime(m.starts_at)} – ${fmtTime(m.ends_at)}</small></article>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${e(p.title)} status</title>
<link rel="alternate" type="application/atom+xml" title="Incidents" href="${paths.base}/feed.atom">
<style>${style}</style></head>
<body><header>${logo}<h1>${e(p.title)}</h1></header>
<div class="banner" style="background:${colours[s.status]}">${s.status === "operational" ? "All systems operational" : labels[s.status]}</div>
${incidents ? `<h2>Incidents</h2>\n${incidents}` : ""}
${maintenance ? `<h2>Scheduled maintenance</h2>\n${maintenance}` : ""}
<h2>Components</h2>
${components || "<p>No components yet.</p>"}
<footer><small>Updated ${fmtTime(s.generatedAt)} · <a href="${paths.base}/status.json">JSON</a> · <a href="${paths.base}/feed.atom">Atom feed</a> · subscribe by email: <code>POST ${paths.base}/subscribe</code></small></footer>
</body></html>`;
}

/** An Atom 1.0 feed: one entry per incident, its updates in the content. */
export function renderAtom(s: Snapshot, pageUrl: string): string {
  const e = escapeXml;
  const updated = s.incidents[0] ? iso(s.incidents[0].updated_at) : s.page.updated_at.toISOString();
  const entries = s.incidents
    .map((i) => {
      const html = i.updates.map((u) => `<p><strong>${e(u.status)}</strong> — ${e(u.message)}</p>`).join("");
      return `<entry><id>urn:vantage:incident:${e(i.id)}</id><title>${e(i.title)}</title><updated>${iso(i.updated_at)}</updated><published>${iso(i.created_at)}</published><link rel="alternate" href="${e(pageUrl)}"/><content type="html">${e(html)}</content></entry>`;
    })
    .join("\n");
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><id>urn:vantage:status-page:${e(s.page.id)}</id><title>${e(s.page.title)} incidents</title><updated>${updated}</updated><link rel="alternate" href="${e(pageUrl)}"/><link rel="self" href="${e(pageUrl)}/feed.atom"/><author><name>${e(s.page.title)}</name></author>
${entries}
</feed>`;
}

/** A shields-style badge: `label | value`, width from the text's length. */
export function renderBadge(label: string, value: string, colour: string): string {
  const e = escapeXml;
  const lw = 6 * label.length + 10;
  const vw = 6 * value.length + 10;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${lw + vw}" height="20" role="img" aria-label="${e(label)}: ${e(value)}"><title>${e(label)}: ${e(value)}</title><rect width="${lw}" height="20" fill="#555"/><rect x="${lw}" width="${vw}" height="20" fill="${colour}"/><g fill="#fff" text-anchor="middle" font-family="Verdana,sans-serif" font-size="11"><text x="${lw / 2}" y="14">${e(label)}</text><text x="${lw + vw / 2}" y="14">${e(value)}</text></g></svg>`;
}

export function statusBadge(s: Snapshot): string {
  return renderBadge("status", labels[s.status].toLowerCase(), colours[s.status]);
}

export function uptimeBadge(s: Snapshot): string {
  let runs = 0;
  let failures = 0;
  for (const c of s.components)
    for (const d of c.days) {
      runs += d.runs;
      failures += d.failures;
    }
  const v = runs === 0 ? null : ((runs - failures) / runs) * 100;
  const colour =
    v === null
      ? colours.unknown
      : v >= 99.9
        ? colours.operational
        : v >= 95
          ? colours.degraded
          : colours.major_outage;
  return renderBadge("uptime 90d", v === null ? "no data" : `${v.toFixed(2)}%`, colour);
}

/** A small confirmation or error page (subscribe links). */
export function messagePage(title: string, text: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeXml(title)}</title><style>${style}</style></head><body><h1>${escapeXml(title)}</h1><p>${escapeXml(text)}</p></body></html>`;
}
