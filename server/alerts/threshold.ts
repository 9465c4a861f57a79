import { eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { consoleSettings } from "../../db/schema-console.ts";
import type { Tx } from "../../db/sql.ts";
import { audit } from "../audit.ts";

/**
 * The large-payment alert's threshold in pounds (decision 057): set in the console (audited), else
 * the environment's ALERT_PAYMENT_GBP. Read in the payment's transaction, one primary-key lookup.
 */
const KEY = "alert_payment_gbp";

export async function largePaymentThreshold(db: Database | Tx, fallback: number): Promise<number> {
  const [row] = await db.select({ value: consoleSettings.value }).from(consoleSettings)
    .where(eq(consoleSettings.key, KEY));
  return row ? Number(row.value) : fallback;
}

/** Sets the threshold (whole pounds), audited (`alerts.threshold`) in the same transaction. */
export async function setLargePaymentThreshold(
  db: Database,
  gbp: number,
  fallback: number,
  by: number,
  now: Date,
): Promise<{ gbp: number }> {
  await db.transaction(async (tx) => {
    const before = await largePaymentThreshold(tx, fallback);
    await tx.insert(consoleSettings).values({ key: KEY, value: String(gbp), updatedAt: now, updatedBy: by })
      .onConflictDoUpdate({ target: consoleSettings.key, set: { value: String(gbp), updatedAt: now, updatedBy: by } });
    await audit(tx, { actor: by, action: "alerts.threshold", before: { gbp: before }, after: { gbp } }, now);
  });
  return { gbp };
}
