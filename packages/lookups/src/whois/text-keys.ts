/*
 * Data for the `key: value` WHOIS formats (gTLD registries and registrars, CNNIC, DENIC, the RIRs). Label
 * list after whoiser's `renameLabels` (LayeredStudio/whoiser, MIT) and the registries' own output. Keys are
 * matched lower-cased, with runs of spaces collapsed and trailing dots dropped (`expires.....:`).
 */

export type TextField =
  | "domain"
  | "registrar"
  | "expires"
  | "name_server"
  | "referral"
  | "net_range"
  | "net_cidr"
  | "net_name"
  | "net_org"
  | "net_org_ref"
  | "country";

export const textKeys: Readonly<Record<string, TextField>> = {
  "domain name": "domain",
  domain: "domain",
  domainname: "domain",

  registrar: "registrar",
  "sponsoring registrar": "registrar",
  "registrar name": "registrar",
  "record maintained by": "registrar",

  "registry expiry date": "expires",
  "registrar registration expiration date": "expires",
  "expiration date": "expires",
  "expiration time": "expires",
  "expires on": "expires",
  expires: "expires",
  "expire date": "expires",
  expire: "expires",
  "expiry date": "expires",
  "paid-till": "expires",
  "record will expire on": "expires",
  expired: "expires",
  "additional info expires on": "expires",
  "renewal date": "expires",

  "name server": "name_server",
  "name servers": "name_server",
  nameserver: "name_server",
  nameservers: "name_server",
  nserver: "name_server",

  // Where the record continues: followed once (a registrar's thick record, the RIR holding an address).
  "registrar whois server": "referral",
  "whois server": "referral",
  referralserver: "referral",

  netrange: "net_range",
  inetnum: "net_range",
  inet6num: "net_range",
  cidr: "net_cidr",
  netname: "net_name",
  orgname: "net_org",
  "org-name": "net_org",
  owner: "net_org",
  // ARIN's network block: `Organization: Google LLC (GOGL)`, the handle in brackets.
  organization: "net_org_ref",
  country: "country",
};

/**
 * Answers meaning "no such domain / address", matched at the start of a line. Only the registry's answer
 * is read for them: a referral target saying it does not know the name does not unmake the registry's.
 */
export const notFoundPatterns: readonly RegExp[] = [
  /^\s*no match for\b/im,
  /^\s*no match!!/im,
  /^\s*not found\b/im,
  /^\s*no data found\b/im,
  /^\s*no entries found\b/im,
  /^\s*no matching record\b/im,
  /^\s*no object found\b/im,
  /^\s*domain not found\b/im,
  /^\s*the queried object does not exist\b/im,
  /^\s*this domain name has not been registered\b/im,
  /^\s*status:\s*(free|available)\s*$/im,
  /^%+\s*no entries found\b/im,
  /^%+\s*this query returned 0 objects\b/im,
];

export function isNotFound(text: string): boolean {
  return notFoundPatterns.some((re) => re.test(text));
}
