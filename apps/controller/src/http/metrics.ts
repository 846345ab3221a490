import { Counter, collectDefaultMetrics, Registry } from "prom-client";

/** The counter `name` of `registry`, made on first use: a second runtime on one registry shares it. */
export function counterOn<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
): Counter<L> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Counter<L>;
  return new Counter({ name, help, labelNames, registers: [registry] });
}

const buckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

interface Series {
  labels: string;
  count: number;
  sum: number;
  bucketCounts: number[];
}

/**
 * Request counts and latency histograms by method, route pattern and status, rendered in the Prometheus
 * text format. Kept by hand (a map lookup and a bucket walk per request) because a general-purpose client
 * cost a quarter of the throughput of a small route; process metrics still come from prom-client, and so
 * do the roles' own series, which each role registers on `registry` when it starts.
 */
export class HttpMetrics {
  readonly registry = new Registry();
  private readonly routes = new Map<string, RouteSeries>();
  /** Every series, in the order they were first observed (the order they are rendered in). */
  private readonly series: Series[] = [];
  /** Whether the HTTP families are exported: only by a controller that serves the API (the api role). */
  private readonly http: boolean;

  /**
   * `defaults`: the process metrics (CPU, memory, event loop). `http: false` (a controller without the api
   * role) leaves the HTTP families out of `text()` altogether rather than exporting them empty.
   */
  constructor(defaults = true, opts: { http?: boolean } = {}) {
    if (defaults) collectDefaultMetrics({ register: this.registry, prefix: "vantage_" });
    this.http = opts.http ?? true;
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    this.route(method, route).observe(status, seconds);
  }

  /**
   * The series of one method and route pattern, to keep and observe by status: the core holds one per
   * route it has seen, so a request costs no label string and no lookup by one.
   */
  route(method: string, route: string): RouteSeries {
    const key = `${method} ${route}`;
    let r = this.routes.get(key);
    if (!r) {
      r = new RouteSeries(method, route, (s) => this.series.push(s));
      this.routes.set(key, r);
    }
    return r;
  }

  async text(): Promise<string> {
    if (!this.http) return this.registry.metrics();
    const out: string[] = [
      "# HELP vantage_http_requests_total HTTP requests by method, route and status",
      "# TYPE vantage_http_requests_total counter",
    ];
    for (const s of this.series) out.push(`vantage_http_requests_total{${s.labels}} ${s.count}`);
    out.push(
      "# HELP vantage_http_request_duration_seconds HTTP request latency by method, route and status",
      "# TYPE vantage_http_request_duration_seconds histogram",
    );
    for (const s of this.series) {
      let cumulative = 0;
      buckets.forEach((b, i) => {
        cumulative += s.bucketCounts[i]!;
        out.push(`vantage_http_request_duration_seconds_bucket{${s.labels},le="${b}"} ${cumulative}`);
      });
      out.push(`vantage_http_request_duration_seconds_bucket{${s.labels},le="+Inf"} ${s.count}`);
      out.push(`vantage_http_request_duration_seconds_sum{${s.labels}} ${s.sum}`);
      out.push(`vantage_http_request_duration_seconds_count{${s.labels}} ${s.count}`);
    }
    return `${out.join("\n")}\n${await this.registry.metrics()}`;
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** The series of one method and route pattern, by status. */
export class RouteSeries {
  /** Indexed by status code: a status is a small whole number. */
  private readonly byStatus: (Series | undefined)[] = [];

  constructor(
    private readonly method: string,
    private readonly route: string,
    private readonly added: (s: Series) => void,
  ) {}

  observe(status: number, seconds: number): void {
    let s = this.byStatus[status];
    if (!s) {
      s = {
        labels: `method="${esc(this.method)}",route="${esc(this.route)}",status="${status}"`,
        count: 0,
        sum: 0,
        bucketCounts: buckets.map(() => 0),
      };
      this.byStatus[status] = s;
      this.added(s);
    }
    s.count++;
    s.sum += seconds;
    // One counter per request (the first bucket that holds it); `text()` sums them into Prometheus'
    // cumulative `le` buckets. Latencies above the last bound are counted by `count` (+Inf) alone.
    let i = 0;
    while (i < buckets.length && seconds > buckets[i]!) i++;
    if (i < buckets.length) s.bucketCounts[i]!++;
  }
}

function esc(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"');
}
