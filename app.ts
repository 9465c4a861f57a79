/**
 * The composition root: the whole portal as one Hono app, put together from the server's machinery
 * (server/), the pages and calls (routes/) and the services built on the database. It is the one
 * module that knows all of them: server/ never imports routes/ or islands/ (tests/unit/boundaries
 * holds that line), so the wiring lives here, beside main.ts, which serves it. Tests build the
 * same app on their own database (tests/helpers/app.ts) and call it with app.request().
 */
import { Hono } from "hono";
import { serveStatic } from "hono/deno";
import type { Database } from "./db/client.ts";
import { accountUsers } from "./routes/api/account-users.ts";
import { admin } from "./routes/api/admin.ts";
import { consoleAdmins } from "./routes/api/console-admins.ts";
import { auth } from "./routes/api/auth.ts";
import { consoleMoney } from "./routes/api/console-money.ts";
import { consoleAlertCalls } from "./routes/api/console-alerts.ts";
import { health } from "./routes/api/health.ts";
import { jobCalls } from "./routes/api/jobs.ts";
import { openApiCalls } from "./routes/api/openapi.ts";
import { apiBrowser } from "./routes/api-browser.ts";
import { moneyCalls } from "./routes/api/money.ts";
import { onboarding } from "./routes/api/onboarding.ts";
import { paymentCalls } from "./routes/api/payments.ts";
import { payoutCalls } from "./routes/api/payouts.ts";
import { rateAlertCalls } from "./routes/api/ratealerts.ts";
import { recipientCalls } from "./routes/api/recipients.ts";
import { transactionCalls } from "./routes/api/transactions.ts";
import { profitCalls } from "./routes/api/profit.ts";
import { partnerCalls } from "./routes/api/partners.ts";
import { security } from "./routes/api/security.ts";
import { statementCalls } from "./routes/api/statements.ts";
import { migrationCalls } from "./routes/api/migrations.ts";
import { bulkEmailCalls } from "./routes/api/bulkemails.ts";
import { PAGES, registerPages } from "./routes/pages.tsx";
import { registerEmailFrame } from "./routes/pages/console-alerts.tsx";
import { registerBulkEmailFrame, registerOneClickUnsubscribe } from "./routes/pages/console-bulkemails.tsx";
import { ErrorPage } from "./routes/pages/ErrorPage.tsx";
import { siteFiles } from "./routes/static.ts";
import { auditOnBehalf } from "./server/audit.ts";
import { appSecret, SecretBox } from "./server/auth/encryption.ts";
import { RateLimiter } from "./server/auth/rate-limit.ts";
import { sessionLayer, type SessionResolver } from "./server/auth/session.ts";
import { cachedSessions } from "./server/auth/session-cache.ts";
import { SessionStore } from "./server/auth/sessions.ts";
import { Verifications } from "./server/auth/verification.ts";
import type { Config } from "./server/config.ts";
import { DataVersions, recheckAfterWrites } from "./server/data-versions.ts";
import type { AppEnv } from "./server/env.ts";
import { bodyLimits } from "./server/http/body-limit.ts";
import { errorHandlers } from "./server/http/errors.tsx";
import { noStoreWhenPersonal } from "./server/http/cache-control.ts";
import { compression } from "./server/http/compression.ts";
import { idempotency } from "./server/http/idempotency.ts";
import { requestLog } from "./server/http/request-log.ts";
import { Draining } from "./server/http/draining.ts";
import { HttpMetrics } from "./server/metrics.ts";
import { metricsEndpoint } from "./routes/metrics.ts";
import { followRedirects, RedirectTable } from "./server/http/redirects.ts";
import { REGISTERED_CALLS } from "./server/http/route.ts";
import {
  emailFrameAllowances,
  identityProviderAllowances,
  sameOriginOnly,
  securityHeaders,
} from "./server/http/security.ts";
import { identityProvider } from "./server/identity/index.ts";
import { purgeJob, purgeSchedule } from "./server/jobs/housekeeping.ts";
import { JobRunner } from "./server/jobs/runner.ts";
import { Scheduler } from "./server/jobs/schedules.ts";
import { unmatchedReceiptsJob, unmatchedReceiptsSchedule } from "./server/alerts/triggers.ts";
import { rateFeedJob, rateFeedSchedule } from "./server/money/rate-feed-job.ts";
import { rateAlertCheckJob } from "./server/ratealerts/check.ts";
import { expireStatementsJob, expireStatementsSchedule, statementJob } from "./server/statements/job.ts";
import { migrationJob } from "./server/migrations/job.ts";
import { bulkEmailJob } from "./server/bulkemails/job.ts";
import type { IdentityProvider } from "./server/identity/provider.ts";
import { createMailer, type MailTransport } from "./server/mail/index.ts";
import { type Outbox, outboxBeside, testOutbox } from "./server/mail/outbox.ts";
import { EmailOutbox } from "./server/notifications/email-outbox.ts";
import type { Assets } from "./server/render/assets.ts";
import { keepPublicPageAnswers, PageCache } from "./server/render/page-cache.ts";
import { answerKeptPagesFirst } from "./server/http/front-door.ts";
import type { Services } from "./server/services.ts";

