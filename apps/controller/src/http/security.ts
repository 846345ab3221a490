import type { Router } from "./router.js";

export type ApiForm = "a" | "b";

/** Registers the credential schemes of the active form in the OpenAPI document. */
export function registerSecuritySchemes(app: Router, form: ApiForm): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description:
      form === "a"
        ? "A JWT from login/register, an API key (`sk_live_…`) or a personal access token (`vantage_pat_…`)."
        : "A JWT from login/register or an API key (`vantage_live_…`).",
  });
  if (form === "b") {
    app.openAPIRegistry.registerComponent("securitySchemes", "apiKeyAuth", {
      type: "apiKey",
      in: "header",
      name: "X-API-Key",
      description: "An API key (`vantage_live_…`).",
    });
  }
}

/** The `security` entry of an `auth` route for the active form. */
export function authSecurity(form: ApiForm): Record<string, string[]>[] {
  return form === "a" ? [{ bearerAuth: [] }] : [{ bearerAuth: [] }, { apiKeyAuth: [] }];
}

/** The `security` entry of a public route that also takes the form's credentials (`{}`: none needed). */
export function optionalAuthSecurity(form: ApiForm): Record<string, string[]>[] {
  return [{}, ...authSecurity(form)];
}
