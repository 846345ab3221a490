import { z } from "@hono/zod-openapi";
import type { NodeState } from "../nodes/index.js";
import type { TaskRecord } from "./repo.js";
import { taskViewSchema, toTaskView } from "./result-schemas.js";

/**
 * A task as a document that stands on its own (shares and exports, docs/shares.md): the task view of the
 * active form, the probe spec the nodes ran, each node's metadata and each result's signature, which anyone
 * can check offline against the node's public key (docs/verify.md, `vantage verify`).
 */

const nodeMetaSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    country: z.string().nullable(),
    region: z.string().nullable(),
    provider: z.string().nullable(),
    public_key: z
      .string()
      .nullable()
      .openapi({ description: "The node's signing key now (a user nkey `U…`)" }),
    agent_version: z.string().nullable().openapi({
      description:
        "The agent release that ran the probe (from its signed statement), else the node's release now",
    }),
  })
  .openapi("TaskNode");

export const signatureEntrySchema = z
  .object({
    node_id: z.string(),
    alg: z.literal("ed25519"),
    public_key: z.string().openapi({ description: "The signing key, a user nkey (`U…`)" }),
    signature: z
      .string()
      .openapi({ description: "Base64 Ed25519 signature of `vantage-result-v1\\n` + statement" }),
    statement: z.string().openapi({
      description:
        "The signed statement, canonical JSON, exactly as signed: node, job, agent release, probe spec, " +
        "start, duration and outcome",
    }),
  })
  .openapi("ResultSignature");

export const taskDocumentShape = {
  task: taskViewSchema,
  spec: z.unknown().openapi({ description: "The probe spec sent to every node (type and parameters)" }),
  nodes: z.array(nodeMetaSchema).openapi({ description: "One entry per node of the task" }),
  signatures: z.array(signatureEntrySchema).openapi({
    description: "One entry per signed result (results of agents that sign nothing have none)",
  }),
};

export type TaskDocument = {
  task: ReturnType<typeof toTaskView>;
  spec: unknown;
  nodes: z.infer<typeof nodeMetaSchema>[];
  signatures: z.infer<typeof signatureEntrySchema>[];
};

function signedVersion(statement: string): string | undefined {
  try {
    const v = (JSON.parse(statement) as { agent_version?: unknown }).agent_version;
    return typeof v === "string" && v !== "" ? v : undefined;
  } catch {
    return undefined;
  }
}

export function toTaskDocument(
  task: TaskRecord,
  form: "a" | "b",
  known: ReadonlyMap<string, NodeState>,
): TaskDocument {
  const signatures = task.results.flatMap((r) =>
    r.signature
      ? [
          {
            node_id: r.node_id,
            alg: "ed25519" as const,
            public_key: r.signature.key,
            signature: r.signature.sig,
            statement: r.signature.statement,
          },
        ]
      : [],
  );
  const nodes = task.results.map((r) => {
    const n = known.get(r.node_id);
    const signed = r.signature && signedVersion(r.signature.statement);
    return {
      id: r.node_id,
      name: n?.name ?? r.node_name,
      country: n?.country ?? null,
      region: n?.region ?? null,
      provider: n?.provider ?? null,
      public_key: n?.publicKey ?? null,
      agent_version: signed ?? n?.version ?? null,
    };
  });
  return { task: toTaskView(task, form), spec: task.spec, nodes, signatures };
}
