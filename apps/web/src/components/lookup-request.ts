import type { Form } from "../api.js";

export const lookupKinds = ["ip", "whois", "ssl", "dns", "icp", "reputation"] as const;
export type LookupKind = (typeof lookupKinds)[number];

export interface LookupInput {
  q: string;
  port: string;
  type: string;
}

/**
 * The request of a lookup in the deployment's form: the paths are shared, the query names differ (Form A
 * `q` everywhere; Form B `ip` for IP info, `domain` for DNS and ICP). Blank optional values are left out;
 * Form B's IP info without `ip` answers for the caller's own address.
 */
export function lookupPath(kind: LookupKind, input: LookupInput, form: Form): string {
  const q = input.q.trim();
  const p = new URLSearchParams();
  const name =
    form === "b" && kind === "ip"
      ? "ip"
      : form === "b" && (kind === "dns" || kind === "icp")
        ? "domain"
        : "q";
  if (q || !(form === "b" && kind === "ip")) p.set(name, q);
  if (kind === "ssl" && input.port.trim()) p.set("port", input.port.trim());
  if (kind === "dns" && input.type) p.set("type", input.type);
  const path = kind === "reputation" ? "/v1/ip/reputation" : `/v1/info/${kind}`;
  const qs = p.toString();
  return qs ? `${path}?${qs}` : path;
}
