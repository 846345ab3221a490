import { type Api, call } from "./api-client.js";
import { type Invocation, intFlag, stringFlag } from "./commands.js";
import { UsageError } from "./errors.js";
import { PROBE_TYPES } from "./probe-request.js";
import { fitWidth, type Paint, table } from "./table.js";

/**
 * `vantage tasks`: the signed-in account's probe tasks, newest first, a page at a time
 * (`GET /v1/probe/tasks`, the same in both forms but for the page size's name: `limit` or `per_page`).
 */

interface TaskSummary {
  task_id: string;
  type: string;
  target: string;
  status: string;
  created_at: string;
  finished_at: string | null;
  nodes: number;
  succeeded: number;
  share_id: string | null;
}

interface TaskPage {
  items: TaskSummary[];
  total: number;
  page: number;
  /** The page size: Form A's name, or Form B's. */
  limit?: number;
  per_page?: number;
}

export interface TasksArgs {
  type: string | undefined;
  page: number | undefined;
  perPage: number | undefined;
  json: boolean;
}

/** A long URL is cut in the table (`--json` has it whole). */
const TARGET_WIDTH = 60;

/** The flags, checked before any request (a bad one is exit 2 even with the API away). */
export function tasksArgs(inv: Invocation): TasksArgs {
  const v = inv.values;
  const type = stringFlag(v, "type")?.toLowerCase();
  if (type !== undefined && !(PROBE_TYPES as readonly string[]).includes(type))
    throw new UsageError(`--type is ${PROBE_TYPES.join(", ")}, not ${type}`, "tasks");
  return {
    type,
    page: intFlag(v, "page", 1, 1_000_000),
    perPage: intFlag(v, "per-page", 1, 100),
    json: v.json === true,
  };
}

/** The API's UTC timestamp to the second: `2026-11-28T10:04:05Z`. */
const toSecond = (iso: string) => iso.replace(/\.\d+Z$/, "Z");

function statusCell(p: Paint, status: string): string {
  if (status === "done") return p.green(status);
  if (status === "failed") return p.red(status);
  return p.yellow(status);
}

/** The line under the table: which tasks these are, and how to ask for the next page when there is one. */
function footer(args: TasksArgs, data: TaskPage): string {
  const size = data.limit ?? data.per_page ?? data.items.length;
  const first = (data.page - 1) * size + 1;
  const last = first + data.items.length - 1;
  const line = `${first}-${last} of ${data.total} task${data.total === 1 ? "" : "s"}`;
  if (last >= data.total) return line;
  const next = [
    "vantage tasks",
    ...(args.type ? ["--type", args.type] : []),
    "--page",
    String(data.page + 1),
    ...(args.perPage !== undefined ? ["--per-page", String(args.perPage)] : []),
  ];
  return `${line}; more: ${next.join(" ")}`;
}

export async function tasks(
  api: Api,
  args: TasksArgs,
  out: (s: string) => void,
  paint: Paint,
): Promise<void> {
  const data = await call<TaskPage>(api, "/v1/probe/tasks", {
    query: {
      type: args.type,
      page: args.page,
      [api.form === "a" ? "limit" : "per_page"]: args.perPage,
    },
  });
  if (args.json) return out(JSON.stringify(data, null, 2));
  const what = `${args.type ? `${args.type} ` : ""}probe tasks`;
  if (data.items.length === 0) {
    if (data.total === 0) return out(`no ${what}`);
    return out(`no ${what} on page ${data.page}: ${data.total} in all`);
  }
  const rows = data.items.map((t) => [
    toSecond(t.created_at),
    t.type,
    fitWidth(t.target, TARGET_WIDTH),
    statusCell(paint, t.status),
    `${t.succeeded}/${t.nodes}`,
    t.share_id ?? "-",
    t.task_id,
  ]);
  out(table(["CREATED", "TYPE", "TARGET", "STATUS", "OK/NODES", "SHARE", "TASK"], rows));
  out(`\n${footer(args, data)}`);
}
