import type { Hono } from "hono";
import type { SessionUser } from "../../server/auth/session-user.ts";
import { createApp, createServices, type ServiceOptions } from "../../app.ts";
import { loadConfig } from "../../server/config.ts";
import type { AppEnv } from "../../server/env.ts";
import { loadAssets } from "../../server/render/assets.ts";
import type { Database } from "../../db/client.ts";
import { testDatabase } from "./db.ts";
import type { Services } from "../../server/services.ts";
import { seedMoney } from "../../server/money/store.ts";
import type { Config } from "../../server/config.ts";
import { tmpdir } from "node:os";
import { testOutbox } from "../../server/mail/outbox.ts";

/** A signed-in user summary for guard tests; every onboarding step done unless overridden. */
export function makeUser(overrides: Partial<SessionUser> = {}): SessionUser {
  return {
    id: 1,
    username: "ada@example.com",
    name: "Ada Lovelace",
    level: "User",
    type: "Personal",
    profile: true,
    validated: true,
    secondFactor: true,
    identity: true,
    account: true,
    restricted: false,
    account_ref: "P1000001",
    override_transfer_fee: false,
    override_priority_transfer_fee: null,
    override_regular_transfer_fee: null,
    affiliate: null,
    ...overrides,
  };
}

export const makeAdmin = (overrides: Partial<SessionUser> = {}) =>
  makeUser({
    id: 99,
    username: "ops@example.com",
    name: "Olive Ops",
    level: "Admin",
    profile: false,
    identity: false,
    account: false,
    account_ref: null,
    ...overrides,
  });

export interface TestApp {
  app: Hono<AppEnv>;
  db: Database;
  /** Who the next requests are signed in as (null: a visitor). */
  signIn(user: SessionUser | null): void;
}

export interface TestAppOptions {
  /** "stand-in" (default): a resolver answers whoever the test signed in, for guard and page
   * tests. "database": the real sessions, signed in through the calls, for journey tests. */
  sessions?: "stand-in" | "database";
  /** The clock of every service (sessions, tokens, limits), in ms; a test may move it. */
  now?: () => number;
  env?: Record<string, string>;
  services?: ServiceOptions;
  /** A database of the test's own (a second instance on another's file); a fresh one by default. */
  database?: Database;
}

/** The real app on a fresh database, with the island build from dist/. */
export async function testApp(options: TestAppOptions = {}): Promise<TestApp & { services: Services; config: Config }> {
  const db = options.database ?? await testDatabase();
  let current: SessionUser | null = null;
  const config = loadConfig({ APP_ENV: "test", PUBLIC_URL: "http://localhost", ...options.env });
  await seedMoney(db);
  const services = await createServices(db, config, {
    secretFile: `${tmpdir()}/portal-test-secret`,
    now: options.now,
    // The mail as sent, whatever APP_ENV the test sets (the kept copy of a security email is redacted).
    mailOutbox: testOutbox(db),
    ...options.services,
  });
  const app = createApp({
    db,
    config,
    assets: loadAssets(config.distDir),
    services,
    sessions: options.sessions === "database" ? undefined : () => Promise.resolve(current),
  });
  return { app, db, services, config, signIn: (user) => (current = user) };
}
