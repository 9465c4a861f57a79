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
  /**
   * Who checks identities: Sumsub when its token and key are set (and IDENTITY_PROVIDER is not
   * "sandbox"), else the built-in sandbox, which a real deployment must ask for by name (decision 023).
   */
  identityProvider: "sumsub" | "sandbox";
  /** Sumsub credentials; null while the sandbox provider stands in. */
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
  /** Where customers write to us (SUPPORT_EMAIL), named in the emails and pages that refuse them something. */
  supportEmail: string;
  /**
   * Receipts worth more than this many pounds (at the current rates) wait for a second
   * administrator's approval (RECEIPT_APPROVAL_GBP, 50000; docs/decisions/026).
   */
  receiptApprovalGbp: number;
  /**
   * Payments worth more than this many pounds (at the current rates) raise a console alert for a
   * second look (ALERT_PAYMENT_GBP, 10000; decision 045).
   */
  alertPaymentGbp: number;
  /**
   * The COMPANY_BANK_* settings as given (server/money/funding.ts reads them): the payout desk's
   * SEPA files name this account as the debtor (server/bank-files/debtor.ts).
   */
  companyBank: Record<string, string | undefined>;
  /** Background jobs this process runs at once (JOB_CONCURRENCY, 2; server/jobs/). */
  jobConcurrency: number;
  /**
   * main.ts applies the committed migrations when it starts (MIGRATE_ON_START, on by default: one
   * machine). Off ("0", "false", "no") where a release migrates once with `deno task db:migrate`
   * before its instances start (decision 043); deploy.ts never migrates.
   */
  migrateOnStart: boolean;
  /**
   * The bearer token GET /metrics asks for (METRICS_TOKEN); unset: /metrics does not exist
   * (decision 041).
   */
  metricsToken?: string;
  /** Bulk emails are sent at most this many a second (BULK_EMAIL_RATE, 50; decision 050). */
  bulkEmailRate?: number;
  /**
   * Tests and benchmarks only (TEST_MAIL_OUTBOX): the directory where the mail as sent is kept
   * (server/mail/outbox.ts), sign-in codes and links included, so that a harness signs in as a
   * person would. `deploymentCheck` refuses it anywhere but a developer's machine.
   */
  testMailOutbox?: string;
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Config {
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
    // MAIL=database keeps mail in the database even where SMTP_URL is set (a staging copy).
    smtpUrl: env.MAIL === "database" ? undefined : env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || "Portal <no-reply@portal.localhost>",
    identityProvider: sumsubKeysSet(env) && env.IDENTITY_PROVIDER !== "sandbox" ? "sumsub" : "sandbox",
    sumsub: env.SUMSUB_APP_TOKEN && env.SUMSUB_SECRET_KEY && env.IDENTITY_PROVIDER !== "sandbox"
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
    supportEmail: env.SUPPORT_EMAIL || defaultSupportEmail(env.PUBLIC_URL),
    receiptApprovalGbp: positiveNumber(env.RECEIPT_APPROVAL_GBP, 50_000, "RECEIPT_APPROVAL_GBP"),
    alertPaymentGbp: positiveNumber(env.ALERT_PAYMENT_GBP, 10_000, "ALERT_PAYMENT_GBP"),
    companyBank: Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith("COMPANY_BANK_"))),
    jobConcurrency: Math.floor(positiveNumber(env.JOB_CONCURRENCY, 2, "JOB_CONCURRENCY")),
    migrateOnStart: !["0", "false", "no", "off"].includes((env.MIGRATE_ON_START ?? "").trim().toLowerCase()),
    metricsToken: env.METRICS_TOKEN || undefined,
    bulkEmailRate: Math.floor(positiveNumber(env.BULK_EMAIL_RATE, 50, "BULK_EMAIL_RATE")),
    testMailOutbox: env.TEST_MAIL_OUTBOX || undefined,
  };
}

/**
 * Where customers write to us when SUPPORT_EMAIL is not set: support@ the portal's own host, the
 * address a customer would guess (support@portal.localhost on a developer's machine).
 */
function defaultSupportEmail(publicUrl: string | undefined): string {
  const host = publicUrl && !isLocalAddress(publicUrl) ? new URL(publicUrl).hostname : null;
  return `support@${host ? host.replace(/^www\./, "") : "portal.localhost"}`;
}

function positiveNumber(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${value}"`);
  return n;
}

const sumsubKeysSet = (env: Env) => !!(env.SUMSUB_APP_TOKEN && env.SUMSUB_SECRET_KEY);

/** The company bank account customers are told to pay into (server/money/funding.ts reads them). */
export const COMPANY_BANK_SETTINGS = [
  "COMPANY_BANK_NAME",
  "COMPANY_BANK_ACCOUNT_NAME",
  "COMPANY_BANK_IBAN",
  "COMPANY_BANK_BIC",
  "COMPANY_BANK_SORT_CODE",
  "COMPANY_BANK_ACCOUNT_NUMBER",
] as const;

/**
 * Whether an address is a developer's own machine: localhost, 127.0.0.1, ::1 or a *.localhost
 * name (which browsers and resolvers keep on the machine, RFC 6761).
 */
export function isLocalAddress(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]" || host.endsWith(".localhost");
}

