// @ts-check
// The bcrypt work of the accounts module, run in worker threads by the pool in password-hasher.ts.
// Plain JavaScript on purpose: a worker thread loads it the same way under `tsx`, `node --import tsx`,
// vitest and plain Node, with no TypeScript loader (workers do not reliably inherit one).
import bcrypt from "bcryptjs";

/**
 * One task: hash a new password, or compare a password with a stored hash.
 * @param {{op: "hash", password: string, cost: number} | {op: "compare", password: string, hash: string}} task
 * @returns {string | boolean}
 */
export default function run(task) {
  if (task.op === "hash") return bcrypt.hashSync(task.password, task.cost);
  return bcrypt.compareSync(task.password, task.hash);
}
