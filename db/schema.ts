import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { ACCOUNT_ROLES } from "../lib/permissions.ts";
import { REJECTION_REASONS } from "../lib/compliance.ts";

/**
 * Redirects an operator can set without a deploy: a request for `path` is sent to `target`.
 * A target that is an absolute address (https://...) leaves the site.
 */
export const redirects = sqliteTable("redirects", {
  path: text("path").primaryKey(),
  target: text("target").notNull(),
  /** 301 for a permanent move, 302 (default) for a temporary one. */
  status: integer("status").notNull().default(302),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().$defaultFn(() => new Date()),
});

/**
 * Idempotency-Key records (DESIGN.md section 6). One row per (scope, key): the scope is the
 * signed-in user, so two users can never see each other's answers. While the first request runs the
 * row is `running`; then it holds the exact answer to replay.
 */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    /** SHA-256 of method, path with query, and body: "the same request". */
    requestHash: text("request_hash").notNull(),
    state: text("state", { enum: ["running", "done"] }).notNull(),
    responseStatus: integer("response_status"),
    /** JSON array of [name, value] header pairs of the first answer. */
    responseHeaders: text("response_headers"),
    responseBody: text("response_body", { mode: "text" }),
    /** When a `running` row may be taken over: the first request died without answering. */
    lockedUntil: integer("locked_until", { mode: "timestamp_ms" }).notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] }), index("idempotency_keys_created_at").on(t.createdAt)],
);

/**
 * A version per topic of data that something keeps a copy of (the public pages the page cache
 * holds show the rates and the pricing plans). Triggers bump a topic's version in the transaction
 * that changes its tables, whoever writes them (migration 0006): a cache compares versions instead
 * of being told (decision 015).
 */
export const dataVersions = sqliteTable("data_versions", {
  topic: text("topic").primaryKey(),
  version: integer("version").notNull().default(0),
});

const bool = (name: string) => integer(name, { mode: "boolean" });
const time = (name: string) => integer(name, { mode: "timestamp_ms" });

/**
 * Everyone who signs in: customers (level User) and administrators (level Admin). The username is
 * the email address, stored lower-cased. An administrator is always validated and never restricted.
 */
export const users = sqliteTable("users", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  username: text("username").notNull().unique(),
  passwordHash: text("password_hash"),
  level: text("level", { enum: ["Admin", "User"] }).notNull().default("User"),
  type: text("type", { enum: ["Personal", "Business"] }).notNull().default("Personal"),
  validated: bool("validated").notNull().default(false),
  restricted: bool("restricted").notNull().default(false),
  /** The authenticator app's secret, encrypted (AES-GCM); null until the user enrols one. */
  totpSecret: text("totp_secret"),
  /** The last TOTP time step accepted, so no code is accepted twice. */
  totpLastStep: integer("totp_last_step"),
  /** The referral code given at registration, if any. */
  referralCode: text("referral_code"),
  /**
   * The partner's code the customer registered with, if it was one (the session summary's
   * `affiliate`): a fact of the sign-up, as `referral_code` is; the partner now is `partner_id`
   * (decision 065).
   */
  affiliate: text("affiliate"),
  /**
   * The partner who introduced this customer (db/schema-partners.ts, decision 051): set at
   * registration from a partner's referral code. A plain integer, not a reference: users are
   * declared before partners.
   */
  partnerId: integer("partner_id"),
  /** Whether the fee overrides apply; each is currency → fee in that currency (docs/decisions/025). */
  overrideTransferFee: bool("override_transfer_fee").notNull().default(false),
  overridePriorityTransferFee: text("override_priority_transfer_fee", { mode: "json" }).$type<Record<string, string>>(),
  overrideRegularTransferFee: text("override_regular_transfer_fee", { mode: "json" }).$type<Record<string, string>>(),
  /** For an administrator: the customer they act on behalf of; kept across sessions. */
  onBehalfOf: integer("on_behalf_of"),
  createdAt: time("created_at").notNull().$defaultFn(() => new Date()),
  /** When the user last passed the second factor: a full sign-in (the console's administrators list). */
  lastSignInAt: time("last_sign_in_at"),
  /**
   * Kept by triggers, never written by the code (db/derived.ts, decision 052): the onboarding step
   * the customer is at (CUSTOMER_STEPS, derived from validated, the profile, the identity check and
   * the account) and whether an account they belong to holds money, so that the console's list
   * filters them on an index.
   */
  step: text("step", { enum: ["verify", "profile", "identity", "review", "rejected", "open"] }).notNull().default(
    "verify",
  ),
  hasBalance: bool("has_balance").notNull().default(false),
  /**
   * When an account of theirs was first credited by a receipt (matched at once or allocated later):
   * "funded" on the partner screens (decision 055). Set in the transaction that credits the
   * receipt (server/ledger/movements.ts); filled once for older databases (server/partners/funded.ts).
   */
  fundedAt: time("funded_at"),
}, (t) => [
  // The partner screens (decision 055), each read from its index alone: a partner's customers
  // newest first a page at a time, and how many are funded; the codes typed, grouped; the
  // sign-ups of a period, how many are funded and which came with a code.
  index("users_partner").on(t.partnerId, t.createdAt, t.fundedAt),
  index("users_referral_code").on(t.referralCode, t.partnerId, t.fundedAt),
  index("users_signups").on(t.level, t.createdAt, t.fundedAt, t.partnerId, t.referralCode),
  // The console's customers list (docs/PERFORMANCE.md): each filter on an index whose rows are in id
  // order within a value, so a page newest first reads no more than it shows.
  index("users_level_type").on(t.level, t.type),
  // The step with the balance and the type after it: their combinations are counted on the index.
  index("users_level_step").on(t.level, t.step, t.hasBalance, t.type),
  index("users_level_balance").on(t.level, t.hasBalance),
  index("users_level_restricted").on(t.level, t.restricted),
]);

