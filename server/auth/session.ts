import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";
import type { SessionUser } from "./session-user.ts";

/**
 * Finds the signed-in user of a request. The database-backed sessions of the sign-in work plug in
 * here; until then no request carries a session, so every visitor is anonymous.
 */
export type SessionResolver = (c: Context<AppEnv>) => Promise<SessionUser | null>;

export const noSessions: SessionResolver = () => Promise.resolve(null);

/** Puts the signed-in user (or null) on the request for guards and handlers. */
export function sessionLayer(resolve: SessionResolver): MiddlewareHandler<AppEnv> {
  return async function session(c, next) {
    c.set("user", await resolve(c));
    await next();
  };
}
