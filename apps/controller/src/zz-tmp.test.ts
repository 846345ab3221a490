import { it } from "vitest";
import { useTestDb } from "./testing/use-test-db.js";
const db = useTestDb("pglite");
it("x", async () => {
  const t = db.app("b");
  const keys = `{${Array.from({ length: 70_000 }, (_, i) => `"k${i}":${i}`).join(",")}}`;
  const objs = `[${Array(100000).fill('{"a":"x"}').join(",")}]`;
  const nodes = `{"host":"example.com","port":443,"nodes":[${Array(60000).fill('"fra1"').join(",")}]}`;
  const nodes2 = `{"host":"example.com","port":443,"nodes":[${Array(60000).fill('1').join(",")}]}`;
  for (const [n, b] of [["keys", keys], ["objs", objs], ["nodes", nodes], ["nodes2", nodes2]] as const) for (let i = 0; i < 3; i++) {
    const s = performance.now();
    const r = await t.call("POST", "/v1/probe/tcp", { body: b });
    console.log(n, r.status, (performance.now() - s).toFixed(1), r.text.length, r.text.slice(0, 200));
  }
});
