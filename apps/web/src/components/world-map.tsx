import { geoEqualEarth, geoPath } from "d3-geo";
import { useEffect, useRef, useState } from "preact/hooks";
import { feature } from "topojson-client";
import { ApiError, raw } from "../api.js";
import { messages } from "../i18n.js";
import { ErrorBox, Loading, StatusDot } from "../ui.js";
import type { DirectoryNode } from "./api-types.js";
import { type AtlasCountry, countryPoints } from "./country-points.js";
import { countryName } from "./place.js";

const t = messages({
  en: {
    map: "Map of the nodes",
    online: "online",
    offline: "offline",
    unknown: "Location unknown",
    marker: "{name}: {status}, {place}",
  },
  cn: {
    map: "节点地图",
    online: "在线",
    offline: "离线",
    unknown: "位置未知",
    marker: "{name}：{status}，{place}",
  },
  tw: {
    map: "節點地圖",
    online: "上線",
    offline: "離線",
    unknown: "位置未知",
    marker: "{name}：{status}，{place}",
  },
});

const WIDTH = 960;
/** Room under the map for the nodes whose country has no place on it (e.g. `ZZ`, unknown). */
const STRIP = 34;

interface Atlas {
  height: number;
  countries: string[];
  project: (code: string) => [number, number] | undefined;
}

type Topology = Parameters<typeof feature>[0];
type Geo = Parameters<ReturnType<typeof geoPath>>[0];

let atlas: Promise<Atlas> | undefined;

/** The world (world-atlas 110m, served with the dashboard), projected once per page load. */
function loadAtlas(): Promise<Atlas> {
  atlas ??= (async () => {
    const res = await raw("GET", "/app/countries-110m.json");
    if (!res.ok) throw new ApiError(res.status, "http_error", `HTTP ${res.status}`);
    const topo = (await res.json()) as Topology;
    const all = feature(topo, "countries") as unknown as { features: AtlasCountry[] };
    const shown = all.features.filter((f) => f.id !== "010"); // Antarctica: no nodes, half the height
    const collection = { type: "FeatureCollection", features: shown } as unknown as Geo;
    const projection = geoEqualEarth().fitWidth(WIDTH, collection);
    const path = geoPath(projection);
    const [[, top], [, bottom]] = path.bounds(collection);
    projection.translate([projection.translate()[0], projection.translate()[1] - top + 4]);
    const points = countryPoints(all.features);
    const loaded: Atlas = {
      height: Math.ceil(bottom - top) + 8,
      countries: shown.map((f) => path(f as unknown as Geo) ?? ""),
      project: (code) => {
        const p = points.get(code.toUpperCase());
        return p ? (projection(p) ?? undefined) : undefined;
      },
    };
    return loaded;
  })().catch((err: unknown) => {
    atlas = undefined;
    throw err;
  });
  return atlas;
}

/** The nodes on a world map, each at its country (several in one country around it), green or red. */
export function WorldMap({ nodes }: { nodes: DirectoryNode[] }) {
  const [state, setState] = useState<{ atlas?: Atlas; error?: unknown }>({});
  const [attempt, setAttempt] = useState(0);
  const figure = useRef<HTMLElement>(null);
  // Markers keep their size on screen: on a phone the map is drawn at a third of its width.
  const [scale, setScale] = useState(1);
  useEffect(() => {
    const el = figure.current;
    if (!el) return;
    const measure = () =>
      setScale(el.clientWidth > 0 ? Math.min(3, Math.max(0.6, WIDTH / el.clientWidth)) : 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [state.atlas]);
  useEffect(() => {
    let live = true;
    loadAtlas().then(
      (a) => live && setState({ atlas: a }),
      (error: unknown) => live && setState({ error }),
    );
    return () => {
      live = false;
    };
  }, [attempt]);
  if (state.error) return <ErrorBox error={state.error} onRetry={() => setAttempt((n) => n + 1)} />;
  if (!state.atlas) return <Loading />;
  const a = state.atlas;

  const byCountry = new Map<string, DirectoryNode[]>();
  const unplaced: DirectoryNode[] = [];
  for (const n of nodes) {
    if (a.project(n.country)) byCountry.set(n.country, [...(byCountry.get(n.country) ?? []), n]);
    else unplaced.push(n);
  }
  const markers: { node: DirectoryNode; x: number; y: number }[] = [];
  for (const [code, group] of byCountry) {
    const [cx, cy] = a.project(code)!;
    group.forEach((node, i) => {
      const angle = (2 * Math.PI * i) / group.length;
      const r = group.length > 1 ? (4 + group.length) * scale : 0;
      markers.push({ node, x: cx + r * Math.cos(angle), y: cy + r * Math.sin(angle) });
    });
  }
  const radius = 6 * scale;
  const strip = STRIP * scale;
  const stripY = a.height + strip / 2;
  unplaced.forEach((node, i) => {
    markers.push({ node, x: radius * 2 + i * radius * 2.6, y: stripY });
  });
  const height = a.height + (unplaced.length ? strip : 0);

  return (
    <figure class="map" ref={figure}>
      <svg viewBox={`0 0 ${WIDTH} ${height}`} aria-label={t("map")}>
        <g>
          {a.countries.map((d, i) => (
            <path key={i} class="land" d={d} />
          ))}
        </g>
        {unplaced.length ? (
          <text
            x={radius + unplaced.length * radius * 2.6}
            y={stripY + 5 * scale}
            class="unplaced"
            font-size={14 * scale}
          >
            {t("unknown")}
          </text>
        ) : null}
        {markers.map(({ node, x, y }) => {
          const label = t("marker", {
            name: node.name,
            status: node.status === "online" ? t("online") : t("offline"),
            place: a.project(node.country) ? countryName(node.country) : t("unknown"),
          });
          return (
            <g
              key={node.id}
              class={node.status === "online" ? "node-online" : "node-offline"}
              data-node-marker={node.id}
            >
              <title>{label}</title>
              <circle cx={x} cy={y} r={radius} stroke-width={1.5 * scale} />
            </g>
          );
        })}
      </svg>
      <figcaption class="muted">
        <StatusDot ok={true} label={t("online")} />
        <span aria-hidden="true">{t("online")}</span> ({nodes.filter((n) => n.status === "online").length})
        {"  "}
        <StatusDot ok={false} label={t("offline")} />
        <span aria-hidden="true">{t("offline")}</span> ({nodes.filter((n) => n.status !== "online").length})
      </figcaption>
    </figure>
  );
}
