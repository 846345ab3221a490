import { messages } from "../i18n.js";
import type { Route } from "../router.js";
import { useLoad } from "../ui.js";
import { listChannels, listPolicies } from "./account/alert-shape.js";
import { Channels } from "./account/channels.js";
import { Events } from "./account/events.js";
import { Maintenance } from "./account/maintenance.js";
import { listAllMonitors } from "./account/monitor-shape.js";
import { Policies } from "./account/policies.js";
import { StatusPages } from "./account/status-pages.js";

const t = messages({
  en: {
    title: "Alerts",
    intro: "Where alerts go (channels), which monitors send them (policies), and what happened.",
  },
  cn: { title: "告警", intro: "告警发往哪里（通知渠道）、哪些监控会触发（策略），以及发生了什么。" },
  tw: { title: "告警", intro: "告警送往哪裡（通知管道）、哪些監控會觸發（政策），以及發生了什麼。" },
});

/**
 * `#/alerts`: channels (create, test, delete), policies (monitor → channels), maintenance windows, status
 * pages (create, delete, post an incident, its updates and resolution, remove subscribers), latest events.
 */
export function AlertsPage(_props: { route: Route }) {
  const channels = useLoad(listChannels);
  const policies = useLoad(listPolicies);
  const monitors = useLoad(listAllMonitors);
  return (
    <div>
      <h1>{t("title")}</h1>
      <p class="muted">{t("intro")}</p>
      <Channels
        channels={channels}
        onChanged={() => {
          channels.reload();
          policies.reload();
        }}
      />
      <Policies
        policies={policies}
        monitors={monitors.data?.items}
        channels={channels.data?.items}
        onChanged={policies.reload}
      />
      <Maintenance monitors={monitors.data?.items} />
      <StatusPages monitors={monitors.data?.items} />
      <Events monitors={monitors.data?.items} />
    </div>
  );
}
