/**
 * Where a run reads and writes: the process's own streams (main.ts), or a test's. `stdout.isTTY` and
 * `columns` are what a terminal reports; `stdin` is read by `login` without `--key`.
 */
export interface CliIo {
  stdout: { write(chunk: string | Uint8Array): unknown; isTTY?: boolean; columns?: number };
  stderr: { write(chunk: string): unknown };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
}
