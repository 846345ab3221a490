import { useEffect, useRef, useState } from "preact/hooks";
import { call, form } from "../api.js";
import { ApiErrorBox } from "../components/api-error.js";
import { type DirectoryNode, type ProbeType, probeTypes } from "../components/api-types.js";
import { chosenLocations, chosenNodes, type NodeChoice, NodeChoiceField } from "../components/node-choice.js";
import { emptyFields, FieldError, type ProbeFields, probeBody } from "../components/probe-body.js";
import { ProbeFieldsFor } from "../components/probe-fields.js";
import { ProbeHistory } from "../components/probe-history.js";
import { probeName } from "../components/probe-names.js";
import { ProbeResults } from "../components/probe-results.js";
import { ShareLink } from "../components/share-link.js";
import { useLiveTask } from "../components/use-live-task.js";
import { messages } from "../i18n.js";
import "../public.css";
import { navigate, type Route } from "../router.js";
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
    portClash: "The host names port {n} and the Port field another: keep one.",
    portMissing: "Give a port: in the Port field, or as host:port.",
    results: "Results",
  },
  cn: {
    title: "发起探测",
    intro: "从世界各地的节点探测目标；每个节点回应后结果即时显示。",
    type: "探测类型",
    run: "运行 {type}",
    running: "运行中…",
    pickOne: "请至少选择一个节点，或改为自动选择。",
    headerLine: "请求头第 {n} 行：请写成“名称: 值”。",
    portClash: "主机中写了端口 {n}，端口栏却是另一个：请只保留一个。",
    portMissing: "请填写端口：在端口栏中，或写成 主机:端口。",
    results: "结果",
  },
  tw: {
    title: "發起探測",
    intro: "從世界各地的節點探測目標；每個節點回應後結果即時顯示。",
    type: "探測類型",
    run: "執行 {type}",
    running: "執行中…",
    pickOne: "請至少選擇一個節點，或改為自動選擇。",
    headerLine: "請求標頭第 {n} 行：請寫成「名稱: 值」。",
    portClash: "主機中寫了連接埠 {n}，連接埠欄卻是另一個：請只保留一個。",
    portMissing: "請填寫連接埠：在連接埠欄中，或寫成 主機:連接埠。",
    results: "結果",
  },
});

/**
 * `#/probe`: a form for every probe type, the nodes to run it on, and the live results. `?type=`,
 * `?target=` and `?nodes=a,b` fill it in (the node directory links here); `?task=` shows that task's
 * results. A run puts its task in the address (a reload or a shared link shows the same results) and
 * scrolls to them; a new run or another probe type clears the old ones. Signed in, the account's recent
 * tasks are listed below, a run that finished here at their top.
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
  const results = useRef<HTMLElement>(null);
  // Bumped by each run (and by a task named in the address): the results are scrolled to once shown.
  const [shown, setShown] = useState(0);
  const asked = q.get("task");
  // Whether the task shown was run here (not opened from the address): once finished, the list shows it.
  const [ranHere, setRanHere] = useState(false);

  // A task in the address (a reload, a shared link, back): its results; none (back to a bare form): cleared.
  useEffect(() => {
    if (asked && asked !== live.task.taskId) {
      void live.open(asked);
      setRanHere(false);
      setShown((n) => n + 1);
    } else if (!asked && live.task.taskId && live.task.phase === "finished") live.reset();
  }, [asked]);
  // A run's task, once it has an id, goes into the address: a reload shows it again, the link shares it.
  useEffect(() => {
    const id = live.task.taskId;
    if (!id || id === asked) return;
    const p = new URLSearchParams({ type, target: fields.target.trim(), task: id });
    if (choice.mode === "pick" && choice.ids.length) p.set("nodes", choice.ids.join(","));
    navigate(`/probe?${p}`);
  }, [live.task.taskId]);
  useEffect(() => {
    if (shown) results.current?.scrollIntoView({ block: "start" });
  }, [shown]);

  const switchType = (p: ProbeType) => {
    setType(p);
    setFormError("");
    // The results of another type's run are not this form's: gone, and out of the address.
    live.reset();
    if (asked) navigate(`/probe?${new URLSearchParams({ type: p, target: fields.target.trim() })}`);
  };

  const set = <K extends keyof ProbeFields>(k: K, v: ProbeFields[K]) => setFields((f) => ({ ...f, [k]: v }));
  const submit = (e: Event) => {
    e.preventDefault();
    setFormError("");
    const locations = chosenLocations(choice);
    if ((choice.mode === "pick" && choice.ids.length === 0) || locations?.length === 0) {
      setFormError(t("pickOne"));
      return;
    }
    let body: unknown;
    try {
      body = probeBody(type, fields, chosenNodes(choice, directory.data?.items ?? [], type), form);
      // By place: the API's `locations` (docs/node-selection.md), the same field in both forms.
      if (locations) body = { ...(body as Record<string, unknown>), locations };
    } catch (err) {
      if (err instanceof FieldError) {
        setFormError(t(err.key, { n: err.n }));
        return;
      }
      throw err;
    }
    void live.start(type, body, fields.target.trim());
    setRanHere(true);
    setShown((n) => n + 1);
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
                  onChange={() => switchType(p)}
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
        <section ref={results} aria-label={t("results")} data-testid="probe-results">
          <Card>
            {live.task.taskId ? <ShareLink taskId={live.task.taskId} /> : null}
            <ProbeResults task={live.task} {...(directory.data ? { directory: directory.data.items } : {})} />
          </Card>
        </section>
      ) : null}
      <ProbeHistory ran={ranHere && live.task.phase === "finished" ? live.task.taskId : undefined} />
    </>
  );
}
