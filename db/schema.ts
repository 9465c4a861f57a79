import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

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
