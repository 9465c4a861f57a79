import { and, desc, eq, gt, inArray, isNull } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import type { Tx } from "../../db/sql.ts";
import { verifications } from "../../db/schema.ts";
import { randomCode, randomToken, sha256Hex } from "./tokens.ts";

/**
 * The one engine for emailed or typed secrets, by purpose (STYLE.md: Epic Stack). The validation
 * email carries a link and a 6-digit code (`email-validation-code`, decision 039): either confirms
 * the address, and using one retires the other.
 */
export type Purpose =
  | "email-validation"
  | "email-validation-code"
  | "password-reset"
  | "second-factor"
  /** An administrator's invitation: a link to set their first password (decision 044). */
  | "admin-invitation";

/**
 * The links that choose a password: a reset link (also the "sign-in paused" notice's and a migrated
 * customer's) and an administrator's invitation. Once a password is chosen or changed, by any of
 * them or from the account, every other one stops working: none may choose another after it.
 */
export const SETS_A_PASSWORD: Purpose[] = ["password-reset", "admin-invitation"];

/** Short codes: only ever looked up for their user, whose id their hash binds. */
const BOUND_TO_USER: ReadonlySet<Purpose> = new Set(["second-factor", "email-validation-code"]);

export const VALID_FOR_MS: Record<Purpose, number> = {
  "email-validation": 24 * 60 * 60 * 1000,
  "email-validation-code": 24 * 60 * 60 * 1000,
  "password-reset": 60 * 60 * 1000,
  "second-factor": 10 * 60 * 1000,
  // Long enough to reach someone who is away for a weekend; the inviter can send a new one.
  "admin-invitation": 72 * 60 * 60 * 1000,
};

export class Verifications {
  constructor(private readonly db: Database, private readonly now = () => Date.now()) {}

  /**
   * Issues a new secret for a user and purpose; any earlier unused one of the same purpose stops
   * working. Links carry 256-bit tokens; the second-factor code is 6 digits, bound to its user.
   */
  async issue(userId: number, purpose: Purpose, validForMs = VALID_FOR_MS[purpose]): Promise<string> {
    const [secret] = await this.issueTogether(userId, [purpose], validForMs);
    return secret;
  }

  /**
   * `issue` inside the caller's transaction: the secret exists exactly when what that transaction
   * checked and wrote does (an administrator's invitation approved, decision 044).
   */
  async issueIn(tx: Tx, userId: number, purpose: Purpose): Promise<string> {
    const [secret] = await this.issueTogether(userId, [purpose], VALID_FOR_MS[purpose], tx);
    return secret;
  }

  /**
   * The validation email's link token and its 6-digit code, issued together with one expiry; any
   * earlier unused ones stop working.
   */
  async issueLinkAndCode(userId: number): Promise<{ token: string; code: string }> {
    const [token, code] = await this.issueTogether(userId, ["email-validation", "email-validation-code"]);
    return { token, code };
  }

  /** New secrets for several purposes of one user in one transaction, in the order asked. */
  private async issueTogether(
    userId: number,
    purposes: Purpose[],
    validForMs = VALID_FOR_MS[purposes[0]],
    db: Database | Tx = this.db,
  ): Promise<string[]> {
    const now = this.now();
    const secrets = purposes.map((purpose) => BOUND_TO_USER.has(purpose) ? randomCode() : randomToken());
    const rows = await Promise.all(purposes.map(async (purpose, i) => ({
      userId,
      purpose,
      secretHash: await hashOf(purpose, secrets[i], userId),
      expiresAt: new Date(now + validForMs),
      createdAt: new Date(now),
    })));
    await db.transaction(async (tx) => {
      await tx.update(verifications).set({ usedAt: new Date(now) }).where(
        and(
          eq(verifications.userId, userId),
          inArray(verifications.purpose, purposes),
          isNull(verifications.usedAt),
        ),
      );
      await tx.insert(verifications).values(rows);
    });
    return secrets;
  }

  /** Marks a user's unused secrets of these purposes used (the link once the code confirmed, and back). */
  async retire(userId: number, purposes: Purpose[]): Promise<void> {
    await this.db.update(verifications).set({ usedAt: new Date(this.now()) }).where(
      and(eq(verifications.userId, userId), inArray(verifications.purpose, purposes), isNull(verifications.usedAt)),
    );
  }

