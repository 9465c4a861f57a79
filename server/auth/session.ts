import { eq } from "drizzle-orm";
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie } from "hono/cookie";
import type { Database } from "../../db/client.ts";
import { users } from "../../db/schema.ts";
import type { AppEnv } from "../env.ts";
import type { SessionUser } from "./session-user.ts";
import { userWithSummary } from "./users.ts";

/** Finds the signed-in user of a request. */
export type SessionResolver = (c: Context<AppEnv>) => Promise<SessionUser | null>;

/** The database sessions (server/auth/sessions.ts): the cookie's session, its user and summary. */
export const databaseSessions: SessionResolver = async (c) => {
  const session = await c.get("services").sessions.current(c);
  c.set("session", session);
  if (!session) return null;
  return (await userWithSummary(c.get("db"), session.userId, session.secondFactor))?.summary ?? null;
};

/**
 * Puts the signed-in user (or null) on the request for guards and handlers, and, for an
 * administrator acting on behalf of a customer, that customer.
 */
export function sessionLayer(resolve: SessionResolver): MiddlewareHandler<AppEnv> {
  return async function session(c, next) {
    const user = await resolve(c);
    c.set("user", user);
    // Acting on behalf starts only once the administrator has passed the second factor.
    c.set("onBehalf", user?.level === "Admin" && user.secondFactor ? await onBehalfOf(c.get("db"), user.id) : null);
    await next();
    // Any 401 clears the session (SPEC.md section 8): the client forgets its user on a 401
    // (islands/lib/api.ts), so the server ends the session too and the next page agrees with it
    // (no "Sign out" beside the Sign in form). A wrong code is not a 401 (decision 039).
    const session = c.get("session");
    if (c.res.status === 401 && session) {
      await c.get("services").sessions.end(c, session);
      deleteCookie(c, "user", { path: "/" });
    }
  };
}

/** The customer an administrator acts for, if any (never another administrator). */
async function onBehalfOf(db: Database, adminId: number): Promise<SessionUser | null> {
  const [admin] = await db.select({ onBehalfOf: users.onBehalfOf }).from(users).where(eq(users.id, adminId));
  if (!admin?.onBehalfOf) return null;
  const customer = await userWithSummary(db, admin.onBehalfOf, true);
  return customer && customer.user.level !== "Admin" ? customer.summary : null;
}
