import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../../http/context.js";
import { securedRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import type { ApiForm } from "../../../http/security.js";
import { alertChannels, channelTypes } from "../channels/registry.js";
import type { TestSends } from "../test-sends.js";
import type { AlertsService } from "../types.js";
import { registerCreateChannel } from "./create-channel.js";
import { registerCreatePolicy } from "./create-policy.js";
import { registerDeleteChannel } from "./delete-channel.js";
import { registerDeletePolicy } from "./delete-policy.js";
import { registerGetChannel } from "./get-channel.js";
import { registerGetEvent } from "./get-event.js";
import { registerGetPolicy } from "./get-policy.js";
import { registerListChannels } from "./list-channels.js";
import { registerListEvents } from "./list-events.js";
import { registerListPolicies } from "./list-policies.js";
import { registerTestChannel } from "./test-channel.js";
import { registerUpdateChannel } from "./update-channel.js";
import { registerUpdatePolicy } from "./update-policy.js";

/**
 * The alerts routes of the active form: channels (CRUD and test), policies (CRUD), events (list, one).
 * `auth` is `requireAuth(authenticator)`: the read scope for GET, the write scope for the rest.
 */
export function registerAlertRoutes(
  app: Router,
  api: AlertsService,
  auth: MiddlewareHandler<AppEnv>,
  form: ApiForm,
  testSends: TestSends,
): void {
  const common = securedRoute("alerts", form, auth);
  registerListChannels(app, api, common);
  registerCreateChannel(app, api, common);
  registerGetChannel(app, api, common);
  registerUpdateChannel(app, api, common);
  registerDeleteChannel(app, api, common);
  registerTestChannel(app, api, common, testSends);
  registerListPolicies(app, api, common);
  registerCreatePolicy(app, api, common);
  registerGetPolicy(app, api, common);
  registerUpdatePolicy(app, api, common);
  registerDeletePolicy(app, api, common);
  registerListEvents(app, api, common);
  registerGetEvent(app, api, common);
  // Each type's settings as a schema of their own, for the reader of `config` (checked by the service).
  for (const type of channelTypes) {
    const { configSchema, secretFields } = alertChannels[type];
    const secret =
      secretFields.length > 0 ? `secret (answered as \`********\`): ${secretFields.join(", ")}` : "no secret";
    const name = `AlertChannelConfig${type[0]!.toUpperCase()}${type.slice(1)}`;
    app.openAPIRegistry.register(
      name,
      configSchema.openapi({ description: `\`config\` of ${type} channels; ${secret}` }),
    );
  }
}
