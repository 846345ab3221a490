import type { Logger } from "pino";

/**
 * Every exit of the agent process says why and with which code, as its last line: `exit(code, reason)`
 * records the reason and exits; Node's `exit` event writes the line synchronously (the agent's logger writes
 * stdout synchronously; before the logger exists, a plain line on stderr). Only SIGKILL and a crash
 * of Node itself leave no line.
 */
export class ExitLog {
  private reason = "nothing left to run";
  private log: Logger | undefined;

  constructor(proc: NodeJS.Process = process) {
    proc.on("exit", (code) => this.write(code));
  }

  /** Lines from now on go to `log`. */
  use(log: Logger): void {
    this.log = log;
  }

  /** Sets the reason the exit line gives, without exiting (e.g. a signal's drain has begun). */
  because(reason: string): void {
    this.reason = reason;
  }

  exit(code: number, reason: string): never {
    this.reason = reason;
    process.exit(code);
  }

  private write(code: number): void {
    const text = `agent exiting with code ${code}: ${this.reason}`;
    try {
      if (this.log) {
        if (code === 0) this.log.info({ exit_code: code, reason: this.reason }, text);
        else this.log.error({ exit_code: code, reason: this.reason }, text);
        // The last line: anything still run by the exit (another listener, a connection's close status)
        // stays unwritten.
        this.log.level = "silent";
        return;
      }
    } catch {
      // fall through to stderr
    }
    process.stderr.write(`vantage-agent: ${text}\n`);
  }
}
