import { useEffect, useState } from "preact/hooks";
import { call } from "../api.js";
import type { DirectoryNode } from "../components/api-types.js";
import { countryLabel } from "../components/place.js";
import { WorldMap } from "../components/world-map.js";
import "../public.css";
import { formatTime, messages } from "../i18n.js";
import type { Route } from "../router.js";
import { Card, ErrorBox, Loading, StatusDot, useLoad } from "../ui.js";

const t = messages({
  en: {
    title: "Probe nodes",
    summary: "Nodes: {total}, online: {online}",
    refreshed: "Refreshed {time}; the list refreshes every 10 seconds.",
    filters: "Filters",
    country: "Country",
    region: "Region",
    provider: "Provider",
    status: "Status",
    all: "All",
    online: "Online",
    offline: "Offline",
    name: "Name",
    location: "Location",
    lastSeen: "Last seen",
    version: "Version",
    capabilities: "Can run",
    probe: "Probe from here",
    probeFrom: "Probe from {name}",
    none: "No node matches these filters.",
    empty: "No node has reported yet. Start an agent (pnpm agent) and it appears here.",
    map: "Where they are",
    list: "Directory",
    clear: "Clear filters",
  },
  cn: {
    title: "探测节点",
    summary: "共 {total} 个节点，{online} 个在线",
    refreshed: "更新于 {time}；列表每 10 秒刷新。",
    filters: "筛选",
    country: "国家/地区",
    region: "区域",
    provider: "服务商",
    status: "状态",
    all: "全部",
    online: "在线",
    offline: "离线",
    name: "名称",
    location: "位置",
    lastSeen: "最近心跳",
    version: "版本",
    capabilities: "可执行",
    probe: "从此节点探测",
    probeFrom: "从 {name} 探测",
    none: "没有符合筛选条件的节点。",
    empty: "尚无节点上报。启动一个 agent（pnpm agent）后会出现在这里。",
    map: "节点分布",
    list: "节点列表",
    clear: "清除筛选",
  },
  tw: {
    title: "探測節點",
    summary: "共 {total} 個節點，{online} 個上線",
    refreshed: "更新於 {time}；清單每 10 秒重新整理。",
    filters: "篩選",
    country: "國家/地區",
    region: "區域",
    provider: "服務商",
    status: "狀態",
    all: "全部",
    online: "上線",
    offline: "離線",
    name: "名稱",
    location: "位置",
    lastSeen: "最近心跳",
    version: "版本",
    capabilities: "可執行",
    probe: "從此節點探測",
    probeFrom: "從 {name} 探測",
    none: "沒有符合篩選條件的節點。",
    empty: "尚無節點回報。啟動一個 agent（pnpm agent）後會出現在這裡。",
    map: "節點分布",
    list: "節點清單",
    clear: "清除篩選",
  },
});

const REFRESH_MS = 10_000;
const probeKinds = ["http", "ping", "dns", "tcp", "traceroute", "mtr"];

type Filters = { country: string; region: string; provider: string; status: string };
const noFilters: Filters = { country: "", region: "", provider: "", status: "" };

