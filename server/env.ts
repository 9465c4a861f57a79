import type { SecureHeadersVariables } from "hono/secure-headers";
import type { Database } from "../db/client.ts";
import type { SessionUser } from "./auth/session-user.ts";
import type { Config } from "./config.ts";
import type { Assets } from "./render/assets.ts";

/** What every request handler can read from `c.var`. */
export interface AppEnv {
  Variables: SecureHeadersVariables & {
    db: Database;
    config: Config;
    assets: Assets;
    /** The signed-in user, or null for a visitor. */
    user: SessionUser | null;
  };
}