/**
 * What the environment says about the test defaults a real deployment must not keep (issue 14,
 * finding 1; decision 023): the sandbox identity provider, the built-in test bank details, and mail
 * kept only in the database. Pure, from the environment alone. `errors`: the server must not start
 * (a public PUBLIC_URL without the real setting or an explicit choice of the test default).
 * `warnings`: a test default is on, which the start-up log says loudly.
 */
export function deploymentCheck(env: Env): { errors: string[]; warnings: string[] } {
  const errors: string[] = [];
  const warnings: string[] = [];
  const port = env.PORT || "8000";
  const publicUrl = env.PUBLIC_URL || `http://localhost:${port}`;
  const local = isLocalAddress(publicUrl);
  const where = `PUBLIC_URL is ${publicUrl}, which is not a developer's machine`;

  // As loadConfig decides it. Outside production the portal is built for a developer or a test
  // harness: cookies without Secure, /dev/api listing every call, and under test every email kept
  // as a file beside the database, sign-in codes and reset links included.
  const appEnv = env.APP_ENV || (env.NODE_ENV === "production" ? "production" : "development");
  if (!local && appEnv !== "production") {
    errors.push(
      `APP_ENV is ${appEnv}: ${where}. Outside production, sign-in cookies are sent without Secure, ` +
        "/dev/api lists every call, and under test every email is kept as a file beside the database. " +
        "Set APP_ENV=production (`deno task start` does).",
    );
  }

  const provider = env.IDENTITY_PROVIDER || undefined;
  if (provider !== undefined && provider !== "sumsub" && provider !== "sandbox") {
    errors.push(`IDENTITY_PROVIDER must be sumsub or sandbox, got "${provider}".`);
  } else if (provider === "sumsub" && !sumsubKeysSet(env)) {
    errors.push("IDENTITY_PROVIDER=sumsub needs SUMSUB_APP_TOKEN and SUMSUB_SECRET_KEY.");
  } else if (sumsubKeysSet(env) && provider !== "sandbox" && !env.SUMSUB_WEBHOOK_SECRET) {
    // Fails closed (the webhook answers 404), but decisions then reach a customer only when they
    // come back to the portal: the operator should know why.
    warnings.push(
      "SUMSUB_WEBHOOK_SECRET is not set: Sumsub's webhook is refused, and an identity check's result is " +
        "read only when the customer comes back to the portal. Set it to the webhook's secret.",
    );
  } else if (provider === "sandbox" || !sumsubKeysSet(env)) {
    if (!local && provider !== "sandbox") {
      errors.push(
        `Identity checks: ${where}, and SUMSUB_APP_TOKEN and SUMSUB_SECRET_KEY are not set. The built-in ` +
          "sandbox would let every customer approve their own identity check. Set the Sumsub settings, or " +
          "IDENTITY_PROVIDER=sandbox to run the sandbox on purpose (a test deployment).",
      );
    } else {
      warnings.push(
        "The SANDBOX identity provider is on: nobody checks identities, every customer can approve their own " +
          "check, and the identity screen says it is a test check. Set SUMSUB_APP_TOKEN and SUMSUB_SECRET_KEY " +
          "for real checks.",
      );
    }
  }

  if (env.TEST_MAIL_OUTBOX && !local) {
    errors.push(
      `TEST_MAIL_OUTBOX keeps every email as sent, sign-in codes and links included: ${where}. ` +
        "It is for tests and benchmarks on a developer's machine: unset it.",
    );
  }

  const unsetBank = COMPANY_BANK_SETTINGS.filter((name) => !env[name]);
  const allowTestBank = env.ALLOW_TEST_BANK_DETAILS === "1" || env.ALLOW_TEST_BANK_DETAILS === "true";
  if (unsetBank.length > 0) {
    if (!local && !allowTestBank) {
      errors.push(
        `Bank details: ${where}, and ${unsetBank.join(", ")} ${unsetBank.length === 1 ? "is" : "are"} not set: ` +
          "customers would be told to pay into the built-in test account. Set the company's bank account, or " +
          "ALLOW_TEST_BANK_DETAILS=1 to show the test details on purpose (a test deployment).",
      );
    } else {
      warnings.push(
        `The built-in TEST bank details are shown to customers (${unsetBank.join(", ")} not set): nobody can ` +
          "fund an account with them. Set COMPANY_BANK_* to the company's bank account.",
      );
    }
  }

  const mail = env.MAIL || undefined;
  if (mail !== undefined && mail !== "smtp" && mail !== "database") {
    errors.push(`MAIL must be smtp or database, got "${mail}".`);
  } else if (mail === "smtp" && !env.SMTP_URL) {
    errors.push("MAIL=smtp needs SMTP_URL.");
  } else if (mail === "database" || !env.SMTP_URL) {
    if (!local && mail !== "database") {
      errors.push(
        `Mail: ${where}, and SMTP_URL is not set: emails (codes, links, notices) would be kept in the ` +
          "database and reach nobody. Set SMTP_URL, or MAIL=database to keep mail in the database on purpose.",
      );
    } else {
      warnings.push("Mail is kept in the database only, and nobody receives it. Set SMTP_URL to send it.");
    }
  }
  return { errors, warnings };
}