/** `#/`: every node of the deployment, on a map and in a table, refreshed every 10 s. */
export function NodesPage(_props: { route: Route }) {
  const nodes = useLoad(() => call<{ items: DirectoryNode[] }>("GET", "/v1/nodes"));
  const [at, setAt] = useState<Date>();
  const [filters, setFilters] = useState<Filters>(noFilters);
  const { reload } = nodes;
  useEffect(() => {
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  useEffect(() => {
    if (nodes.data) setAt(new Date());
  }, [nodes.data]);

  const all = nodes.data?.items ?? [];
  const shown = all.filter(
    (n) =>
      (!filters.country || n.country === filters.country) &&
      (!filters.region || n.region === filters.region) &&
      (!filters.provider || n.provider === filters.provider) &&
      (!filters.status || n.status === filters.status),
  );
  const online = all.filter((n) => n.status === "online").length;

  return (
    <>
      <h1>{t("title")}</h1>
      {nodes.data ? (
        <p class="muted" aria-live="polite">
          {t("summary", { total: all.length, online })}
          {at ? ` · ${t("refreshed", { time: formatTime(at) })}` : ""}
        </p>
      ) : null}
      <ErrorBox error={nodes.error} onRetry={reload} />
      {!nodes.data && nodes.loading ? <Loading /> : null}
      {nodes.data && all.length === 0 ? <p>{t("empty")}</p> : null}
      {all.length > 0 ? (
        <>
          <Card title={t("filters")}>
            <FilterBar nodes={all} filters={filters} onChange={setFilters} />
          </Card>
          <Card title={t("map")}>
            <WorldMap nodes={shown} />
          </Card>
          <Card title={t("list")}>
            {shown.length === 0 ? <p>{t("none")}</p> : <NodeTable nodes={shown} />}
          </Card>
        </>
      ) : null}
    </>
  );
}

function FilterBar(props: { nodes: DirectoryNode[]; filters: Filters; onChange: (f: Filters) => void }) {
  const { nodes, filters, onChange } = props;
  const values = (k: "country" | "region" | "provider") => [...new Set(nodes.map((n) => n[k]))].sort();
  const countries = values("country")
    .map((c) => [c, countryLabel(c)] as const)
    .sort((a, b) => a[1].localeCompare(b[1]));
  const set = (k: keyof Filters) => (e: Event) =>
    onChange({ ...filters, [k]: (e.currentTarget as HTMLSelectElement).value });
  const active = Object.values(filters).some(Boolean);
  return (
    <div class="row">
      <label>
        {t("country")}
        <select value={filters.country} onChange={set("country")}>
          <option value="">{t("all")}</option>
          {countries.map(([code, label]) => (
            <option key={code} value={code}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t("region")}
        <select value={filters.region} onChange={set("region")}>
          <option value="">{t("all")}</option>
          {values("region").map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t("provider")}
        <select value={filters.provider} onChange={set("provider")}>
          <option value="">{t("all")}</option>
          {values("provider").map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t("status")}
        <select value={filters.status} onChange={set("status")}>
          <option value="">{t("all")}</option>
          <option value="online">{t("online")}</option>
          <option value="offline">{t("offline")}</option>
        </select>
      </label>
      {active ? (
        <button type="button" class="secondary" onClick={() => onChange(noFilters)}>
          {t("clear")}
        </button>
      ) : null}
    </div>
  );
}

function NodeTable({ nodes }: { nodes: DirectoryNode[] }) {
  const sorted = [...nodes].sort(
    (a, b) => (a.status === b.status ? 0 : a.status === "online" ? -1 : 1) || a.name.localeCompare(b.name),
  );
  return (
    <div class="table-wrap contained">
      <table class="cards">
        <thead>
          <tr>
            <th scope="col">{t("name")}</th>
            <th scope="col">{t("status")}</th>
            <th scope="col">{t("location")}</th>
            <th scope="col">{t("provider")}</th>
            <th scope="col">{t("lastSeen")}</th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((n) => (
            <tr key={n.id} data-node={n.id}>
              <td data-label={t("name")}>
                <strong>{n.name}</strong>
                <div class="muted">
                  <code>{n.id}</code> · {t("version")} {n.version}
                </div>
                {n.status === "online" ? (
                  <a
                    href={`#/probe?nodes=${encodeURIComponent(n.id)}`}
                    aria-label={t("probeFrom", { name: n.name })}
                  >
                    {t("probe")}
                  </a>
                ) : null}
              </td>
              <td class="nowrap" data-label={t("status")}>
                <StatusDot
                  ok={n.status === "online"}
                  label={n.status === "online" ? t("online") : t("offline")}
                />
                <span aria-hidden="true">{n.status === "online" ? t("online") : t("offline")}</span>
              </td>
              <td data-label={t("location")}>
                {countryLabel(n.country)}
                <div class="muted">{n.region}</div>
              </td>
              <td data-label={t("provider")}>{n.provider}</td>
              <td data-label={t("lastSeen")}>
                {formatTime(n.last_seen)}
                <div class="muted">
                  {t("capabilities")}: {n.capabilities.filter((c) => probeKinds.includes(c)).join(", ")}
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
