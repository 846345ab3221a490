import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import { ApiError } from "../../http/errors.js";

/** A tool's answer: `structured` for programs, `text` (a short summary) for the model and older clients. */
export function toolResult(structured: Record<string, unknown>, text: string): CallToolResult {
  return { structuredContent: structured, content: [{ type: "text", text }] };
}

/**
 * Runs a tool's work and turns the API's errors into tool errors (`isError`, the same code, message and
 * details the HTTP API answers: `quota_exceeded`, `target_not_allowed`, `validation_error`…), so the model
 * sees what went wrong and the session goes on. Anything else is a bug: logged, answered `internal_error`.
 */
export async function guarded(
  log: Logger,
  tool: string,
  work: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError) {
      const body = {
        code: error.code,
        message: error.message,
        ...(error.details === undefined ? {} : { details: error.details }),
      };
      return { isError: true, content: [{ type: "text", text: JSON.stringify({ error: body }) }] };
    }
    log.error({ err: error, tool }, "MCP tool failed");
    const body = { code: "internal_error", message: "internal error" };
    return { isError: true, content: [{ type: "text", text: JSON.stringify({ error: body }) }] };
  }
}
