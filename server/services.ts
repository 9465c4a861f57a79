import type { SecretBox } from "./auth/encryption.ts";
import type { RateLimiter } from "./auth/rate-limit.ts";
import type { SessionStore } from "./auth/sessions.ts";
import type { Verifications } from "./auth/verification.ts";
import type { IdentityProvider } from "./identity/provider.ts";
import type { Mailer } from "./mail/index.ts";
import type { EmailOutbox } from "./notifications/email-outbox.ts";

/**
 * The stateful parts every handler may need (`c.get("services")`). The composition root builds them
 * once per app from the database and the configuration (createServices in app.ts); tests build them
 * with their own clock or mail transport.
 */
export interface Services {
  sessions: SessionStore;
  verifications: Verifications;
  limiter: RateLimiter;
  mailer: Mailer;
  /** The emails that follow in-app notifications, sent after their commit (main.ts starts it). */
  emailOutbox: EmailOutbox;
  identity: IdentityProvider;
  secretBox: SecretBox;
  now: () => number;
}
