export {
  type AuthorizationCheck,
  type AuthorizationCheckOptions,
  authorizationProbeSubject,
  checkAuthorizationEnforced,
  checkAuthorizationUntilConclusive,
  isAuthorizationProbeRefusal,
} from "./authorization.js";
export { type FromAgentChild, type IpcChannel, ipcAgentLink, type ToAgentChild } from "./child-ipc.js";
export { crashedJobsOf, PendingJobs } from "./crash-notices.js";
export { InProcessBus } from "./in-process.js";
export {
  connectNats,
  isNatsAuthorizationError,
  type NatsOptions,
  natsAgentLink,
  natsControllerTransport,
} from "./nats.js";
export {
  type LoggedRecord,
  openResultsLog,
  RESULTS_STREAM,
  type ResultsLog,
  ResultsLogError,
  type ResultsLogOptions,
} from "./results-log.js";
export {
  type AgentLink,
  type ControllerTransport,
  type JobHandler,
  type JobMessageInfo,
  TransportError,
  type TransportErrorCode,
} from "./types.js";
