import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { SseParser, wantsEventStream } from "./sse.js";

describe("wantsEventStream", () => {
  const accepts = async (accept: string | undefined) => {
    const app = new Hono();
    app.get("/", (c) => c.text(String(wantsEventStream(c))));
    const res = await app.request("/", accept === undefined ? {} : { headers: { accept } });
    return (await res.text()) === "true";
  };

  it("is true when Accept names text/event-stream with a non-zero q, in any case and among others", async () => {
    expect(await accepts("text/event-stream")).toBe(true);
    expect(await accepts("application/json, Text/Event-Stream;q=0.5")).toBe(true);
    expect(await accepts("text/event-stream; q=0")).toBe(false);
    expect(await accepts("application/json")).toBe(false);
    expect(await accepts("*/*")).toBe(false);
    expect(await accepts(undefined)).toBe(false);
  });
});

describe("SseParser", () => {
  it("reads events split anywhere across chunks, with LF, CRLF or CR line ends, and comment lines", () => {
    const text =
      'event: start\ndata: {"a":1}\nid: 1\n\n: keep-alive\n\r\nevent: result\r\ndata: x\r\ndata:y\r\nid: 2\r\n\r\n' +
      "data: plain\rid: 3\r\r";
    for (const size of [1, 2, 7, text.length]) {
      const parser = new SseParser();
      const events = [];
      for (let i = 0; i < text.length; i += size) events.push(...parser.push(text.slice(i, i + size)));
      events.push(...parser.end());
      expect(events).toEqual([
        { event: "start", data: '{"a":1}', id: "1" },
        { event: "", data: "", id: undefined, comment: "keep-alive" },
        { event: "result", data: "x\ny", id: "2" },
        { event: "message", data: "plain", id: "3" },
      ]);
    }
  });
});
