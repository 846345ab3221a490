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
export { lookups, runLookup } from "./registry.js";
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
