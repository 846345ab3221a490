import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";

/** One request the SDK sent: its form body flattened (`line_items[0][price]` → value). */
export interface StripeRequest {
  method: string;
  path: string;
  body: Record<string, string>;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
  stripeVersion: string | undefined;
}

export interface FixtureSubscription {
  id: string;
  customer: string;
  price: string;
  status: string;
  current_period_end: number;
  cancel_at_period_end?: boolean;
  metadata?: Record<string, string>;
}

/**
 * A loopback server playing the parts of the Stripe API that billing calls (customers, Checkout sessions,
 * subscriptions and cancelling one at once, the customer portal, billing meter events), answering in
 * Stripe's shapes, with its own small state. It records every request so tests assert what the SDK sent, replays answers for a repeated
 * `Idempotency-Key` as Stripe does, and drops meter events with an identifier it has seen.
 */
export class StripeFixture {
  readonly requests: StripeRequest[] = [];
  readonly subscriptions = new Map<string, FixtureSubscription>();
  /** Meter events kept (one per identifier), in arrival order. */
  readonly meterEvents: Record<string, string>[] = [];
  /** Paths (`POST /v1/checkout/sessions`) answered with a 500 api_error while listed. */
  readonly failing = new Set<string>();
  private readonly byIdempotencyKey = new Map<string, { status: number; body: unknown }>();
  private readonly identifiers = new Set<string>();
  private seq = 0;
  private server: Server | undefined;
  url = "";

  constructor(readonly secretKey = "sk_test_vantagefixture") {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  /** Requests to `path` (`POST /v1/customers`). */
  sent(route: string): StripeRequest[] {
    return this.requests.filter((r) => `${r.method} ${r.path}` === route);
  }

  private next(prefix: string): string {
    return `${prefix}_fx${(++this.seq).toString().padStart(6, "0")}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? "/", "http://fixture");
    const body = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()));
    const r: StripeRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      body,
      authorization: req.headers.authorization,
      idempotencyKey: req.headers["idempotency-key"] as string | undefined,
      stripeVersion: req.headers["stripe-version"] as string | undefined,
    };
    this.requests.push(r);
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { "content-type": "application/json", "request-id": this.next("req") });
      res.end(JSON.stringify(payload));
    };
    const error = (status: number, type: string, message: string, code?: string) =>
      send(status, { error: { type, message, ...(code ? { code } : {}) } });

    if (r.authorization !== `Bearer ${this.secretKey}`) {
      return error(401, "invalid_request_error", "Invalid API Key provided");
    }
    if (this.failing.has(`${r.method} ${r.path}`))
      return error(500, "api_error", "fixture: failing on purpose");
    const replay =
      r.idempotencyKey && r.method === "POST" ? this.byIdempotencyKey.get(r.idempotencyKey) : undefined;
    if (replay) return send(replay.status, replay.body);
    const answer = this.route(r);
    if (r.idempotencyKey && r.method === "POST") this.byIdempotencyKey.set(r.idempotencyKey, answer);
    send(answer.status, answer.body);
  }

  private route(r: StripeRequest): { status: number; body: unknown } {
    const ok = (body: unknown) => ({ status: 200, body });
    const missing = (what: string) => ({
      status: 404,
      body: {
        error: { type: "invalid_request_error", code: "resource_missing", message: `No such ${what}` },
      },
    });
    const metadata = (prefix: string) =>
      Object.fromEntries(
        Object.entries(r.body)
          .filter(([k]) => k.startsWith(`${prefix}[`))
          .map(([k, v]) => [k.slice(prefix.length + 1, -1), v]),
      );
    const route = `${r.method} ${r.path}`;
    if (route === "POST /v1/customers") {
      return ok({
        id: this.next("cus"),
        object: "customer",
        email: r.body.email,
        metadata: metadata("metadata"),
      });
    }
    if (route === "POST /v1/checkout/sessions") {
      const id = this.next("cs_test");
      return ok({
        id,
        object: "checkout.session",
        mode: r.body.mode,
        customer: r.body.customer,
        client_reference_id: r.body.client_reference_id ?? null,
        metadata: metadata("metadata"),
        url: `https://checkout.stripe.com/c/pay/${id}`,
        expires_at: Math.floor(Date.now() / 1000) + 86_400,
      });
    }
    if (route === "POST /v1/billing_portal/sessions") {
      const id = this.next("bps");
      return ok({
        id,
        object: "billing_portal.session",
        customer: r.body.customer,
        url: `https://billing.stripe.com/p/session/${id}`,
      });
    }
    if (route === "POST /v1/billing/meter_events") {
      const identifier = r.body.identifier ?? this.next("mev");
      if (!this.identifiers.has(identifier)) {
        this.identifiers.add(identifier);
        this.meterEvents.push(r.body);
      }
      return ok({
        object: "billing.meter_event",
        event_name: r.body.event_name,
        identifier,
        timestamp: Number(r.body.timestamp),
        payload: {
          stripe_customer_id: r.body["payload[stripe_customer_id]"],
          value: r.body["payload[value]"],
        },
      });
    }
    const sub = /^\/v1\/subscriptions\/([^/]+)$/.exec(r.path);
    if (sub) {
      const s = this.subscriptions.get(sub[1]!);
      if (!s) return missing(`subscription: '${sub[1]}'`);
      // Cancelling now (Stripe's DELETE): the subscription ends at once; a second time, Stripe refuses.
      if (r.method === "DELETE") {
        if (s.status === "canceled") {
          return {
            status: 400,
            body: { error: { type: "invalid_request_error", message: "fixture: already canceled" } },
          };
        }
        s.status = "canceled";
      }
      if (r.method === "POST" && r.body.cancel_at_period_end !== undefined) {
        s.cancel_at_period_end = r.body.cancel_at_period_end === "true";
      }
      return ok(subscriptionObject(s));
    }
    return missing(`route: ${route}`);
  }
}

