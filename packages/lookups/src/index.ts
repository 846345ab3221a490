export { dnsRecordsLookup } from "./dns/records.js";
export {
  type DnsRecord,
  type DnsRecordsInput,
  type DnsRecordsResult,
  type DnsRecordType,
  dnsRecordSchema,
  dnsRecordsInputSchema,
  dnsRecordsResultSchema,
  dnsRecordTypes,
  domainSchema,
} from "./dns/schema.js";
export {
  type IcpCacheStore,
  type IcpInput,
  type IcpOptions,
  type IcpResult,
  icpInputSchema,
  icpResultSchema,
} from "./icp/schema.js";
export { canonicalIp } from "./ip/address.js";
export { IP_DATA_ATTRIBUTION } from "./ip/attribution.js";
export {
  IP_DATA_FILES,
  type IpData,
  IpDataHolder,
  type OpenIpDataOptions,
  openIpData,
} from "./ip/database.js";
export { answerIp, ipLookup } from "./ip/lookup.js";
export {
  type IpDataSource,
  type IpInput,
  type IpResult,
  ipInputSchema,
  ipResultSchema,
} from "./ip/schema.js";
export { guardedRequest } from "./net/guarded-http.js";
export { lookups, parseLookupInput, runLookup } from "./registry.js";
export {
  datasetFingerprints,
  type OpenReputationDataOptions,
  openReputationData,
  REPUTATION_DATA_FILES,
  REPUTATION_VERSIONS_FILE,
  shippedReputationDir,
} from "./reputation/data.js";
export { type ReputationCacheEvent, reputationCacheFile } from "./reputation/data-cache.js";
export { type ReplaceDatasetOptions, ReputationDataHolder } from "./reputation/data-holder.js";
export {
  type AddressMatch,
  type AsnEntry,
  type ReputationData,
  type ReputationDataSource,
  type ReputationDatasetName,
  reputationDatasetNames,
} from "./reputation/datasets.js";
export {
  type DnsblProfile,
  type DnsblZone,
  dnsblProfiles,
  parseDnsblZones,
} from "./reputation/dnsbl.js";
export { reputationLookup, reputationNow } from "./reputation/lookup.js";
export {
  type ReputationInput,
  type ReputationOptions,
  type ReputationResult,
  reputationEvidenceSchema,
  reputationInputSchema,
  reputationResultSchema,
} from "./reputation/schema.js";
export {
  DNSBL_OTHER_MAX,
  REPUTATION_WEIGHTS,
  type ReputationSignal,
  type ReputationType,
  RISK_BANDS,
  type RiskLevel,
  reputationTypes,
} from "./reputation/score.js";
export {
  chainItemSchema,
  type SslInput,
  type SslResult,
  sslInputSchema,
  sslResultSchema,
  type TlsAuditOptions,
} from "./tls/schema.js";
export {
  type Lookup,
  type LookupContext,
  LookupError,
  type LookupErrorCode,
  type LookupInputByKind,
  type LookupIssue,
  type LookupKind,
  type LookupResultByKind,
  lookupErrorCodes,
  lookupKinds,
} from "./types.js";
export { loadRdapBootstrap, type RdapBootstrap } from "./whois/bootstrap.js";
export {
  type WhoisInput,
  type WhoisNetwork,
  type WhoisOptions,
  type WhoisResult,
  whoisInputSchema,
  whoisNetworkSchema,
  whoisResultSchema,
} from "./whois/schema.js";
