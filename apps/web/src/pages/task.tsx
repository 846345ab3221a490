import { useEffect } from "preact/hooks";
import { call } from "../api.js";
import { ApiErrorBox } from "../components/api-error.js";
import type { DirectoryNode } from "../components/api-types.js";
import { ProbeResults } from "../components/probe-results.js";
import { RawJson } from "../components/raw-json.js";
import { ShareLink } from "../components/share-link.js";
import { SharePublish } from "../components/share-publish.js";
import { useLiveTask } from "../components/use-live-task.js";
import { messages } from "../i18n.js";
import "../public.css";
import type { Route } from "../router.js";
import { Card, Loading, useLoad } from "../ui.js";

const t = messages({
  en: { title: "Probe task", again: "Run a new probe", same: "Probe {target} again", back: "Back" },
  cn: { title: "探测任务", again: "发起新的探测", same: "再次探测 {target}", back: "返回" },
  tw: { title: "探測任務", again: "發起新的探測", same: "再次探測 {target}", back: "返回" },
});

/**
 * `#/tasks/:id`: a probe task anyone with its link can read; followed live while it runs. Once its type and
 * target are known, a link opens the probe form with them filled in.
 */
export function TaskPage({ route }: { route: Route }) {
  const id = route.params.id ?? "";
  const live = useLiveTask();
  const directory = useLoad(() => call<{ items: DirectoryNode[] }>("GET", "/v1/nodes"));
  useEffect(() => {
    void live.open(id);
  }, [id]);
  const { task } = live;
  return (
    <>
      <h1>
        {t("title")} <code class="anywhere">{id}</code>
      </h1>
      <p>
        {task.type && task.target ? (
          // The probe form with this task's type and target filled in (its other options start as defaults).
          <a
            class="anywhere"
            href={`#/probe?${new URLSearchParams({ type: task.type, target: task.target })}`}
          >
            {t("same", { target: task.target })}
          </a>
        ) : (
          <a href="#/probe">{t("again")}</a>
        )}
      </p>
      <ApiErrorBox error={task.error} onRetry={() => void live.open(id)} />
      {task.phase === "starting" && !task.error ? <Loading /> : null}
      {task.phase !== "starting" && !(task.error && task.nodes.length === 0) ? (
        <Card>
          <ShareLink taskId={id} />
          <ProbeResults task={task} {...(directory.data ? { directory: directory.data.items } : {})} />
          {task.phase === "finished" ? <SharePublish taskId={id} /> : null}
          {task.phase === "finished" ? (
            <RawJson
              value={{
                task_id: task.taskId,
                type: task.type,
                target: task.target,
                status: task.status,
                results: task.nodes.map((n) => task.results[n.node_id]).filter(Boolean),
              }}
            />
          ) : null}
        </Card>
      ) : null}
    </>
  );
}
