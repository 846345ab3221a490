import { useEffect, useRef, useState } from "preact/hooks";
import { onSessionChange, session } from "../api.js";
import { formatNumber, formatTime, messages } from "../i18n.js";
import { Card, DataTable } from "../ui.js";
import type { ProbeType, TaskView } from "./api-types.js";
import { ListBody, MoreRows, usePagedList } from "./paged-list.js";
import { probeName } from "./probe-names.js";
import { isFinished } from "./use-live-task.js";

const t = messages({
  en: {
    title: "Your recent probes",
    when: "When",
    type: "Type",
    target: "Target",
    succeeded: "Succeeded",
    nodesOne: "{succeeded}/{nodes} node",
    nodesMany: "{succeeded}/{nodes} nodes",
    running: "Still running",
    shared: "Shared",
    none: "No probes yet: run one above.",
    shown: "{shown} of {total} probes shown.",
    more: "More",
  },
  cn: {
    title: "你最近的探测",
    when: "时间",
    type: "类型",
    target: "目标",
    succeeded: "成功",
    nodesOne: "{succeeded}/{nodes} 个节点",
    nodesMany: "{succeeded}/{nodes} 个节点",
    running: "仍在运行",
    shared: "已分享",
    none: "还没有探测：在上方运行一个。",
    shown: "已显示 {shown} 个探测，共 {total} 个。",
    more: "更多",
  },
  tw: {
    title: "你最近的探測",
    when: "時間",
    type: "類型",
    target: "目標",
    succeeded: "成功",
    nodesOne: "{succeeded}/{nodes} 個節點",
    nodesMany: "{succeeded}/{nodes} 個節點",
    running: "仍在執行",
    shared: "已分享",
    none: "還沒有探測：在上方執行一個。",
    shown: "已顯示 {shown} 個探測，共 {total} 個。",
    more: "更多",
  },
});

/** One of the account's tasks as `GET /v1/probe/tasks` lists it (the same in both forms). */
export interface TaskSummary {
  task_id: string;
  type: ProbeType;
  target: string;
  status: TaskView["status"];
  created_at: string;
  finished_at: string | null;
  /** Nodes the task was sent to. */
  nodes: number;
  /** Nodes whose probe succeeded. */
  succeeded: number;
  /** Its live share link's id, or null. */
  share_id: string | null;
}

/** Tries to find a run that finished here in the list (Form B writes its task just after its answer). */
const RETRIES = 8;
const RETRY_MS = 250;

/**
 * The signed-in account's probe tasks, newest first, 20 at a time: when, type, target (a link to the task's
 * page), how many nodes succeeded, and whether it is shared. `ran` is the task run on this page once it
 * finished: the list is read again until it shows it, finished. Signed out, nothing (and no request).
 */
export function ProbeHistory({ ran }: { ran?: string | undefined }) {
  const [signedIn, setSignedIn] = useState(session.token !== null);
  useEffect(() => onSessionChange(() => setSignedIn(session.token !== null)), []);
  return signedIn ? <HistoryCard ran={ran} /> : null;
}

function HistoryCard({ ran }: { ran?: string | undefined }) {
  const { list, more } = usePagedList<TaskSummary>("/v1/probe/tasks", [], {
    size: 20,
    key: (x) => x.task_id,
  });
  const tries = useRef<{ id?: string; n: number }>({ n: 0 });
  useEffect(() => {
    if (!ran) return;
    if (tries.current.id !== ran) {
      tries.current = { id: ran, n: 0 };
      list.reload();
      return;
    }
    const listed = list.data?.items.find((x) => x.task_id === ran);
    if (list.loading || !list.data || isFinished(listed?.status) || tries.current.n >= RETRIES) return;
    const timer = setTimeout(() => {
      tries.current.n++;
      list.reload();
    }, RETRY_MS);
    return () => clearTimeout(timer);
  }, [ran, list.data, list.loading]);

  return (
    <Card title={t("title")}>
      <ListBody
        list={list}
        empty={t("none")}
        rows={() => (
          <DataTable heads={[t("when"), t("type"), t("target"), t("succeeded")]} label={t("title")} cards>
            {list.data?.items.map((x) => (
              <tr key={x.task_id} data-task-id={x.task_id}>
                <td data-label={t("when")}>
                  <time dateTime={x.created_at}>{formatTime(x.created_at, true)}</time>
                </td>
                <td data-label={t("type")}>{probeName(x.type)}</td>
                <td data-label={t("target")}>
                  {/* One box: the card layout at phone width puts each child of a cell in a grid cell. */}
                  <div>
                    <a href={`#/tasks/${encodeURIComponent(x.task_id)}`} class="anywhere">
                      {x.target}
                    </a>
                    {x.share_id ? (
                      <>
                        {" "}
                        <span class="muted" data-testid="shared-mark">
                          · {t("shared")}
                        </span>
                      </>
                    ) : null}
                  </div>
                </td>
                <td data-label={t("succeeded")}>
                  {isFinished(x.status) ? (
                    t(x.nodes === 1 ? "nodesOne" : "nodesMany", {
                      succeeded: formatNumber(x.succeeded),
                      nodes: formatNumber(x.nodes),
                    })
                  ) : (
                    <span class="muted">{t("running")}</span>
                  )}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      />
      <MoreRows
        list={list}
        shown={(shown, total) => t("shown", { shown, total })}
        label={t("more")}
        onMore={more}
      />
    </Card>
  );
}
