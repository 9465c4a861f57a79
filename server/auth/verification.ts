import { and, desc, eq, gt, isNull } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { verifications } from "../../db/schema.ts";
import { randomCode, randomToken, sha256Hex } from "./tokens.ts";

/** The one engine for emailed or typed secrets, by purpose (STYLE.md: Epic Stack). */
export type Purpose = "email-validation" | "password-reset" | "second-factor";

export const VALID_FOR_MS: Record<Purpose, number> = {
  "email-validation": 24 * 60 * 60 * 1000,
  "password-reset": 60 * 60 * 1000,
  "second-factor": 10 * 60 * 1000,
};

export class Verifications {
  constructor(private readonly db: Database, private readonly now = () => Date.now()) {}

  /**
   * Issues a new secret for a user and purpose; any earlier unused one of the same purpose stops
   * working. Links carry 256-bit tokens; the second-factor code is 6 digits, bound to its user.
   */
  async issue(userId: number, purpose: Purpose): Promise<string> {
    const secret = purpose === "second-factor" ? randomCode() : randomToken();
    const now = this.now();
    const secretHash = await hashOf(purpose, secret, userId);
    await this.db.transaction(async (tx) => {
      await tx.update(verifications).set({ usedAt: new Date(now) }).where(
        and(eq(verifications.userId, userId), eq(verifications.purpose, purpose), isNull(verifications.usedAt)),
      );
      await tx.insert(verifications).values({
        userId,
        purpose,
        secretHash,
        expiresAt: new Date(now + VALID_FOR_MS[purpose]),
        createdAt: new Date(now),
      });
    });
    return secret;
  }

  /**
   * Uses a secret once. Returns its user's id, or null when it is wrong, used, expired or
   * replaced by a newer one. `userId`, when given, must be the owner (a code is only ever checked
   * for the signed-in user). Marking it used is conditional, so two requests cannot both use it.
   */
  async consume(purpose: Purpose, secret: string, userId?: number): Promise<number | null> {
    const trimmed = secret.trim();
    if (!trimmed || trimmed.length > 100) return null;
    if (purpose === "second-factor" && userId === undefined) throw new Error("A code is checked for a user");
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
  return sha256Hex(purpose === "second-factor" ? `${purpose}:${userId}:${secret}` : `${purpose}:${secret}`);
}
