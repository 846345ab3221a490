import type { Server } from "node:http";
import type { Socket } from "node:net";
import type { Logger } from "pino";
import { errorBody } from "./errors.js";
import { newRequestId } from "./request-id.js";

/**
 * Requests Node's HTTP parser refuses before the application sees them (an unknown method such as `FOO`,
 * a malformed request line or header, headers over Node's size limit) get the API's error envelope and a
 * request id too, instead of Node's bare `400 Bad Request` with no body. The connection is closed after it,
 * as the parser cannot tell where the next request would start.
 */
export function answerClientErrors(server: Server, log: Logger): void {
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = err.code === "HPE_HEADER_OVERFLOW";
    const requestId = newRequestId();
    const body = JSON.stringify(
      tooLarge
        ? errorBody("headers_too_large", "request headers are too large", requestId)
        : errorBody(
            "malformed_request",
            `the request is not valid HTTP/1.1 (${err.code ?? "parse error"})`,
            requestId,
          ),
    );
    log.debug({ request_id: requestId, code: err.code }, "unparseable request refused");
    socket.end(
      `HTTP/1.1 ${tooLarge ? "431 Request Header Fields Too Large" : "400 Bad Request"}\r\n` +
        "Content-Type: application/json\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        "Connection: close\r\n\r\n" +
        body,
    );
  });
}