/**
 * Sessions: the cookie holds a random token, this table only its SHA-256. A session records
 * whether its second factor was passed; it ends after 30 idle minutes or 12 hours in all.
 */
export const sessions = sqliteTable("sessions", {
  id: text("id").primaryKey(),
  userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  secondFactor: bool("second_factor").notNull().default(false),
  createdAt: time("created_at").notNull(),
  lastSeenAt: time("last_seen_at").notNull(),
  expiresAt: time("expires_at").notNull(),
  ipAddress: text("ip_address"),
  userAgent: text("user_agent"),
  /**
   * The account this session acts on, for a user who belongs to several (linked accounts,
   * /account-select). A plain integer, not a reference: sessions are declared before accounts, and
   * membership is checked on every read anyway.
   */
  currentAccountId: integer("current_account_id"),
}, (t) => [index("sessions_user").on(t.userId)]);

/**
 * One engine for every emailed or typed secret (email validation, password reset, second-factor
 * code), one table, by purpose. Only a hash of the secret is stored; each is single use and expires.
 */
export const verifications = sqliteTable("verifications", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  purpose: text("purpose", {
    enum: ["email-validation", "email-validation-code", "password-reset", "second-factor", "admin-invitation"],
  })
    .notNull(),
  secretHash: text("secret_hash").notNull(),
  expiresAt: time("expires_at").notNull(),
  usedAt: time("used_at"),
  createdAt: time("created_at").notNull(),
}, (t) => [index("verifications_user_purpose").on(t.userId, t.purpose)]);

/** Attempt counters for rate limits, shared by every instance through the database. */
export const rateLimits = sqliteTable("rate_limits", {
  key: text("key").primaryKey(),
  windowStart: time("window_start").notNull(),
  count: integer("count").notNull(),
  blockedUntil: time("blocked_until"),
});

/** A customer's profile (SPEC.md section 3), by type, and the compliance review of it. */
export const profiles = sqliteTable("profiles", {
  userId: integer("user_id").primaryKey().references(() => users.id, { onDelete: "cascade" }),
  type: text("type", { enum: ["Personal", "Business"] }).notNull(),
  /** The profile's fields as JSON, validated on save (server/profile/schema.ts). */
  data: text("data", { mode: "json" }).notNull(),
  complianceDone: bool("compliance_done").notNull().default(false),
  /** Approved annual volume, a decimal string. */
  complianceAmount: text("compliance_amount"),
  /** Review date, YYYY-MM-DD. */
  complianceDate: text("compliance_date"),
  accountManager: text("account_manager").notNull().default(""),
  /**
   * A compliance review's rejection (server/accounts/compliance.ts): when, by whom, the reason the
   * customer is told (lib/compliance.ts) and the reviewer's note for the file. Cleared only by a
   * new review that says it overrides the rejection.
   */
  rejectedAt: time("rejected_at"),
  rejectedBy: integer("rejected_by").references(() => users.id),
  rejectionReason: text("rejection_reason", { enum: REJECTION_REASONS }),
  rejectionNote: text("rejection_note"),
  createdAt: time("created_at").notNull(),
  updatedAt: time("updated_at").notNull(),
});

/** The identity check of a user with the identity provider (Sumsub, or the built-in sandbox). */
export const identityChecks = sqliteTable("identity_checks", {
  userId: integer("user_id").primaryKey().references(() => users.id, { onDelete: "cascade" }),
  provider: text("provider", { enum: ["sumsub", "sandbox"] }).notNull(),
  applicantId: text("applicant_id"),
  status: text("status", { enum: ["pending", "approved", "retry", "rejected"] }).notNull(),
  /** Sumsub's moderation comment for the customer, on a RETRY or FINAL rejection. */
  moderationComment: text("moderation_comment"),
  /** When the review that set this status was made; older events are ignored. */
  reviewedAt: time("reviewed_at"),
  updatedAt: time("updated_at").notNull(),
});

