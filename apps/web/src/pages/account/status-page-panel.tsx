import { messages } from "../../i18n.js";
import type { Monitor } from "./monitor-shape.js";
import { PageSettings } from "./status-page-edit.js";
import type { StatusPage } from "./status-page-incident.js";
import { PageIncidents } from "./status-page-incidents.js";
import { PageMaintenance } from "./status-page-maintenance.js";
import { PageSubscribers } from "./status-page-subscribers.js";

const t = messages({
  en: { panel: "{name}: settings, incidents, maintenance and subscribers" },
  cn: { panel: "{name}：设置、事件、维护和订阅者" },
  tw: { panel: "{name}：設定、事件、維護和訂閱者" },
});

/** The id of a page's panel (for its "Manage" button's `aria-controls`). */
export const panelId = (pageId: string) => `status-page-panel-${pageId}`;

/**
 * One page under the list of pages: its title, slug and components (edited; `onChanged` lists the pages
 * again), its incidents (an update to an open one), its own maintenance entries and its subscribers.
 * `version` changes when an incident was posted to the page by the form below (its incidents are listed
 * again).
 */
export function PagePanel({
  page,
  version,
  monitors,
  onChanged,
}: {
  page: StatusPage;
  version: number;
  monitors: Monitor[] | undefined;
  onChanged: () => void;
}) {
  return (
    <section id={panelId(page.id)} aria-labelledby={`${panelId(page.id)}-title`}>
      <h3
        id={`${panelId(page.id)}-title`}
        style={{ margin: "12px 0 0", fontSize: "1rem", overflowWrap: "anywhere" }}
      >
        {t("panel", { name: page.title })}
      </h3>
      <PageSettings key={page.id} page={page} monitors={monitors} onChanged={onChanged} />
      <PageIncidents key={page.id} page={page} version={version} />
      <PageMaintenance key={page.id} page={page} />
      <PageSubscribers key={page.id} page={page} />
    </section>
  );
}
