/**
 * Test helper: builds a lab (no services), prints its id, then waits to be killed. The teardown tests
 * kill it with a signal to prove the exit hooks and the orphan sweep leave nothing behind.
 */
import { startLab } from "../lab.js";

const lab = await startLab({ services: false });
process.stdout.write(`${JSON.stringify({ id: lab.id })}\n`);
setInterval(() => {}, 60_000);
