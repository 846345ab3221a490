/** curl's `-w` timings, cumulative from the start as curl reports them, in milliseconds. */
export interface CurlReference {
  httpCode: number;
  remoteIp: string;
  namelookup: number;
  connect: number;
  /** 0 for plain HTTP (curl reports appconnect only for TLS). */
  appconnect: number;
  starttransfer: number;
  total: number;
}

/** The `-w` format the parser expects: one `key=value` line per figure. */
export const curlWriteOut = [
  "http_code=%{http_code}",
  "remote_ip=%{remote_ip}",
  "time_namelookup=%{time_namelookup}",
  "time_connect=%{time_connect}",
  "time_appconnect=%{time_appconnect}",
  "time_starttransfer=%{time_starttransfer}",
  "time_total=%{time_total}",
  "",
].join("\n");

export function parseCurl(output: string): CurlReference {
  const values = new Map<string, string>();
  for (const line of output.split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) values.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  const seconds = (key: string): number => {
    const v = values.get(key);
    if (v === undefined) throw new Error(`curl output lacks ${key}:\n${output}`);
    return Number(v) * 1000;
  };
  return {
    httpCode: Number(values.get("http_code") ?? 0),
    remoteIp: values.get("remote_ip") ?? "",
    namelookup: seconds("time_namelookup"),
    connect: seconds("time_connect"),
    appconnect: seconds("time_appconnect"),
    starttransfer: seconds("time_starttransfer"),
    total: seconds("time_total"),
  };
}
