import { useState } from "preact/hooks";
import { messages } from "../i18n.js";
import type { DirectoryNode, ProbeType } from "./api-types.js";
import { type LocationEntry, parseLocations } from "./location-text.js";
import { countryLabel } from "./place.js";
import { capableNodes, spreadNodes } from "./spread-nodes.js";

const t = messages({
  en: {
    nodes: "Nodes",
    auto: "Automatic: spread over countries, regions and providers",
    count: "How many",
    serverDefault: "Server's default",
    pick: "Choose nodes",
    filter: "Find a node",
    chosen: "{n} chosen (at most 50)",
    offline: "offline",
    cannot: "cannot run {type}",
    noneOnline: "No node is online right now.",
    loading: "Loading the nodes…",
    places: "By place",
    placesHint:
      "Countries, continents, regions, providers or tags, comma-separated; + combines, :n asks for n nodes (e.g. DE, europe:3, germany+hetzner)",
  },
  cn: {
    nodes: "节点",
    auto: "自动：分散到不同国家、区域和服务商",
    count: "数量",
    serverDefault: "服务器默认",
    pick: "指定节点",
    filter: "查找节点",
    chosen: "已选 {n} 个（最多 50 个）",
    offline: "离线",
    cannot: "不能执行 {type}",
    noneOnline: "当前没有在线节点。",
    loading: "正在加载节点…",
    places: "按位置",
    placesHint:
      "国家、大洲、区域、服务商或标签，用逗号分隔；+ 表示同时满足，:n 表示 n 个节点（如 DE, europe:3, germany+hetzner）",
  },
  tw: {
    nodes: "節點",
    auto: "自動：分散到不同國家、區域和服務商",
    count: "數量",
    serverDefault: "伺服器預設",
    pick: "指定節點",
    filter: "尋找節點",
    chosen: "已選 {n} 個（最多 50 個）",
    offline: "離線",
    cannot: "無法執行 {type}",
    noneOnline: "目前沒有上線節點。",
    loading: "正在載入節點…",
    places: "依位置",
    placesHint:
      "國家、洲、區域、服務商或標籤，以逗號分隔；+ 表示同時符合，:n 表示 n 個節點（如 DE, europe:3, germany+hetzner）",
  },
});

export type NodeChoice =
  | { mode: "auto"; count: string }
  | { mode: "pick"; ids: string[] }
  | { mode: "places"; text: string };

/** The `locations` to send for a choice by place (see `parseLocations`); undefined for the other choices. */
export function chosenLocations(choice: NodeChoice): LocationEntry[] | undefined {
  return choice.mode === "places" ? parseLocations(choice.text) : undefined;
}

const MAX_NODES = 50;

/** The node ids to send: the ones picked, a spread of `count`, or undefined for the API's own choice. */
export function chosenNodes(
  choice: NodeChoice,
  nodes: DirectoryNode[],
  type: ProbeType,
): string[] | undefined {
  if (choice.mode === "pick") return choice.ids;
  if (choice.mode === "places" || !choice.count) return undefined;
  return spreadNodes(nodes, type, Number(choice.count));
}

/** Where a probe runs: an automatic spread (how many), or nodes picked from the directory. */
export function NodeChoiceField(props: {
  nodes: DirectoryNode[] | undefined;
  type: ProbeType;
  value: NodeChoice;
  onChange: (c: NodeChoice) => void;
}) {
  const { nodes, type, value, onChange } = props;
  const [filter, setFilter] = useState("");
  const capable = nodes ? capableNodes(nodes, type) : [];
  const most = Math.min(Math.max(capable.length, 1), MAX_NODES);
  const picked = value.mode === "pick" ? value.ids : [];
  const toggle = (id: string, on: boolean) =>
    onChange({
      mode: "pick",
      ids: on ? [...picked.filter((x) => x !== id), id].slice(0, MAX_NODES) : picked.filter((x) => x !== id),
    });
  const needle = filter.trim().toLowerCase();
  const listed = (nodes ?? [])
    .filter(
      (n) =>
        !needle ||
        [n.id, n.name, n.country, n.region, n.provider, countryLabel(n.country)].some((s) =>
          s.toLowerCase().includes(needle),
        ),
    )
    .sort(
      (a, b) => (a.status === b.status ? 0 : a.status === "online" ? -1 : 1) || a.name.localeCompare(b.name),
    );
  return (
    <fieldset class="stack boxed">
      <legend>{t("nodes")}</legend>
      <label class="choice">
        <input
          type="radio"
          name="node-mode"
          checked={value.mode === "auto"}
          onChange={() => onChange({ mode: "auto", count: "" })}
        />
        {t("auto")}
      </label>
      {value.mode === "auto" ? (
        <label class="indent">
          {t("count")}
          <select
            value={value.count}
            onChange={(e) => onChange({ mode: "auto", count: (e.currentTarget as HTMLSelectElement).value })}
          >
            <option value="">{t("serverDefault")}</option>
            {Array.from({ length: most }, (_, i) => String(i + 1)).map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <label class="choice">
        <input
          type="radio"
          name="node-mode"
          checked={value.mode === "pick"}
          onChange={() => onChange({ mode: "pick", ids: picked })}
        />
        {t("pick")}
      </label>
      {value.mode === "pick" ? (
        <div class="stack indent">
          {!nodes ? <p class="muted">{t("loading")}</p> : null}
          {nodes && nodes.length > 8 ? (
            <label>
              {t("filter")}
              <input type="search" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
            </label>
          ) : null}
          <div class="scroll-box">
            {listed.map((n) => {
              const unable = !capable.includes(n) && n.status === "online";
              return (
                <label key={n.id} class="choice">
                  <input
                    type="checkbox"
                    value={n.id}
                    checked={picked.includes(n.id)}
                    onChange={(e) => toggle(n.id, e.currentTarget.checked)}
                  />
                  <span>
                    {n.name}{" "}
                    <span class="muted">
                      {countryLabel(n.country)} · {n.region} · {n.provider}
                    </span>
                    {n.status !== "online" ? <span class="bad"> ({t("offline")})</span> : null}
                    {unable ? <span class="warn"> ({t("cannot", { type })})</span> : null}
                  </span>
                </label>
              );
            })}
          </div>
          <p class="muted flush" aria-live="polite">
            {t("chosen", { n: picked.length })}
          </p>
        </div>
      ) : null}
      <label class="choice">
        <input
          type="radio"
          name="node-mode"
          checked={value.mode === "places"}
          onChange={() => onChange({ mode: "places", text: "" })}
        />
        {t("places")}
      </label>
      {value.mode === "places" ? (
        <label class="indent">
          <input
            type="text"
            value={value.text}
            placeholder="DE, europe:3, germany+hetzner"
            aria-describedby="node-places-hint"
            onInput={(e) => onChange({ mode: "places", text: e.currentTarget.value })}
          />
          <span id="node-places-hint" class="muted">
            {t("placesHint")}
          </span>
        </label>
      ) : null}
      {nodes && !nodes.some((n) => n.status === "online") ? <p class="warn">{t("noneOnline")}</p> : null}
    </fieldset>
  );
}
