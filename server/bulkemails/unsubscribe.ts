import { eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { bulkEmails, marketingConsents } from "../../db/schema-bulkemails.ts";
import { users } from "../../db/schema.ts";
import { audit } from "../audit.ts";
import type { SecretBox } from "../auth/encryption.ts";
import { InvalidInput } from "../errors.ts";

/**
 * The unsubscribe link of a bulk email (decision 050). Its token is the customer's id (and the
 * email's) sealed with the app's secret box: AES-GCM authenticates what it seals, so a token
 * cannot be made or altered without APP_SECRET, and no sign-in is needed to use it. It does not
 * expire: a link in an old email must still work.
 */

const PURPOSE = "unsubscribe";

export async function unsubscribeToken(box: SecretBox, userId: number, bulkEmailId: number): Promise<string> {
  return await box.seal(new TextEncoder().encode(`${PURPOSE}:${userId}:${bulkEmailId}`));
}

export function unsubscribeUrl(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, "")}/unsubscribe?token=${encodeURIComponent(token)}`;
}

/** The customer and the email a token names, or null when it is not one of ours. */
export async function readUnsubscribeToken(box: SecretBox, token: string) {
  try {
    const [purpose, user, email] = new TextDecoder().decode(await box.open(token)).split(":");
    if (purpose !== PURPOSE) return null;
    return { userId: Number(user), bulkEmailId: Number(email) };
  } catch {
    return null;
  }
}

export const BAD_LINK = "This unsubscribe link is not valid: open it from the email again, or write to us.";

/**
 * Withdraws the marketing consent of the customer the token names: recorded on the customer, with
 * the email whose link they followed, and in their audit trail. Unsubscribing twice changes nothing
 * and answers the first time.
 */
export async function unsubscribe(db: Database, box: SecretBox, token: string, now: Date) {
  const named = await readUnsubscribeToken(box, token);
  if (!named) throw new InvalidInput(BAD_LINK, "token");
  return await db.transaction(async (tx) => {
    const [user] = await tx.select({ id: users.id, email: users.username }).from(users)
      .where(eq(users.id, named.userId));
    if (!user) throw new InvalidInput(BAD_LINK, "token");
    const [known] = await tx.select().from(marketingConsents).where(eq(marketingConsents.userId, user.id));
    if (known) return { email: user.email, unsubscribed_at: known.unsubscribedAt.toISOString() };
    const [email] = await tx.select({ id: bulkEmails.id }).from(bulkEmails).where(eq(bulkEmails.id, named.bulkEmailId));
    await tx.insert(marketingConsents).values({
      userId: user.id,
      unsubscribedAt: now,
      bulkEmailId: email ? named.bulkEmailId : null,
    });
    await audit(tx, {
      actor: user.id,
      subject: user.id,
      action: "marketing.unsubscribe",
      before: { marketing: true },
      after: { marketing: false, bulk_email: named.bulkEmailId },
    }, now);
    return { email: user.email, unsubscribed_at: now.toISOString() };
  });
}
