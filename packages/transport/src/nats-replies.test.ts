import { type NatsServer, startNatsServer } from "@vantage/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectNats } from "./nats.js";
import { ReplyMux } from "./nats-replies.js";

/** The controller's request/reply mux on a real nats-server: what the transport contract does not reach. */
describe("ReplyMux", () => {
  let nats: NatsServer;
  beforeAll(async () => {
    nats = await startNatsServer();
  });
  afterAll(async () => {
    await nats.stop();
  });

  const text = (s: string) => new TextEncoder().encode(s);
  const read = (b: Uint8Array) => new TextDecoder().decode(b);

  it("pairs many concurrent replies with their requests, whatever order they come back in", async () => {
    const server = await connectNats({ servers: nats.url, name: "echo" });
    const client = await connectNats({ servers: nats.url, name: "client" });
    // Answers in reverse order of arrival, each with its own payload.
    const held: { reply: string; data: string }[] = [];
    server.subscribe("echo", {
      callback: (_e, m) => {
        held.push({ reply: m.reply ?? "", data: read(m.data) });
        if (held.length === 20) for (const h of held.reverse()) server.publish(h.reply, text(`re:${h.data}`));
      },
    });
    await server.flush();
    const mux = new ReplyMux(client);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => mux.request("echo", text(String(i)), 2000)),
    );
    expect(answers.map((m) => read(m.data))).toEqual(Array.from({ length: 20 }, (_, i) => `re:${i}`));
    mux.close();
    await client.close();
    await server.close();
  });

  it("a reply after the timeout is dropped; the next request still gets its own", async () => {
    const server = await connectNats({ servers: nats.url, name: "slow" });
    const client = await connectNats({ servers: nats.url, name: "client" });
    let first = true;
    server.subscribe("slow", {
      callback: (_e, m) => {
        const delay = first ? 150 : 0;
        first = false;
        setTimeout(() => m.respond(m.data), delay);
      },
    });
    await server.flush();
    const mux = new ReplyMux(client);
    await expect(mux.request("slow", text("a"), 50)).rejects.toMatchObject({ code: "timeout" });
    await new Promise((r) => setTimeout(r, 200)); // the late reply to "a" arrives and is ignored
    const b = await mux.request("slow", text("b"), 1000);
    expect(read(b.data)).toBe("b");
    mux.close();
    await client.close();
    await server.close();
  });

  it("no_responders at once; closing rejects what is open; a closed connection refuses at once", async () => {
    const server = await connectNats({ servers: nats.url, name: "silent" });
    const client = await connectNats({ servers: nats.url, name: "client" });
    server.subscribe("silent", { callback: () => {} });
    await server.flush();
    const mux = new ReplyMux(client);
    await expect(mux.request("nobody.here", text("x"), 5000)).rejects.toMatchObject({
      code: "no_responders",
    });
    const open = mux.request("silent", text("x"), 5000);
    mux.close();
    await expect(open).rejects.toMatchObject({ code: "closed" });
    await client.close();
    await expect(new ReplyMux(client).request("silent", text("x"), 5000)).rejects.toMatchObject({
      code: "closed",
    });
    await server.close();
  });
});
