import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import { messages } from "../i18n.js";

const t = messages({ en: { time: "Time" }, cn: { time: "时间" }, tw: { time: "時間" } });

export interface LatencySeries {
  /** The legend's name (a node's name or id). */
  name: string;
  /**
   * One value per x: the latency in ms; null where the node failed or the run was missed (a gap in the
   * line); undefined where the run used other nodes (the line goes on to the node's next run).
   */
  values: (number | null | undefined)[];
}

const palette = ["#1f6feb", "#1a7f37", "#bf8700", "#8250df", "#cf222e", "#0a7ea4", "#d1242f", "#6e7781"];

function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

/** Points with a value in the data uPlot drew: the chart's `data-points`, which tests wait on. */
function drawnPoints(u: uPlot): number {
  let n = 0;
  for (let s = 1; s < u.data.length; s++) for (const v of u.data[s] ?? []) if (v != null) n++;
  return n;
}

/**
 * Latency over time with uPlot: one line per node, gaps where it failed or a run was missed. `xs` are Unix seconds. The
 * chart follows its box's width (phones included); the caller gives a text alternative beside it.
 */
export function LatencyChart({
  xs,
  series,
  label,
}: {
  xs: number[];
  series: LatencySeries[];
  label: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const names = series.map((s) => s.name).join("\n");
  const data = (): uPlot.AlignedData => [xs, ...series.map((s) => s.values)];

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const fg = cssVar("--muted", "#5b6570");
    const line = cssVar("--line", "#dde1e6");
    const axis = { stroke: fg, grid: { stroke: line, width: 1 }, ticks: { stroke: line, width: 1 } };
    const opts: uPlot.Options = {
      width: Math.max(260, el.clientWidth),
      height: 240,
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.15] } },
      series: [
        { label: t("time") },
        ...series.map((s, i) => ({
          label: s.name,
          stroke: palette[i % palette.length] ?? "#1f6feb",
          width: 2,
          spanGaps: false,
          points: { show: true, size: 4 },
          value: (_u: uPlot, v: number | null) => (v == null ? "–" : `${v.toFixed(1)} ms`),
        })),
      ],
      axes: [axis, { ...axis, size: 60, values: (_u, ticks) => ticks.map((v) => `${v} ms`) }],
      hooks: {
        draw: [
          (u) => {
            el.dataset.points = String(drawnPoints(u));
          },
        ],
      },
    };
    const u = new uPlot(opts, data(), el);
    plot.current = u;
    const ro = new ResizeObserver(() => {
      const w = Math.max(260, el.clientWidth);
      if (w !== u.width) u.setSize({ width: w, height: 240 });
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      u.destroy();
      plot.current = null;
    };
  }, [names]);

  useEffect(() => {
    plot.current?.setData(data());
  }, [xs, series]);

  return <div ref={box} class="latency-chart" role="img" aria-label={label} style={{ width: "100%" }} />;
}
