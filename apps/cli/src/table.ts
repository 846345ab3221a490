const ESC = String.fromCharCode(27);

/** ANSI colours, or none (off a TTY, or with NO_COLOR set). */
export interface Paint {
  green(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

export function paint(enabled: boolean): Paint {
  const sgr = (code: number) => (s: string) => (enabled && s ? `${ESC}[${code}m${s}${ESC}[0m` : s);
  return { green: sgr(32), red: sgr(31), yellow: sgr(33), dim: sgr(2), bold: sgr(1) };
}

/** The width a terminal shows: escape sequences take none. */
export function visibleLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === ESC) {
      while (i < s.length && s[i] !== "m") i++;
    } else n++;
  }
  return n;
}

/** Cuts a line to `width` visible characters, keeping escape sequences (and resetting at the cut). */
export function fitWidth(s: string, width: number): string {
  if (visibleLength(s) <= width) return s;
  let out = "";
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === ESC) {
      const end = s.indexOf("m", i);
      out += s.slice(i, end + 1);
      i = end;
    } else if (n < width - 1) {
      out += s[i];
      n++;
    }
  }
  return `${out}…${s.includes(ESC) ? `${ESC}[0m` : ""}`;
}

export interface Column {
  header: string;
  width: number;
  right?: boolean;
}

/** One row of cells padded to their columns' widths (the last cell is not padded). */
export function row(columns: Column[], cells: string[]): string {
  return columns
    .map((c, i) => {
      const cell = cells[i] ?? "";
      if (i === columns.length - 1) return cell;
      const pad = " ".repeat(Math.max(0, c.width - visibleLength(cell)));
      return c.right ? pad + cell : cell + pad;
    })
    .join("  ")
    .trimEnd();
}

/** A whole table: widths from the header and every cell. */
export function table(headers: string[], rows: string[][]): string {
  const columns = headers.map((header, i) => ({
    header,
    width: Math.max(header.length, ...rows.map((r) => visibleLength(r[i] ?? ""))),
  }));
  return [row(columns, headers), ...rows.map((r) => row(columns, r))].join("\n");
}

export function formatMs(ms: unknown): string {
  if (typeof ms !== "number") return "-";
  return `${ms.toFixed(ms < 10 ? 2 : ms < 1000 ? 1 : 0)} ms`;
}
