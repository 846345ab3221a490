import { collectDefaultMetrics, Registry } from "prom-client";

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
 * cost a quarter of the throughput of a small route; process metrics still come from prom-client.
 */
export class HttpMetrics {
  readonly registry = new Registry();
  private readonly series = new Map<string, Series>();

  constructor(defaults = true) {
    if (defaults) collectDefaultMetrics({ register: this.registry, prefix: "vantage_" });
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let s = this.series.get(key);
    if (!s) {
      s = {
        labels: `method="${esc(method)}",route="${esc(route)}",status="${status}"`,
        count: 0,
        sum: 0,
        bucketCounts: buckets.map(() => 0),
      };
      this.series.set(key, s);
    }
    s.count++;
    s.sum += seconds;
    // One counter per request (the first bucket that holds it); `text()` sums them into Prometheus'
    // cumulative `le` buckets. Latencies above the last bound are counted by `count` (+Inf) alone.
    let i = 0;
    while (i < buckets.length && seconds > buckets[i]!) i++;
    if (i < buckets.length) s.bucketCounts[i]!++;
  }

  async text(): Promise<string> {
    const out: string[] = [
      "# HELP vantage_http_requests_total HTTP requests by method, route and status",
      "# TYPE vantage_http_requests_total counter",
    ];
    for (const s of this.series.values()) out.push(`vantage_http_requests_total{${s.labels}} ${s.count}`);
    out.push(
      "# HELP vantage_http_request_duration_seconds HTTP request latency by method, route and status",
      "# TYPE vantage_http_request_duration_seconds histogram",
    );
    for (const s of this.series.values()) {
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

function esc(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"');
}
