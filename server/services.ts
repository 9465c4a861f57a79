import type { Database } from "../db/client.ts";
import { appSecret, SecretBox } from "./auth/encryption.ts";
import { RateLimiter } from "./auth/rate-limit.ts";
import { SessionStore } from "./auth/sessions.ts";
import { Verifications } from "./auth/verification.ts";
import type { Config } from "./config.ts";
import { identityProvider } from "./identity/index.ts";
import type { IdentityProvider } from "./identity/provider.ts";
import { createMailer, type Mailer, type MailTransport } from "./mail/index.ts";
import { EmailOutbox } from "./notifications/email-outbox.ts";
import { PageCache } from "./render/page-cache.ts";

/**
 * The stateful parts every handler may need, built once per app from the database and the
 * configuration. Tests build the app with their own clock or mail transport through the options.
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
  /** Rendered public pages (cleared when what they show changes, e.g. the rates). */
  pageCache: PageCache;
  now: () => number;
}

export interface ServiceOptions {
  now?: () => number;
  mailTransport?: MailTransport;
  identity?: IdentityProvider;
  secretFile?: string;
}

export async function createServices(db: Database, config: Config, options: ServiceOptions = {}): Promise<Services> {
  const now = options.now ?? (() => Date.now());
  const mailer = createMailer({ db, config, transport: options.mailTransport });
  return {
    sessions: new SessionStore(db, { secureCookies: config.appEnv === "production" }, now),
    verifications: new Verifications(db, now),
    limiter: new RateLimiter(db, now),
    mailer,
    emailOutbox: new EmailOutbox(db, mailer, { publicUrl: config.publicUrl, now }),
    identity: options.identity ?? identityProvider(config, db),
    secretBox: await SecretBox.fromSecret(appSecret(config.appSecret, options.secretFile)),
    pageCache: new PageCache(),
    now,
  };
}
