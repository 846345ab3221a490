export {
  type Credentials,
  createAgentCredentials,
  createControllerCredentials,
} from "@vantage/nats-auth";
export { type App, appArgs, deployedArgs, repoRoot, runsBuilt } from "./app-entry.js";
export { captureLog } from "./capture-log.js";
export { chromiumPath } from "./chromium.js";
export { listeningOn, logLines } from "./log-lines.js";
export {
  type NatsPermissions,
  type NatsServer,
  type NatsUser,
  natsServerBinary,
  renderNatsConfig,
  startNatsServer,
} from "./nats-server.js";
export { killWithOwner, processAlive, runWithOwner } from "./owner-watch.js";
export { type PostgresCluster, startPostgresCluster } from "./pg-cluster.js";
export { freePort, waitForPort } from "./ports.js";
export { adminUrl, createTestDatabase, type TestDatabase } from "./postgres.js";
export { writeSeedFile } from "./seed-file.js";
