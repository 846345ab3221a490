import { messages } from "../../i18n.js";
import type { StatusPage } from "./status-page-incident.js";
import { PageIncidents } from "./status-page-incidents.js";
import { PageSubscribers } from "./status-page-subscribers.js";

const t = messages({
  en: { panel: "{name}: incidents and subscribers" },
  cn: { panel: "{name}：事件和订阅者" },
  tw: { panel: "{name}：事件和訂閱者" },
});

/** The id of a page's panel (for its "Manage" button's `aria-controls`). */
export const panelId = (pageId: string) => `status-page-panel-${pageId}`;

/**
 * One page's incidents (an update to an open one) and subscribers, under the list of pages. `version`
 * changes when an incident was posted to the page by the form below (its incidents are listed again).
 */
export function PagePanel({ page, version }: { page: StatusPage; version: number }) {
  return (
    <section id={panelId(page.id)} aria-labelledby={`${panelId(page.id)}-title`}>
      <h3
        id={`${panelId(page.id)}-title`}
        style={{ margin: "12px 0 0", fontSize: "1rem", overflowWrap: "anywhere" }}
      >
        {t("panel", { name: page.title })}
      </h3>
      <PageIncidents key={page.id} page={page} version={version} />
      <PageSubscribers key={page.id} page={page} />
    </section>
  );
}
