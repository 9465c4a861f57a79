import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import type { Database } from "../../db/client.ts";
import { rowOf } from "../../db/sql.ts";
import type { DataVersions } from "../data-versions.ts";
import type { AppEnv } from "../env.ts";
import { databaseSessions, type SessionResolver } from "./session.ts";
import type { SessionUser } from "./session-user.ts";
import { IDLE_TIMEOUT_MS, SESSION_COOKIE, type SessionRow } from "./sessions.ts";
import { sha256Hex } from "./tokens.ts";
import { userWithSummary } from "./users.ts";

/** What a page render of a live session found in the database, and when. */
interface Kept {
  session: SessionRow;
  user: SessionUser;
  /** The 'sessions' version read before the database was asked: a later change makes it stale. */
  version: number;
  expiresAt: number;
  /** The last-seen time as this process last wrote or read it. */
  lastSeenAt: number;
}

/** A session's last-seen time is written at most this often (as SessionStore.current does). */
const TOUCH_EVERY_MS = 1000;

/**
 * The signed-in user of a page render, kept in memory between requests (decision 054). A signed-in
 * page otherwise reads the session and the user's summary from the database on every request; here
 * they are read once and reused while the database's 'sessions' version (server/data-versions.ts,
 * bumped by triggers of migrations 0022 and 0025 on every change to a session, to a user's columns
 * the summary reads or their credentials (not their sign-in time or kept step), a profile, an
 * identity check or an account membership, whoever makes it) is the one read before they were. The versions
 * are read again at once after this process answered a write, and at least once a second
 * otherwise: a sign-out or a changed role in this process shows on the next request, one made by
 * another process on the same database within a second.
 *
 * Reads (GET and HEAD, pages and calls under /api/ alike) trust the versions as last read: a
 * sign-out or a changed role made in another process shows within a second (`VERSIONS_MAX_AGE_MS`),
 * at once in this one. Writes (any other method) trust no version read before they came: each reads
 * the 'sessions' version from the database itself (one indexed read of data_versions) and asks the
 * database for the session and user when it moved. That is as strict as reading the session from
 * the database: the triggers move the version in the transaction that ends a session or changes a
 * user, so a change committed before this read is seen, and one committed after it would have come
 * after a read of the session too (neither is read inside the write's own transaction).
 * (Decision 054, amended.)
 */
export function cachedSessions(versions: DataVersions, maxEntries = 10_000): SessionResolver {
  const kept = new Map<string, Kept>();
  return async (c: Context<AppEnv>) => {
    const token = getCookie(c, SESSION_COOKIE);
    if (!token || token.length > 100) return await databaseSessions(c);
    const id = await sha256Hex(token);
    const reads = c.req.method === "GET" || c.req.method === "HEAD";
    const version = reads ? (await versions.current()).get("sessions") ?? 0 : await sessionsVersionNow(c.get("db"));
    const now = c.get("services").now();
    const hit = kept.get(id);
    if (
      hit && hit.version === version && now < hit.expiresAt && now < hit.lastSeenAt + IDLE_TIMEOUT_MS &&
      now >= hit.lastSeenAt
    ) {
      if (now - hit.lastSeenAt > TOUCH_EVERY_MS) {
        await c.get("services").sessions.touch(id, now);
        hit.lastSeenAt = now;
      }
      c.set("session", hit.session);
      return hit.user;
    }
    // Not kept, changed, or near an end this process cannot judge alone: the database decides.
    // (databaseSessions' steps, keeping the times the store read.)
    kept.delete(id);
    const live = await c.get("services").sessions.current(c);
    if (!live) {
      c.set("session", null);
      return null;
    }
    const { expiresAt, lastSeenAt, ...session } = live;
    c.set("session", session);
    const user = (await userWithSummary(c.get("db"), session.userId, session.secondFactor))?.summary ?? null;
    if (user && live.id === id) {
      if (kept.size >= maxEntries) kept.delete(kept.keys().next().value!);
      kept.set(id, { session, user, version, expiresAt, lastSeenAt });
    }
    return user;
  };
}

/** The 'sessions' version as the database has it now, for a write (no copy of it is trusted). */
async function sessionsVersionNow(db: Database): Promise<number> {
  return (await rowOf<{ version: number }>(db, SESSIONS_VERSION_SQL))?.version ?? 0;
}

const SESSIONS_VERSION_SQL = "SELECT version FROM data_versions WHERE topic = 'sessions'";
