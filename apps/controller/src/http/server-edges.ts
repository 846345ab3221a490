import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "pino";
import { type ErrorCode, errorBody, errorCodes } from "./errors.js";
import { newRequestId } from "./request-id.js";

/**
 * Requests that Node's HTTP server answers before the application sees them get the API's error envelope
 * and a request id too, instead of Node's bare status lines with no body:
 * - what the parser refuses (an unknown method such as `FOO`, a malformed header line): 400
 *   `malformed_request`; headers over Node's limit: 431; a request whose headers never finish: 408;
 * - `Expect:` other than `100-continue`: 417; `CONNECT`: 405 (this is no proxy);
 * - a request target that is neither a path nor an absolute URL (`OPTIONS *`): 400, by `originFormOnly`.
 * Each closes the connection after it, except the last, which leaves the connection as the client asked.
 */
export function guardServerEdges(server: Server, log: Logger): void {
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    if (err.code === "HPE_HEADER_OVERFLOW") {
      endSocket(socket, "headers_too_large", "request headers are too large", log);
    } else if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") {
      endSocket(socket, "request_timeout", "the request did not arrive in time", log);
    } else {
      const why = err.code ?? "parse error";
      endSocket(socket, "malformed_request", `the request is not valid HTTP/1.1 (${why})`, log);
    }
  });
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    const expect = String(req.headers.expect ?? "").slice(0, 60);
    respond(res, "expectation_failed", `Expect: ${expect} is not supported (only 100-continue)`, true);
  });
  server.on("connect", (_req: IncomingMessage, socket: Duplex) => {
    endSocket(socket, "method_not_allowed", "CONNECT is not allowed: this server is no proxy", log);
  });
}

/**
 * The request listener, answering a request target that is neither a path nor an absolute http(s) URL
 * (which HTTP/1.1 servers must accept) itself: `OPTIONS *`, `GET x`.
 */
export function originFormOnly(listener: RequestListener): RequestListener {
  return (req, res) => {
    const target = req.url ?? "";
    if (target.startsWith("/") || /^https?:\/\//i.test(target)) return listener(req, res);
    respond(res, "malformed_request", "the request target must be a path such as /v1/nodes", false);
  };
}

const reasons: Partial<Record<ErrorCode, string>> = {
  malformed_request: "Bad Request",
  method_not_allowed: "Method Not Allowed",
  request_timeout: "Request Timeout",
  expectation_failed: "Expectation Failed",
  headers_too_large: "Request Header Fields Too Large",
};

function respond(res: ServerResponse, code: ErrorCode, message: string, close: boolean): void {
  const requestId = newRequestId();
  const body = JSON.stringify(errorBody(code, message, requestId));
  res.writeHead(errorCodes[code], {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(body),
    "X-Request-Id": requestId,
    ...(close ? { Connection: "close" } : {}),
  });
  res.end(body);
}

function endSocket(socket: Duplex, code: ErrorCode, message: string, log: Logger): void {
  const requestId = newRequestId();
  const body = JSON.stringify(errorBody(code, message, requestId));
  log.debug({ request_id: requestId, code }, "request refused before routing");
  socket.end(
    `HTTP/1.1 ${errorCodes[code]} ${reasons[code] ?? "Error"}\r\n` +
      "Content-Type: application/json\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      "Connection: close\r\n\r\n" +
      body,
  );
}