export interface ServiceOptions {
  now?: () => number;
  mailTransport?: MailTransport;
  /** Where a test reads the mail as sent (server/mail/outbox.ts); APP_ENV=test has one by default. */
  mailOutbox?: Outbox;
  identity?: IdentityProvider;
  secretFile?: string;
}

/** A test server's outbox, beside its database file (none for a database elsewhere). */
const outboxOf = (databaseUrl: string) =>
  databaseUrl.startsWith("file:") && !databaseUrl.includes(":memory:")
    ? outboxBeside(databaseUrl.slice("file:".length))
    : undefined;

/**
 * The services every handler may use (server/services.ts), built once per app from the database
 * and the configuration. Tests build them with their own clock or mail transport.
 */
export async function createServices(db: Database, config: Config, options: ServiceOptions = {}): Promise<Services> {
  const now = options.now ?? (() => Date.now());
  // Tests read links and codes from the mail as sent: the stored copy has them taken out (decision
  // 057). Tests always keep it; elsewhere only TEST_MAIL_OUTBOX does (a benchmark's production
  // portal on this machine: deploymentCheck refuses it off a developer's machine).
  const keepsMailAsSent = config.appEnv === "test" || config.testMailOutbox !== undefined;
  const outboxDirectory = config.testMailOutbox ??
    (config.appEnv === "test" ? outboxOf(config.databaseUrl) : undefined);
  const mailer = createMailer({
    db,
    config,
    transport: options.mailTransport,
    outbox: options.mailOutbox ?? (keepsMailAsSent ? testOutbox(db, outboxDirectory) : undefined),
  });
  return {
    sessions: new SessionStore(db, { secureCookies: config.appEnv === "production" }, now),
    verifications: new Verifications(db, now),
    limiter: new RateLimiter(db, now),
    mailer,
    emailOutbox: new EmailOutbox(db, mailer, { publicUrl: config.publicUrl, now }),
    identity: options.identity ?? identityProvider(config, db),
    secretBox: await SecretBox.fromSecret(appSecret(config.appSecret, options.secretFile)),
    now,
  };
}

/** Every kind of background job the portal runs (server/jobs/README.md): a runner claims only these. */
export const JOBS = [
  purgeJob,
  rateFeedJob,
  rateAlertCheckJob,
  statementJob,
  expireStatementsJob,
  migrationJob,
  unmatchedReceiptsJob,
  bulkEmailJob,
];

/** The background work of one process: the job runner and the schedules that queue jobs. */
export function createBackgroundWork(db: Database, config: Config, services: Services) {
  const schedules = [
    purgeSchedule,
    expireStatementsSchedule,
    unmatchedReceiptsSchedule,
    ...(config.ratesUrl ? [rateFeedSchedule] : []),
  ];
  return {
    runner: new JobRunner({ db, jobs: JOBS, deps: { config, services }, concurrency: config.jobConcurrency }),
    scheduler: new Scheduler(db, schedules),
  };
}

export interface AppDeps {
  db: Database;
  config: Config;
  assets: Assets;
  services: Services;
  /** Finds the signed-in user of a request: the database sessions unless a test says otherwise. */
  sessions?: SessionResolver;
  redirects?: RedirectTable;
  /** Where the requests are counted for GET /metrics (a fresh count per app unless given). */
  metrics?: HttpMetrics;
  /** The graceful stop's refusal of new requests while those under way finish (main.ts stops it). */
  draining?: Draining;
}

