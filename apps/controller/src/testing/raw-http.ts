import { request as httpRequest, type IncomingHttpHeaders } from "node:http";

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * One request over HTTP/1.1 as Node's client sees it: status, headers, the raw body bytes (no decoding,
 * no `Accept-Encoding` added, as `fetch` does).
 */
export function rawRequest(url: string, headers: Record<string, string> = {}, method = "GET") {
  return new Promise<RawAnswer>((resolve, reject) => {
    httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (d: Buffer) => chunks.push(d));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    })
      .on("error", reject)
      .end();
  });
}
