export {
  type LabAgent,
  type LabAgentOptions,
  type LabAgents,
  labNatsPort,
  startLabAgents,
} from "./agents.js";
export { destroyLab, labPrefix, listNamespaces, sweepLabs } from "./cleanup.js";
export { describeLab, expectedHops } from "./describe.js";
export { normaliseRecord } from "./fidelity/normalise.js";
export { type ProbeRunner, startProbeRunner } from "./fidelity/probe-runner.js";
export {
  referenceCurl,
  referenceDig,
  referencePing,
  referenceTraceroute,
} from "./fidelity/reference-runs.js";
export { type Lab, type LabOptions, repoRoot, startLab } from "./lab.js";
export { hopAddresses } from "./reference/traceroute.js";
export { missingRequirements } from "./shell.js";
export { labAddresses, labLinks, labNodes } from "./topology.js";
