import type { Database } from "../../db/client.ts";
import type { Mailer } from "../mail/index.ts";
import type { SecretBox } from "./encryption.ts";
import type { RateLimiter } from "./rate-limit.ts";
import type { SessionStore } from "./sessions.ts";
import type { Verifications } from "./verification.ts";

/** What the sign-in services work with: plain values, never a request. */
export interface SignInDeps {
  db: Database;
  limiter: RateLimiter;
  verifications: Verifications;
  mailer: Mailer;
  /** For ending every session of a user; starting one (a cookie) is the route's. */
  sessions: SessionStore;
  secretBox: SecretBox;
  /** The portal's address, for the links in emails. */
  publicUrl: string;
  /** Where customers write to us (SUPPORT_EMAIL), named in the emails that tell of a change they may not have made. */
  supportEmail: string;
  now: () => number;
}
