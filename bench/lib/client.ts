import { Agent, request } from "node:http";

/**
 * A lean HTTP/1.1 client for sequential latency samples: node:http over one kept-alive connection. The
 * figures are the server's, not the client's: undici's `fetch` adds 0.3–0.9 ms of its own per request on
 * this 2-core machine, which would be charged to the service under test.
 */
export function leanClient(baseUrl: string) {
  const base = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return {
    send(
      method: "GET" | "POST",
      path: string,
      body?: string,
      headers: Record<string, string> = {},
    ): Promise<{ status: number; text: string }> {
      return new Promise((resolve, reject) => {
        const req = request(
          {
            host: base.hostname,
            port: base.port,
            path,
            method,
            agent,
            headers:
              body === undefined
                ? headers
                : {
                    "content-type": "application/json",
                    "content-length": Buffer.byteLength(body),
                    ...headers,
                  },
          },
          (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (chunk: string) => {
              text += chunk;
            });
            res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
            res.on("error", reject);
          },
        );
        req.on("error", reject);
        req.end(body);
      });
    },
    close(): void {
      agent.destroy();
    },
  };
}
