import { serve } from "@hono/node-server";
import { Hono } from "hono";

/** The baseline: a bare Hono hello-world on @hono/node-server, nothing else. */
const app = new Hono();
app.get("/", (c) => c.json({ hello: "world" }));
const port = Number(process.env.PORT ?? 0);
serve({ fetch: app.fetch, hostname: "127.0.0.1", port }, (info) => {
  process.stdout.write(`listening ${info.port}\n`);
});
// A clean exit on SIGTERM, so `--cpu-prof` (BENCH_PROFILE=1) writes its profile.
process.on("SIGTERM", () => process.exit(0));
