/** The public API's shapes the public pages read (both forms answer these the same; see docs/api-forms.md). */

export interface DirectoryNode {
  id: string;
  name: string;
  country: string;
  region: string;
  provider: string;
  status: "online" | "offline";
  last_seen: string;
  version: string;
  capabilities: string[];
}

export const probeTypes = ["http", "ping", "dns", "tcp", "traceroute", "mtr"] as const;
export type ProbeType = (typeof probeTypes)[number];

/** A node as the live stream's `start` event names it. */
export interface TaskNode {
  node_id: string;
  node_name: string;
  country?: string;
  region?: string;
  provider?: string;
}

/** One node's entry of `results[]`: the common fields, then the probe type's own (present when measured). */
export interface ResultEntry {
  node_id: string;
  node_name: string;
  success: boolean;
  latency_ms: number | null;
  error?: { code: string; message: string };
  resolved_ip?: string | null;
  // http
  status_code?: number | null;
  timings?: {
    dns: number | null;
    connect: number | null;
    tls: number | null;
    first_byte: number | null;
    /** First byte to the body's end (agents of this version). */
    download?: number | null;
    total: number;
  };
  /** With `http2`: "2" or "1.1". */
  http_version?: string;
  tls?: {
    subject: string;
    issuer: string;
    valid_from: string;
    valid_to: string;
    san: string[];
    protocol: string | null;
    cipher: string | null;
    authorized: boolean;
    authorization_error: string | null;
  } | null;
  headers?: Record<string, string>;
  body_excerpt?: string;
  body_bytes?: number;
  body_truncated?: boolean;
  keyword_found?: boolean;
  redirects?: { url: string; status_code: number }[];
  // ping
  packets_sent?: number;
  packets_received?: number;
  packet_loss?: number;
  rtt?: { min: number; avg: number; max: number; mdev: number } | null;
  replies?: { seq: number; rtt_ms: number | null; ttl: number | null }[];
  packet_size?: number;
  pmtu?: number | null;
  // dns
  resolver?: string;
  resolver_port?: number;
  protocol?: string;
  rcode?: string;
  truncated?: boolean;
  query_time_ms?: number;
  answers?: { name: string; type: string; ttl: number; value: string }[];
  flags?: string[];
  nsid?: string | null;
  trace?: {
    zone: string;
    server: string;
    server_name: string | null;
    rcode: string;
    query_time_ms: number;
    referral: string[];
    answers: { name: string; type: string; ttl: number; value: string }[];
    error?: string;
  }[];
  // tcp
  port?: number;
  connect_ms?: number | null;
  // traceroute and mtr (each hop's network is the controller's, from its IP data)
  reached?: boolean;
  hops?: {
    hop: number;
    ip: string | null;
    hostname?: string | null;
    rtts?: (number | null)[];
    probe_ips?: (string | null)[];
    ips?: string[];
    sent?: number;
    received?: number;
    loss_pct?: number;
    last?: number | null;
    avg?: number | null;
    best?: number | null;
    worst?: number | null;
    stdev?: number | null;
    asn?: number | null;
    network?: string | null;
    country?: string | null;
    reserved?: boolean;
    range?: string | null;
  }[];
  as_path?: number[];
  // mtr
  mode?: "icmp" | "udp" | "tcp";
  rounds?: number;
}

/** `GET /v1/probe/tasks/{id}` (and the stream's `done`). */
export interface TaskView {
  task_id: string;
  type: ProbeType;
  target: string;
  status: "queued" | "running" | "done" | "failed";
  created_at: string;
  finished_at: string | null;
  results: ResultEntry[];
}
