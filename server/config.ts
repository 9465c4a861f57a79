import process from "node:process";

/** Runtime configuration, read once from the environment; every setting has a working default. */
export interface Config {
  port: number;
  databaseUrl: string;
  databaseAuthToken: string | undefined;
  publicUrl: string;
  appEnv: "development" | "production" | "test";
  /** Where the Vite build lives (manifest and assets). */
  distDir: string;
  /** SMTP server for outgoing mail (smtp://user:pass@host:port); unset: mail is kept in the database. */
  smtpUrl: string | undefined;
  /** The From address of outgoing mail. */
  mailFrom: string;
  /** Sumsub credentials; without the token and key the built-in sandbox provider stands in. */
  sumsub:
    | { appToken: string; secretKey: string; webhookSecret: string | undefined; baseUrl: string; levelName: string }
    | null;
  /**
   * The key that encrypts secrets at rest (authenticator-app secrets). APP_SECRET; without it a
   * random key is generated once into data/app-secret (fine for one machine, not for several).
   */
  appSecret: string | undefined;
  /** Behind a reverse proxy we run: believe its X-Forwarded-For for the client's address. */
  trustProxy: boolean;
  /** How long a conversion quote holds (QUOTE_VALIDITY_SECONDS, 30). */
  quoteValiditySeconds: number;
  /** ECB daily reference-rate XML to read on a schedule (RATES_URL); unset: rates change only by hand. */
  ratesUrl: string | undefined;
  /**
   * The COMPANY_BANK_* settings as given (server/money/funding.ts reads them): the payout desk's
   * SEPA files name this account as the debtor (server/bank-files/debtor.ts).
   */
  companyBank: Record<string, string | undefined>;
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const port = Number(env.PORT ?? 8000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be a port number, got "${env.PORT}"`);
  }
  const appEnv = env.APP_ENV || (env.NODE_ENV === "production" ? "production" : "development");
  if (appEnv !== "development" && appEnv !== "production" && appEnv !== "test") {
    throw new Error(`APP_ENV must be development, production or test, got "${appEnv}"`);
  }
  return {
    port,
    databaseUrl: env.DATABASE_URL || "file:data/portal.db",
    databaseAuthToken: env.DATABASE_AUTH_TOKEN || undefined,
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/$/, ""),
    appEnv,
    distDir: env.DIST_DIR || "dist",
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || "Portal <no-reply@portal.localhost>",
    sumsub: env.SUMSUB_APP_TOKEN && env.SUMSUB_SECRET_KEY
      ? {
        appToken: env.SUMSUB_APP_TOKEN,
        secretKey: env.SUMSUB_SECRET_KEY,
        webhookSecret: env.SUMSUB_WEBHOOK_SECRET || undefined,
        baseUrl: (env.SUMSUB_BASE_URL || "https://api.sumsub.com").replace(/\/$/, ""),
        levelName: env.SUMSUB_LEVEL_NAME || "basic-kyc-level",
      }
      : null,
    appSecret: env.APP_SECRET || undefined,
    trustProxy: env.TRUST_PROXY === "1" || env.TRUST_PROXY === "true",
    quoteValiditySeconds: positiveNumber(env.QUOTE_VALIDITY_SECONDS, 30, "QUOTE_VALIDITY_SECONDS"),
    ratesUrl: env.RATES_URL || undefined,
    companyBank: Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith("COMPANY_BANK_"))),
  };
}

function positiveNumber(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${value}"`);
  return n;
}
