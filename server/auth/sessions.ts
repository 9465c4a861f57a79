import { and, eq, gt, lt, ne, or } from "drizzle-orm";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Database } from "../../db/client.ts";
import { sessions } from "../../db/schema.ts";
import { rowOf } from "../../db/sql.ts";
import { flash } from "../render/flash.ts";
import { randomToken, sha256Hex } from "./tokens.ts";

/** Sessions end after 30 idle minutes, and 12 hours after sign-in whatever happens. */
export const IDLE_TIMEOUT_MS = 30 * 60 * 1000;
export const ABSOLUTE_TIMEOUT_MS = 12 * 60 * 60 * 1000;
/**
 * A busy session's last-seen time is written at most once a second (a page and its calls come
 * together): the idle timeout is then 30 minutes to within that second.
 */
const TOUCH_EVERY_MS = 1000;
/**
 * How long a session replaced by a new token (SessionStore.rotate) is kept, opening nothing: long
 * enough for every request that left the browser with the old cookie before the new one came back.
 */
const REPLACED_KEPT_MS = 60 * 1000;

export const SESSION_COOKIE = "session";

/**
 * How long the browser keeps the session's cookie after the session's 12 hours: a cookie that
 * lapsed with the session would leave the server nothing to say "a session lasts at most 12 hours"
 * to (SIGNED_OUT), and the person would meet the sign-in form with no reason. A cookie that outlives
 * its session signs nobody in: it names a row that has ended.
 */
const COOKIE_OUTLIVES_SESSION_MS = 24 * 60 * 60 * 1000;

/**
 * What the page a browser lands on says when its session cookie names a session that has ended:
 * else a person back from a coffee finds the sign-in form, or the home page, and no reason.
 */
export const SIGNED_OUT = {
  idle: {
    title: "Signed out",
    description: "You were signed out after 30 minutes without activity. Sign in again to continue.",
    color: "info",
  },
  expired: {
    title: "Signed out",
    description: "You were signed out: a session lasts at most 12 hours. Sign in again to continue.",
    color: "info",
  },
  /** Ended on the server: Sign out everywhere, a password changed or reset, an administrator disabled. */
  ended: {
    title: "Signed out",
    description: "Your session was ended. Sign in again to continue.",
    color: "info",
  },
} as const;

/** Read on every signed-in request: fixed SQL, one row (db/sql.ts). */
const SESSION_BY_ID = "SELECT user_id, second_factor, created_at, last_seen_at, expires_at FROM sessions WHERE id = ?";
interface SessionSqlRow {
  user_id: number;
  second_factor: number;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
}

/**
 * A session that rotate replaced: it was cut short, ending before its 12 hours were up (every other
 * session ends exactly 12 hours after its sign-in, SessionStore.start).
 */
const wasReplaced = (row: Pick<SessionSqlRow, "created_at" | "expires_at">) =>
  row.expires_at < row.created_at + ABSOLUTE_TIMEOUT_MS;

export interface SessionRow {
  id: string;
  userId: number;
  secondFactor: boolean;
}

/** A session as read for a request, with the times that end it (ms since the epoch). */
export interface LiveSession extends SessionRow {
  expiresAt: number;
  lastSeenAt: number;
}

/**
 * Database sessions: the cookie holds a random 256-bit token; the table only its SHA-256, so a
 * copy of the database cannot be used to sign in.
 */
export class SessionStore {
  constructor(
    private readonly db: Database,
    private readonly options: { secureCookies: boolean },
    private readonly now = () => Date.now(),
  ) {}

  /** Starts a session and sets its cookie. A new token every time: at login and after the second factor. */
  async start(c: Context, userId: number, secondFactor: boolean, startedAt?: Date): Promise<SessionRow> {
    const token = randomToken();
    const id = await sha256Hex(token);
    const now = this.now();
    const created = startedAt ?? new Date(now);
    await this.db.insert(sessions).values({
      id,
      userId,
      secondFactor,
      createdAt: created,
      lastSeenAt: new Date(now),
      expiresAt: new Date(created.getTime() + ABSOLUTE_TIMEOUT_MS),
      ipAddress: clientAddress(c),
      userAgent: c.req.header("user-agent")?.slice(0, 300) ?? null,
    });
    setCookie(c, SESSION_COOKIE, token, {
      path: "/",
      httpOnly: true,
      secure: this.options.secureCookies,
      sameSite: "Lax",
      maxAge: (ABSOLUTE_TIMEOUT_MS + COOKIE_OUTLIVES_SESSION_MS) / 1000,
    });
    return { id, userId, secondFactor };
  }