/** Every group of calls, mounted under /api/. */
const CALLS = [
  health,
  auth,
  onboarding,
  security,
  admin,
  moneyCalls,
  recipientCalls,
  paymentCalls,
  consoleMoney,
  accountUsers,
  payoutCalls,
  jobCalls,
  rateAlertCalls,
  statementCalls,
  migrationCalls,
  openApiCalls,
  transactionCalls,
  consoleAdmins,
  consoleAlertCalls,
  profitCalls,
  partnerCalls,
  bulkEmailCalls,
];

/**
 * The whole portal, built from its dependencies. Order matters: headers first (every answer gets
 * them), then assets (no session needed), then the session, redirects, calls and pages.
 */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const { db, config, assets, services } = deps;
  const app = new Hono<AppEnv>();
  const publicOrigin = new URL(config.publicUrl).origin;
  // The public pages kept rendered, each while the data it shows is unchanged (decision 015).
  const versions = new DataVersions(db, services.now);
  const pageCache = new PageCache(versions);

  // Outermost: the request's id for every log line, and its line in the log and the metrics
  // (decision 041).
  const metrics = deps.metrics ?? new HttpMetrics();
  app.use(requestLog(metrics));
  const draining = deps.draining ?? new Draining();
  app.use(draining.middleware());
  // Then: it compresses what every other layer made (decision 034).
  app.use(compression());
  // A public page's answer is kept here for the next visitors, whom the front door answers
  // (decisions 058, 059; answerKeptPagesFirst below).
  const redirectTable = deps.redirects ?? new RedirectTable(db, 5_000, services.now);
  app.use(keepPublicPageAnswers());
  app.use(identityProviderAllowances(!!config.sumsub));
  app.use(emailFrameAllowances());
  app.use(securityHeaders({ https: config.publicUrl.startsWith("https:") }));
  // What every handler reads from c.var (server/env.ts): the app's parts, and no visitor yet.
  app.use(async function context(c, next) {
    c.set("db", db);
    c.set("config", config);
    c.set("assets", assets);
    c.set("services", services);
    c.set("user", null);
    c.set("session", null);
    c.set("onBehalf", null);
    c.set("idempotency", null);
    await next();
  });
  app.use(noStoreWhenPersonal());

  // Built assets have content hashes in their names: cache them for good. The build wrote each
  // one's brotli and gzip forms beside it (scripts/build.ts): the one the browser accepts is sent.
  app.use(
    "/assets/*",
    serveStatic({
      root: config.distDir,
      precompressed: true,
      onFound: (_path, c) => {
        c.header("Cache-Control", "public, max-age=31536000, immutable");
      },
    }),
  );

  app.route("/", siteFiles);
  // For Prometheus, with its bearer token only; anyone else gets the 404 of an unknown path.
  app.get("/metrics", metricsEndpoint(config.metricsToken, metrics));

  app.use(sameOriginOnly(() => [publicOrigin]));
  app.use(recheckAfterWrites(versions));
  // A page render's session is kept in memory while the database says it is unchanged (decision 054).
  app.use(sessionLayer(deps.sessions ?? cachedSessions(versions)));
  // Before anything reads a body (the idempotency layer hashes it, validators parse it): each
  // call's limit from its contract, 16 KB for everything else (decision 024); after the session,
  // so that a console call's 5 MB is an administrator's only (decision 074).
  app.use(bodyLimits(() => REGISTERED_CALLS, { prefix: "/api" }));
  app.use(followRedirects(redirectTable));

  const api = new Hono<AppEnv>();
  api.use(idempotency());
  api.use(auditOnBehalf());
  for (const calls of CALLS) api.route("/", calls);
  app.route("/api", api);
  // The calls as a page to read while developing (decision 042); production serves only the document.
  if (config.appEnv !== "production") app.route("/", apiBrowser);

  registerPages(app, PAGES, pageCache);
  registerEmailFrame(app);
  registerBulkEmailFrame(app);
  registerOneClickUnsubscribe(app);

  const errors = errorHandlers(ErrorPage);
  app.notFound(errors.notFound);
  app.onError(errors.onError);
  // Kept public pages are answered before every layer above (decision 059), with the portal's own
  // sessions only: they know an anonymous visitor by their cookies alone, a test's stand-in does not.
  if (!deps.sessions) answerKeptPagesFirst(app, { cache: pageCache, redirects: redirectTable, metrics, draining });
  return app;
}
