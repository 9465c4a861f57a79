import type { MiddlewareHandler } from "hono";
import { may, type Permission } from "../../lib/permissions.ts";
import type { AppEnv } from "../env.ts";
import { Refused } from "../errors.ts";
import { currentAccount } from "./current.ts";

/**
 * Refuses a call that the customer's role on the current account does not allow (403). Runs after
 * the guards, so the customer is signed in and has an account.
 */
export function allowedTo(permission: Permission): MiddlewareHandler<AppEnv> {
  const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
    const { role } = await currentAccount(c);
    if (!may(role, permission)) throw new Refused("Your role on this account does not allow this.");
    await next();
  };
  Object.defineProperty(middleware, "name", { value: `permission:${permission}` });
  return middleware;
}