  /** The live session of this request, or null (and a stale cookie is cleared). */
  async current(c: Context): Promise<LiveSession | null> {
    const token = getCookie(c, SESSION_COOKIE);
    if (!token || token.length > 100) return null;
    const id = await sha256Hex(token);
    const row = await rowOf<SessionSqlRow>(this.db, SESSION_BY_ID, [id]);
    const now = this.now();
    // The cookie the browser had before the second factor, on a request that left before the new one
    // came back (a link's preload, an island's call, another tab): it opens nothing, and its answer,
    // which the browser takes after the new cookie, leaves the cookies alone, else it would clear
    // the new session's and sign the person out, with a "Signed out" notice on the page they land on.
    if (row && wasReplaced(row)) return null;
    if (!row || row.expires_at <= now || row.last_seen_at + IDLE_TIMEOUT_MS <= now) {
      if (row) await this.db.delete(sessions).where(eq(sessions.id, id));
      deleteCookie(c, SESSION_COOKIE, { path: "/" });
      flash(c, !row ? SIGNED_OUT.ended : row.expires_at <= now ? SIGNED_OUT.expired : SIGNED_OUT.idle);
      // The client's copy of the user goes with it (islands/lib/user-store.ts): the visitor's page
      // this request gets is not taken for out of date and loaded again (decision 069).
      deleteCookie(c, "user", { path: "/" });
      return null;
    }
    let lastSeenAt = row.last_seen_at;
    if (now - row.last_seen_at > TOUCH_EVERY_MS) {
      await this.touch(id, now);
      lastSeenAt = now;
    }
    return { id, userId: row.user_id, secondFactor: row.second_factor === 1, expiresAt: row.expires_at, lastSeenAt };
  }

  /** Records that a session was used at `now` (its idle timeout counts from there). */
  async touch(id: string, now: number): Promise<void> {
    await this.db.update(sessions).set({ lastSeenAt: new Date(now) }).where(eq(sessions.id, id));
  }

  /**
   * Replaces a session with a fresh token (after the second factor, so a token seen before it is
   * worthless after), keeping its absolute expiry. The old one is not deleted but cut short, and
   * kept a minute (purge): a request still carrying it is answered as nobody's without clearing the
   * browser's cookie, by then the new one (current).
   */
  async rotate(c: Context, session: SessionRow, secondFactor: boolean): Promise<SessionRow> {
    const [old] = await this.db.select().from(sessions).where(eq(sessions.id, session.id));
    await this.db.update(sessions).set({ secondFactor: false, expiresAt: new Date(this.now()) })
      .where(eq(sessions.id, session.id));
    return this.start(c, session.userId, secondFactor, old?.createdAt);
  }

  /** Ends this request's session on the server and clears its cookie. */
  async end(c: Context, session: SessionRow | null): Promise<void> {
    if (session) await this.db.delete(sessions).where(eq(sessions.id, session.id));
    deleteCookie(c, SESSION_COOKIE, { path: "/", secure: this.options.secureCookies });
  }

  /**
   * Ends every session of a user (after a password reset), or every other one (after a password
   * change); answers how many ended.
   */
  async endAll(userId: number, except?: string): Promise<number> {
    const ended = await this.db.delete(sessions).where(
      except ? and(eq(sessions.userId, userId), ne(sessions.id, except)) : eq(sessions.userId, userId),
    ).returning({ expiresAt: sessions.expiresAt });
    // A replaced session (rotate) was no session of the person's any more.
    const now = this.now();
    return ended.filter((session) => session.expiresAt.getTime() > now).length;
  }

  /** Removes expired sessions (run now and then); a replaced one a minute after it was (rotate). */
  async purge(): Promise<void> {
    const now = this.now();
    await this.db.delete(sessions).where(
      or(
        lt(sessions.expiresAt, new Date(now - REPLACED_KEPT_MS)),
        lt(sessions.lastSeenAt, new Date(now - IDLE_TIMEOUT_MS)),
      ),
    );
  }

  /** How many live sessions a user has (for tests and the console). */
  async countFor(userId: number): Promise<number> {
    const rows = await this.db.select({ id: sessions.id }).from(sessions).where(
      and(eq(sessions.userId, userId), gt(sessions.expiresAt, new Date(this.now()))),
    );
    return rows.length;
  }
}

/**
 * The client's address, for per-address limits and the session record. X-Forwarded-For is believed
 * only behind one proxy we run (TRUST_PROXY), and only its last entry, the one that proxy added.
 */
export function clientAddress(c: Context): string {
  const trustProxy = (c.get as (key: string) => { trustProxy?: boolean } | undefined)("config")?.trustProxy;
  // Our proxy appends the address it saw; entries before it are whatever the client sent.
  const forwarded = trustProxy ? c.req.header("x-forwarded-for")?.split(",").at(-1)?.trim() : undefined;
  // Deno.serve puts the peer address in the connection info; Hono exposes it through c.env.
  const remote = (c.env as { remoteAddr?: { hostname?: string } } | undefined)?.remoteAddr?.hostname;
  return forwarded || remote || "unknown";
}
