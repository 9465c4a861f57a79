import type { SecureHeadersVariables } from "hono/secure-headers";
import type { Database } from "../db/client.ts";
import type { SessionUser } from "./auth/session-user.ts";
import type { Config } from "./config.ts";
import type { IdempotencyClaim } from "./http/idempotency.ts";
import type { SessionRow } from "./auth/sessions.ts";
import type { Assets } from "./render/assets.ts";
import type { CacheLookup } from "./render/page-cache.ts";
import type { Services } from "./services.ts";

/**
 * What every request handler can read from `c.var`. The composition root's `context` middleware
 * (createApp in app.ts) sets the app's parts and starts every request as a visitor's; the session
 * layer (server/auth/session.ts) then sets who it is, and securityHeaders the script nonce.
 */
export interface AppEnv {
  Variables: SecureHeadersVariables & {
    /** The app's parts, the same for every request. */
    db: Database;
    config: Config;
    assets: Assets;
    services: Services;
    /** The signed-in user, or null for a visitor. */
    user: SessionUser | null;
    /** This request's session, when it has one. */
    session: SessionRow | null;
    /** For an administrator acting on behalf of a customer: that customer. */
    onBehalf: SessionUser | null;
    /** The request's claim on its Idempotency-Key, when it carries one (server/http/idempotency.ts). */
    idempotency: IdempotencyClaim | null;
    /** A public page kept for every visitor, being answered (server/render/page-cache.ts): no nonce on it. */
    publicPage?: CacheLookup;
    /** This request's id: on its log lines, its answer (X-Request-Id) and its error answers (decision 041). */
    requestId: string;
  };
}
