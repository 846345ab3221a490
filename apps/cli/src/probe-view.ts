import type { ProbeType } from "./probe-request.js";
import { note, type ResultEntry, TYPE_COLUMNS } from "./result-columns.js";
import { type Column, fitWidth, formatMs, type Paint, row } from "./table.js";

export interface StartNode {
  node_id: string;
  node_name?: string;
  country?: string | null;
}

export interface Task {
  task_id: string;
  status: string;
  results: ResultEntry[];
  [field: string]: unknown;
}

export interface ViewOptions {
  type: ProbeType;
  tty: boolean;
  columns: number | undefined;
  paint: Paint;
  write(s: string): void;
}

const RESULT_WIDTH = 21; // the longest result code, dns_resolution_failed

/**
 * The table of a running probe. On a TTY every node gets a pending line at `start` that its result
 * overwrites in place; off a TTY each line is printed once, in arrival order. A summary line ends both.
 */
export class ProbeView {
  private columns: Column[] = [];
  private countries = new Map<string, string>();
  /** Node ids in the order of their lines under the header. */
  private lines: string[] = [];
  private shown = new Set<string>();

  constructor(private readonly o: ViewOptions) {}

  start(nodes: StartNode[]): void {
    for (const n of nodes) this.countries.set(n.node_id, n.country ?? "-");
    this.header(nodes.map((n) => n.node_id));
    if (!this.o.tty) return;
    for (const n of nodes) {
      this.lines.push(n.node_id);
      this.print(this.cells(n.node_id, this.o.paint.yellow("pending"), []));
    }
  }

  result(r: ResultEntry): void {
    if (this.shown.has(r.node_id)) return;
    this.shown.add(r.node_id);
    this.header([r.node_id]);
    const p = this.o.paint;
    const status = r.success ? p.green("ok") : p.red(r.error?.code ?? "failed");
    const line = this.cells(r.node_id, status, [
      formatMs(r.latency_ms),
      ...TYPE_COLUMNS[this.o.type].map((c) => c.value(r)),
      r.success ? note(this.o.type, r) : p.red(note(this.o.type, r)),
    ]);
    const index = this.lines.indexOf(r.node_id);
    if (this.o.tty && index >= 0) {
      const up = this.lines.length - index;
      const ESC = String.fromCharCode(27);
      this.o.write(`${ESC}[${up}A\r${ESC}[2K${this.fit(line)}${ESC}[${up}B\r`);
      return;
    }
    this.lines.push(r.node_id);
    this.print(line);
  }

  /** Prints what the stream did not (a node whose event never came) and the summary line. */
  finish(task: Task): void {
    for (const r of task.results) this.result(r);
    const p = this.o.paint;
    const ok = task.results.filter((r) => r.success).length;
    const failed = task.results.length - ok;
    const nodes = `${task.results.length} node${task.results.length === 1 ? "" : "s"}`;
    const parts = [p.green(`${ok} ok`), ...(failed ? [p.red(`${failed} failed`)] : [])];
    this.o.write(`\n${nodes}: ${parts.join(", ")}  ${p.dim(`${task.task_id} (${task.status})`)}\n`);
  }

  private header(nodeIds: string[]): void {
    if (this.columns.length) return;
    this.columns = [
      { header: "NODE", width: Math.max(4, ...nodeIds.map((id) => id.length)) },
      { header: "COUNTRY", width: 7 },
      { header: "RESULT", width: RESULT_WIDTH },
      { header: "LATENCY", width: 10, right: true },
      ...TYPE_COLUMNS[this.o.type],
      { header: "NOTE", width: 0 },
    ];
    this.print(
      this.o.paint.bold(
        row(
          this.columns,
          this.columns.map((c) => c.header),
        ),
      ),
    );
  }

  private cells(nodeId: string, status: string, rest: string[]): string {
    return row(this.columns, [nodeId, this.countries.get(nodeId) ?? "-", status, ...rest]);
  }

  private fit(line: string): string {
    return this.o.tty && this.o.columns ? fitWidth(line, this.o.columns - 1) : line;
  }

  private print(line: string): void {
    this.o.write(`${this.fit(line)}\n`);
  }
}