/** A subscription in Stripe's shape (API 2025+: the period sits on its items). */
export function subscriptionObject(s: FixtureSubscription) {
  return {
    id: s.id,
    object: "subscription",
    customer: s.customer,
    status: s.status,
    cancel_at_period_end: s.cancel_at_period_end ?? false,
    metadata: s.metadata ?? {},
    items: {
      object: "list",
      data: [
        {
          id: `si_${s.id.slice(4)}`,
          object: "subscription_item",
          current_period_start: s.current_period_end - 30 * 86_400,
          current_period_end: s.current_period_end,
          price: { id: s.price, object: "price" },
        },
      ],
    },
  };
}

/** An invoice in Stripe's shape (API 2025+: the subscription sits under `parent`). */
export function invoiceObject(i: {
  id: string;
  customer: string;
  subscription?: string;
  status: "paid" | "open" | "void" | "uncollectible" | "draft";
  amount: number;
  currency?: string;
  created?: number;
}) {
  return {
    id: i.id,
    object: "invoice",
    customer: i.customer,
    status: i.status,
    amount_due: i.amount,
    amount_paid: i.status === "paid" ? i.amount : 0,
    currency: i.currency ?? "usd",
    created: i.created ?? Math.floor(Date.now() / 1000),
    hosted_invoice_url: `https://invoice.stripe.com/i/${i.id}`,
    metadata: {},
    parent: i.subscription
      ? { type: "subscription_details", subscription_details: { subscription: i.subscription, metadata: {} } }
      : null,
  };
}

/** A Stripe event around `object`. */
export function stripeEvent(
  type: string,
  object: unknown,
  id = `evt_${Math.random().toString(36).slice(2, 14)}`,
) {
  return {
    id,
    object: "event",
    type,
    api_version: Stripe.API_VERSION,
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    data: { object },
  };
}

/** The body and `Stripe-Signature` of a webhook delivery, signed as Stripe does (the SDK's test helper). */
export function signedDelivery(event: unknown, secret: string, timestamp = Math.floor(Date.now() / 1000)) {
  const payload = JSON.stringify(event);
  const header = Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
  return { payload, headers: { "content-type": "application/json", "stripe-signature": header } };
}
