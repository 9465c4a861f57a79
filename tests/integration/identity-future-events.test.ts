import { createHmac } from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, test } from "vitest";
import type { Database } from "../../db/client.ts";
import { identityChecks, users, webhookEvents } from "../../db/schema.ts";
import { confirmResult, type IdentityProvider } from "../../server/identity/index.ts";
import { acceptWebhook, applyReviewEvent, type SumsubWebhookEvent } from "../../server/identity/webhook.ts";
import { testDatabase } from "../helpers/db.ts";

/**
 * A review dated in the future would make every later genuine review look older, "stale", and be
 * ignored (issue 14, finding 7). Events dated more than 5 minutes ahead of our clock are refused
 * and change nothing; a provider's answer read from its API is never kept with a future date.
 */

const NOW = new Date("2026-03-01T10:00:00Z");
const SECRET = "webhook-secret";

let db: Database;
beforeAll(async () => {
  db = await testDatabase();
  await db.insert(users).values([1, 2, 3, 4].map((id) => ({ id, username: `user${id}@example.com` })));
});

const stored = async (userId: number) =>
  (await db.select().from(identityChecks).where(eq(identityChecks.userId, userId)))[0];

function review(userId: number, createdAtMs: string, answer: "GREEN" | "RED"): SumsubWebhookEvent {
  return {
    type: "applicantReviewed",
    applicantId: `applicant-${userId}`,
    correlationId: `req-${userId}-${createdAtMs}`,
    externalUserId: `portal-${userId}`,
    reviewStatus: "completed",
    reviewResult: answer === "GREEN" ? { reviewAnswer: "GREEN" } : { reviewAnswer: "RED", reviewRejectType: "FINAL" },
    createdAtMs,
  };
}

describe("webhook events dated ahead of our clock", () => {
  test("within 5 minutes (clock skew): applied", async () => {
    expect(await applyReviewEvent(db, review(1, "2026-03-01 10:04:59.000", "GREEN"), NOW)).toBe("applied");
  });

  test("beyond 5 minutes: refused, not remembered, and a later genuine review still applies", async () => {
    const forged = review(2, "2099-12-31 23:59:59.000", "GREEN");
    expect(await applyReviewEvent(db, forged, NOW)).toBe("future");
    expect(await stored(2)).toBeUndefined();
    // Not remembered: the same delivery, were it ever right, is not taken for a duplicate.
    expect((await db.select().from(webhookEvents)).map((row) => row.id).join()).not.toMatch(/2099/);

    expect(await applyReviewEvent(db, review(2, "2026-03-01 10:01:00.000", "RED"), NOW)).toBe("applied");
    expect((await stored(2)).status).toBe("rejected");
  });

  test("through the webhook call: 422, saying why", async () => {
    const body = JSON.stringify(review(3, "2026-03-01 10:05:01.000", "GREEN"));
    const digest = createHmac("sha256", SECRET).update(body).digest("hex");
    const refusal = await acceptWebhook(
      db,
      { rawBody: new TextEncoder().encode(body), digest, alg: "HMAC_SHA256_HEX" },
      SECRET,
      NOW,
    ).catch((error) => error);
    expect(refusal).toMatchObject({ kind: "invalid", message: expect.stringMatching(/in the future/) });
    expect(await stored(3)).toBeUndefined();
  });
});

test("a result read from the provider's API with a future date is kept with our time instead", async () => {
  const provider: IdentityProvider = {
    name: "sumsub",
    startCheck: () => Promise.resolve({ kind: "sandbox" }),
    readResult: () => Promise.resolve({ status: "retry", reviewedAt: new Date("2099-01-01T00:00:00Z") }),
  };
  await confirmResult(db, provider, 4, NOW);
  expect((await stored(4)).reviewedAt).toEqual(NOW);
  expect(await applyReviewEvent(db, review(4, "2026-03-01 10:02:00.000", "GREEN"), NOW)).toBe("applied");
});
