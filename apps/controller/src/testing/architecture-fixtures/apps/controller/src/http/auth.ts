// Breaks http-lib-db-import-no-module: the HTTP layer imports a module's file.
import type { Secret } from "../modules/x/secret.js";

export type AuthSecret = Secret;
