import { useState } from "preact/hooks";
import { call, form } from "../api.js";
import { ApiErrorBox } from "../components/api-error.js";
import { type DirectoryNode, type ProbeType, probeTypes } from "../components/api-types.js";
import { chosenNodes, type NodeChoice, NodeChoiceField } from "../components/node-choice.js";
import { emptyFields, FieldError, type ProbeFields, probeBody } from "../components/probe-body.js";
import { ProbeFieldsFor } from "../components/probe-fields.js";
import { probeName } from "../components/probe-names.js";
import { ProbeResults } from "../components/probe-results.js";
import { ShareLink } from "../components/share-link.js";
import { useLiveTask } from "../components/use-live-task.js";
import { messages } from "../i18n.js";
import "../public.css";
import type { Route } from "../router.js";
import { Card, useLoad } from "../ui.js";

const t = messages({
  en: {
    title: "Run a probe",
    intro: "Probe a target from nodes around the world; results appear as each node answers.",
    type: "Probe type",
    run: "Run {type}",
    running: "Running…",
    pickOne: "Choose at least one node, or let the nodes be chosen automatically.",
    headerLine: "Request headers, line {n}: write “Name: value”.",
  },
  cn: {
    title: "发起探测",
    intro: "从世界各地的节点探测目标；每个节点回应后结果即时显示。",
    type: "探测类型",
    run: "运行 {type}",
    running: "运行中…",
    pickOne: "请至少选择一个节点，或改为自动选择。",
    headerLine: "请求头第 {n} 行：请写成“名称: 值”。",
  },
  tw: {
    title: "發起探測",
    intro: "從世界各地的節點探測目標；每個節點回應後結果即時顯示。",
    type: "探測類型",
    run: "執行 {type}",
    running: "執行中…",
    pickOne: "請至少選擇一個節點，或改為自動選擇。",
    headerLine: "請求標頭第 {n} 行：請寫成「名稱: 值」。",
  },
});

/**
 * `#/probe`: a form for every probe type, the nodes to run it on, and the live results. `?type=`,
 * `?target=` and `?nodes=a,b` fill it in (the node directory links here).
 */
export function ProbePage({ route }: { route: Route }) {
  const q = route.query;
  const [type, setType] = useState<ProbeType>(probeTypes.find((x) => x === q.get("type")) ?? "ping");
  const [fields, setFields] = useState<ProbeFields>({ ...emptyFields, target: q.get("target") ?? "" });
  const [choice, setChoice] = useState<NodeChoice>(
    q.get("nodes")
      ? { mode: "pick", ids: q.get("nodes")!.split(",").filter(Boolean) }
      : { mode: "auto", count: "" },
  );
  const [formError, setFormError] = useState("");
  const directory = useLoad(() => call<{ items: DirectoryNode[] }>("GET", "/v1/nodes"));
  const live = useLiveTask();
  const busy = live.task.phase === "starting" || (live.task.phase === "running" && !live.task.error);

  const set = <K extends keyof ProbeFields>(k: K, v: ProbeFields[K]) => setFields((f) => ({ ...f, [k]: v }));
  const submit = (e: Event) => {
    e.preventDefault();
    setFormError("");
    if (choice.mode === "pick" && choice.ids.length === 0) {
      setFormError(t("pickOne"));
      return;
    }
    let body: unknown;
    try {
      body = probeBody(type, fields, chosenNodes(choice, directory.data?.items ?? [], type), form);
    } catch (err) {
      if (err instanceof FieldError) {
        setFormError(t("headerLine", { n: err.line }));
        return;
      }
      throw err;
    }
    void live.start(type, body, fields.target.trim());
  };

  return (
    <>
      <h1>{t("title")}</h1>
      <p class="muted">{t("intro")}</p>
      <Card>
        <form class="stack" onSubmit={submit} aria-describedby="probe-form-error">
          <fieldset class="row bare">
            <legend>{t("type")}</legend>
            {probeTypes.map((p) => (
              <label key={p} class="choice">
                <input
                  type="radio"
                  name="probe-type"
                  value={p}
                  checked={type === p}
                  onChange={() => setType(p)}
                />
                {probeName(p)}
              </label>
            ))}
          </fieldset>
          <ProbeFieldsFor type={type} f={fields} set={set} form={form} />
          <NodeChoiceField nodes={directory.data?.items} type={type} value={choice} onChange={setChoice} />
          <div id="probe-form-error">
            {formError ? (
              <p class="error" role="alert">
                {formError}
              </p>
            ) : null}
            <ApiErrorBox error={directory.error} onRetry={directory.reload} />
            <ApiErrorBox error={live.task.error} />
          </div>
          <div>
            <button type="submit" aria-describedby="probe-busy">
              {t("run", { type: probeName(type) })}
            </button>{" "}
            <span id="probe-busy" class="muted" role="status">
              {busy ? t("running") : ""}
            </span>
          </div>
        </form>
      </Card>
      {live.task.taskId || live.task.phase === "starting" ? (
        <Card>
          {live.task.taskId ? <ShareLink taskId={live.task.taskId} /> : null}
          <ProbeResults task={live.task} {...(directory.data ? { directory: directory.data.items } : {})} />
        </Card>
      ) : null}
    </>
  );
}
