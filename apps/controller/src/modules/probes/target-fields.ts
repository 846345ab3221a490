import { isIP } from "node:net";
import { domainToASCII } from "node:url";
import { z } from "@hono/zod-openapi";
import { pastedHost } from "@vantage/protocol/pasted-host";
import { fieldError } from "../../http/errors.js";
import { hasUnstorableChars } from "../../lib/unstorable-text.js";
import { literalAddress } from "./target-check.js";

const label = "[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?";
const hostnamePattern = new RegExp(`^${label}(?:\\.${label})*\\.?$`);

/** An IP address (IPv6 also in brackets) or a host name; brackets around anything but IPv6 are refused. */
export function isHostOrIp(value: string): boolean {
  if (value.startsWith("[") && value.endsWith("]")) return isIP(value.slice(1, -1)) === 6;
  return isIP(value) !== 0 || isHostName(value);
}

/**
 * A host name. A name whose last label is a number is not one: resolvers and URL parsers read it as an IPv4
 * address in another notation (`127.1`, `2130706433`, `0x7f.1`), so it counts only if it is a valid one
 * (`256.1.1.1` and `1.2.3.4.5` are neither names nor addresses: 400).
 */
function isHostName(v: string): boolean {
  if (v.length > 253 || !hostnamePattern.test(v)) return false;
  const last = v.replace(/\.$/, "").split(".").pop() ?? "";
  return !/^(?:\d+|0x[0-9a-f]*)$/i.test(last) || literalAddress(v) !== undefined;
}

/** C0 controls or DEL (U+0000 included): nothing a URL may carry. */
function hasControlChars(v: string): boolean {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/**
 * An internationalised name (`bücher.example`) in its ASCII form (`xn--bcher-kva.example`), as resolvers
 * need it; ASCII input, IP addresses and brackets come back unchanged; a name no IDNA mapping accepts
 * comes back as it was and fails the name check after it.
 */
export function toAsciiName(v: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range itself, not control characters
  if (/^[\x00-\x7f]*$/.test(v)) return v;
  return domainToASCII(v) || v;
}

/** A field that takes what `pastedHost` takes and passes the host alone on to `inner`. */
const pasted = <T extends z.ZodType<unknown, string>>(inner: T) =>
  z
    .string()
    .min(1)
    .max(2048)
    .transform((v) => pastedHost(v).host)
    .pipe(inner);

export const hostField = z
  .string()
  .min(1)
  .max(253)
  .transform(toAsciiName)
  .refine(isHostOrIp, "must be a host name or an IP address")
  .openapi({ example: "example.com", description: "Host name (IDN allowed) or IP address" });

export const domainField = z
  .string()
  .min(1)
  .max(253)
  .transform(toAsciiName)
  .refine((v) => hostnamePattern.test(v) && v.length <= 253, "must be a domain name")
  .openapi({ example: "example.com", description: "Domain name (IDN allowed)" });

/** A host name or IP; a pasted URL or `host:port` gives its host (the port is not used). */
export const pastedHostField = pasted(hostField).openapi({
  example: "example.com",
  description:
    "Host name (IDN allowed) or IP address. A URL or `host:port` (`[v6]:port`) is taken too: its host is used",
});

/** A domain name; a pasted URL or `host:port` gives its host. */
export const pastedDomainField = pasted(domainField).openapi({
  example: "example.com",
  description: "Domain name (IDN allowed). A URL or `host:port` is taken too: its host is used",
});

export const urlField = z
  .string()
  .min(1)
  .max(2048)
  .refine(
    (v) => !hasControlChars(v) && !hasUnstorableChars(v),
    "must not contain control characters or unpaired surrogates",
  )
  .superRefine((v, ctx) => {
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      ctx.addIssue({ code: "custom", message: "must be an http:// or https:// URL" });
      return;
    }
    if ((u.protocol !== "http:" && u.protocol !== "https:") || u.hostname === "")
      ctx.addIssue({ code: "custom", message: "must be an http:// or https:// URL" });
    else if (u.port === "0") ctx.addIssue({ code: "custom", message: "port must be 1–65535" });
    else if (u.username !== "" || u.password !== "")
      ctx.addIssue({
        code: "custom",
        message: "must not carry credentials (user:password@): they would be stored with the task",
      });
  })
  .openapi({ example: "https://example.com/" });

/** `host`, `host:port`, an IPv6 address or `[v6]:port`. */
export const serverField = z
  .string()
  .min(1)
  .max(2048)
  .refine((v) => {
    if (isIP(v) !== 0) return true;
    // A DoH URL (protocol https): an https:// URL with a host, no credentials; its pairing is checked after.
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return isDohUrl(v);
    if (v.length > 260) return false;
    const m = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(v);
    if (!m) return false;
    const port = m[2] === undefined ? 53 : Number(m[2]);
    return isHostOrIp(m[1]!) && port >= 1 && port <= 65_535;
  }, "must be host, host:port, an IPv6 address, [v6]:port, or with protocol https an https:// URL")
  .openapi({
    description:
      "Custom DNS server (port 53, 853 with protocol tls); with protocol https the DoH URL " +
      "(`https://dns.example/dns-query`); omitted = the node's own resolver",
    example: "1.1.1.1",
  });

/** An https:// URL naming a host, with no user:password and no control characters. */
function isDohUrl(v: string): boolean {
  if (hasControlChars(v)) return false;
  try {
    const u = new URL(v);
    return (
      u.protocol === "https:" && u.hostname !== "" && u.username === "" && u.password === "" && u.port !== "0"
    );
  } catch {
    return false;
  }
}

/** `host:port` as a task's stored target (`[v6]:port` for an IPv6 address). */
export function hostPort(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/**
 * `host:port`, `[v6]:port`, a URL, or a bare host (or IPv6 address) whose port comes from `paramPort`; a
 * URL naming no port takes `paramPort`, else its scheme's. `paths` name the fields in the caller's form.
 */
export function splitHostPort(
  target: string,
  paramPort: number | undefined,
  paths: { target: string; port: string } = { target: "body.target", port: "body.params.port" },
): { host: string; port: number } {
  const given = pastedHost(target);
  let host = given.host;
  let port = given.port;
  if (port !== undefined) {
    if (port < 1 || port > 65_535) throw fieldError(paths.target, "port must be 1–65535");
    if (paramPort !== undefined && paramPort !== port)
      throw fieldError(paths.port, `differs from the port in ${paths.target.replace(/^body\./, "")}`);
  }
  host = toAsciiName(host);
  if (host.length > 255 || !isHostOrIp(host))
    throw fieldError(paths.target, "must be host:port or a host name");
  if (host.startsWith("[")) host = host.slice(1, -1);
  port ??= paramPort ?? given.schemePort;
  if (port === undefined) throw fieldError(paths.port, "required when target has no port");
  return { host, port };
}