/** Webhook events already applied, so a replayed delivery changes nothing. */
export const webhookEvents = sqliteTable("webhook_events", {
  id: text("id").primaryKey(),
  receivedAt: time("received_at").notNull(),
});

/** A customer account: what holds balances. `accountRef` is what customers quote when funding. */
export const accounts = sqliteTable("accounts", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  accountRef: text("account_ref").notNull().unique(),
  type: text("type", { enum: ["Personal", "Business"] }).notNull(),
  name: text("name").notNull(),
  openedAt: time("opened_at").notNull(),
  /** The administrator who opened it after review; null when it opened at once. */
  openedBy: integer("opened_by").references(() => users.id),
});

/** Who belongs to which account, with what role (DESIGN.md section 4). */
export const accountMembers = sqliteTable("account_members", {
  accountId: integer("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  role: text("role", { enum: ACCOUNT_ROLES }).notNull(),
  createdAt: time("created_at").notNull(),
}, (t) => [
  primaryKey({ columns: [t.accountId, t.userId] }),
  index("account_members_user").on(t.userId),
  // An account's first owner, whose partner its income counts for (decisions 051, 070): one seek.
  index("account_members_first_owner").on(t.accountId, t.role, t.createdAt, t.userId),
]);

/** Every email the portal sent (or kept, without SMTP), with its content, for the console. */
export const emails = sqliteTable("emails", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
  to: text("to").notNull(),
  subject: text("subject").notNull(),
  template: text("template").notNull(),
  html: text("html").notNull(),
  text: text("text").notNull(),
  /**
   * sent, stored (kept: no mail server), failed; a bulk email's mail is written before it is handed
   * to SMTP and is `in doubt` until the server's answer is recorded (decision 061).
   */
  status: text("status", { enum: ["sent", "stored", "failed", "in doubt"] }).notNull(),
  error: text("error"),
  createdAt: time("created_at").notNull(),
  /**
   * The bulk email this mail was one of (decision 061): its `html` and `text` are then empty, and
   * its content is the bulk email's rendering filled with `mergeValues`, the values it was sent with.
   * Not a foreign key: only a draft, which has no mails, can be deleted.
   */
  bulkEmailId: integer("bulk_email_id"),
  mergeValues: text("merge_values", { mode: "json" }).$type<Record<string, string>>(),
}, (t) => [
  index("emails_to").on(t.to),
  index("emails_created").on(t.createdAt),
  // A search of 1 or 2 characters (no trigram) scans this, not the emails and their bodies (decision 052).
  index("emails_to_subject").on(t.to, t.subject),
]);

/** Where a sign-up came from: utm_* parameters and the referrer. */
export const attributions = sqliteTable("attributions", {
  userId: integer("user_id").primaryKey().references(() => users.id, { onDelete: "cascade" }),
  utmSource: text("utm_source"),
  utmMedium: text("utm_medium"),
  utmCampaign: text("utm_campaign"),
  utmTerm: text("utm_term"),
  utmContent: text("utm_content"),
  referrer: text("referrer"),
  landingPath: text("landing_path"),
  createdAt: time("created_at").notNull(),
  /**
   * The customer's `users.funded_at`, copied by the steps that set it (server/partners/funded.ts):
   * the attributions report counts funded sign-ups per campaign from this table's index alone.
   */
  fundedAt: time("funded_at"),
}, (t) => [
  // The attributions report (decision 055): read in the order of its groups, no sort, no lookup.
  index("attributions_source").on(t.utmSource, t.utmMedium, t.utmCampaign, t.referrer, t.createdAt, t.fundedAt),
]);

/**
 * What administrators did (server/audit.ts, lib/audit.ts): who (actor), for which customer
 * (subject) and which account, when there is one, what (an action name), and the values before
 * and after as JSON. Also what customers change about who may act on their accounts. Never
 * changed, only added to (triggers of migration 0010 refuse updates and deletes).
 */
export const auditLog = sqliteTable("audit_log", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  at: time("at").notNull(),
  actorId: integer("actor_id").notNull().references(() => users.id),
  subjectId: integer("subject_id").references(() => users.id),
  accountId: integer("account_id").references(() => accounts.id),
  action: text("action").notNull(),
  before: text("before", { mode: "json" }),
  after: text("after", { mode: "json" }),
}, (t) => [index("audit_log_subject").on(t.subjectId), index("audit_log_account").on(t.accountId)]);