  /**
   * Whether a secret would be accepted now, without using it: a reset link opened on /forgot says
   * at once when it is used or expired, before a new password is typed (decision 039).
   */
  async isLive(purpose: Purpose, secret: string, userId: number): Promise<boolean> {
    const trimmed = secret.trim();
    if (!trimmed || trimmed.length > 100) return false;
    const [row] = await this.db.select({ id: verifications.id }).from(verifications).where(
      and(
        eq(verifications.purpose, purpose),
        eq(verifications.secretHash, await hashOf(purpose, trimmed, userId)),
        eq(verifications.userId, userId),
        isNull(verifications.usedAt),
        gt(verifications.expiresAt, new Date(this.now())),
      ),
    ).limit(1);
    return !!row;
  }

  /**
   * Whether a code is one the user was sent that no longer works (expired, used, or replaced by a
   * newer one): asked after `consume` refused it, so that a late code is said to be late rather than
   * wrong (decision 039). Only for codes bound to their user: the answer is about their own mail.
   */
  async wasSent(purpose: Purpose, code: string, userId: number): Promise<boolean> {
    const trimmed = code.trim();
    if (!BOUND_TO_USER.has(purpose) || !trimmed || trimmed.length > 100) return false;
    const [row] = await this.db.select({ id: verifications.id }).from(verifications).where(
      and(
        eq(verifications.purpose, purpose),
        eq(verifications.secretHash, await hashOf(purpose, trimmed, userId)),
        eq(verifications.userId, userId),
      ),
    ).limit(1);
    return !!row;
  }

  /**
   * Whose link a token is, used, replaced or expired alike (a link's token is found by its hash
   * alone); null for a token we never sent. Someone who opens their confirmation link again is
   * told their address is confirmed rather than to ask for a new link.
   */
  async ownerOfLink(purpose: Purpose, secret: string): Promise<number | null> {
    const trimmed = secret.trim();
    if (BOUND_TO_USER.has(purpose) || !trimmed || trimmed.length > 100) return null;
    const [row] = await this.db.select({ userId: verifications.userId }).from(verifications).where(
      and(eq(verifications.purpose, purpose), eq(verifications.secretHash, await hashOf(purpose, trimmed))),
    ).limit(1);
    return row?.userId ?? null;
  }

  /**
   * Uses a secret once. Returns its user's id, or null when it is wrong, used, expired or
   * replaced by a newer one. `userId`, when given, must be the owner (a code is only ever checked
   * for the signed-in user). Marking it used is conditional, so two requests cannot both use it.
   */
  async consume(purpose: Purpose, secret: string, userId?: number): Promise<number | null> {
    const trimmed = secret.trim();
    if (!trimmed || trimmed.length > 100) return null;
    if (BOUND_TO_USER.has(purpose) && userId === undefined) throw new Error("A code is checked for a user");
    const now = new Date(this.now());
    const [row] = await this.db.select().from(verifications).where(
      and(
        eq(verifications.purpose, purpose),
        eq(verifications.secretHash, await hashOf(purpose, trimmed, userId)),
        isNull(verifications.usedAt),
        gt(verifications.expiresAt, now),
        ...(userId === undefined ? [] : [eq(verifications.userId, userId)]),
      ),
    ).orderBy(desc(verifications.id)).limit(1);
    if (!row) return null;
    const used = await this.db.update(verifications).set({ usedAt: now }).where(
      and(eq(verifications.id, row.id), isNull(verifications.usedAt)),
    ).returning({ id: verifications.id });
    return used.length === 1 ? row.userId : null;
  }
}

/**
 * Tokens are unguessable on their own and are found by their hash alone (a link can be opened on
 * another device). A 6-digit code is not: its hash binds it to its user, so it is only ever
 * looked up for that user.
 */
function hashOf(purpose: Purpose, secret: string, userId?: number): Promise<string> {
  return sha256Hex(BOUND_TO_USER.has(purpose) ? `${purpose}:${userId}:${secret}` : `${purpose}:${secret}`);
}
