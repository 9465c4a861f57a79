import { Hono } from "hono";
import { serveStatic } from "hono/deno";
import type { Database } from "../db/client.ts";
import { admin } from "../routes/api/admin.ts";
import { auth } from "../routes/api/auth.ts";
import { health } from "../routes/api/health.ts";
import { consoleMoney } from "../routes/api/console-money.ts";
import { moneyCalls } from "../routes/api/money.ts";
import { onboarding } from "../routes/api/onboarding.ts";
import { paymentCalls } from "../routes/api/payments.ts";
import { security } from "../routes/api/security.ts";
import { PAGES, registerPages } from "../routes/pages.tsx";
import { siteFiles } from "../routes/static.ts";
import { auditOnBehalf } from "./audit.ts";
import { databaseSessions, sessionLayer, type SessionResolver } from "./auth/session.ts";
import type { Config } from "./config.ts";
import type { AppEnv } from "./env.ts";
import { notFound, onError } from "./http/errors.tsx";
import { idempotency } from "./http/idempotency.ts";
import { followRedirects, RedirectTable } from "./http/redirects.ts";
import { identityProviderAllowances, sameOriginOnly, securityHeaders } from "./http/security.ts";
import type { Assets } from "./render/assets.ts";
import type { Services } from "./services.ts";

export interface AppDeps {
  db: Database;
  config: Config;
  assets: Assets;
  services: Services;
  /** Finds the signed-in user of a request: the database sessions unless a test says otherwise. */
  sessions?: SessionResolver;
  redirects?: RedirectTable;
}

/**
 * The whole portal as one Hono app, built from its dependencies so that tests can call it with
 * app.request() on their own database. Order matters: headers first (every answer gets them),
 * then assets (no session needed), then the session, redirects, calls and pages.
 */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const { db, config, assets } = deps;
  const app = new Hono<AppEnv>();
  const publicOrigin = new URL(config.publicUrl).origin;

  app.use(identityProviderAllowances(!!config.sumsub));
  app.use(securityHeaders({ https: config.publicUrl.startsWith("https:") }));
  app.use(async function context(c, next) {
    c.set("db", db);
    c.set("config", config);
    c.set("assets", assets);
    c.set("services", deps.services);
    c.set("user", null);
    c.set("session", null);
    c.set("onBehalf", null);
    await next();
  });

  // Built assets have content hashes in their names: cache them for good.
  app.use(
    "/assets/*",
    serveStatic({
      root: config.distDir,
      onFound: (_path, c) => {
        c.header("Cache-Control", "public, max-age=31536000, immutable");
      },
    }),
  );

  app.route("/", siteFiles);

  app.use(sameOriginOnly(() => [publicOrigin]));
  app.use(sessionLayer(deps.sessions ?? databaseSessions));
  app.use(followRedirects(deps.redirects ?? new RedirectTable(db)));

  const api = new Hono<AppEnv>();
  api.use(idempotency());
  api.use(auditOnBehalf());
  for (const calls of [health, auth, onboarding, security, admin, moneyCalls, paymentCalls, consoleMoney]) {
    api.route("/", calls);
  }
  app.route("/api", api);

  registerPages(app, PAGES, deps.services.pageCache);

  app.notFound(notFound);
  app.onError(onError);
  return app;
}
