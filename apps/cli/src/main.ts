import { runCli } from "./run.js";

// The `vantage` command (dist/vantage.mjs): the CLI of run.ts on this process's streams and environment.
runCli(process.argv.slice(2), process.env, process).then((code) => {
  process.exitCode = code;
});
