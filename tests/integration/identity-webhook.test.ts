import { createHmac } from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, test } from "vitest";
import type { Database } from "../../db/client.ts";
import { identityChecks, users, webhookEvents } from "../../db/schema.ts";
import {
  identityProvider,
  readStoredResult,
  recordResult,
  SANDBOX_RETRY_COMMENT,
  sandboxAnswer,
} from "../../server/identity/index.ts";
import {
  applyReviewEvent,
  receiveWebhook,
  type SumsubWebhookEvent,
  verifyWebhook,
} from "../../server/identity/webhook.ts";
import { testDatabase } from "../helpers/db.ts";

/**
 * Sumsub's applicantReviewed webhook: X-Payload-Digest is the hex HMAC of the raw body with the
 * webhook secret, by the algorithm X-Payload-Digest-Alg names (computed here with node:crypto);
 * applying is idempotent and ignores older events. Also the built-in sandbox provider.
 */

const SECRET = "webhook-secret-Kp2";

function digest(alg: "sha1" | "sha256" | "sha512", body: string | Buffer, secret = SECRET): string {
  return createHmac(alg, secret).update(body).digest("hex");
}

const ALG = { sha1: "HMAC_SHA1_HEX", sha256: "HMAC_SHA256_HEX", sha512: "HMAC_SHA512_HEX" } as const;

let db: Database;
beforeAll(async () => {
  db = await testDatabase();
  await db.insert(users).values(
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((id) => ({ id, username: `user${id}@example.com` })),
  );
});

async function check(userId: number) {
  const [row] = await db.select().from(identityChecks).where(eq(identityChecks.userId, userId));
  return row;
}

function reviewed(
  userId: number | string,
  createdAtMs: string,
  result: SumsubWebhookEvent["reviewResult"],
  extra: Partial<SumsubWebhookEvent> = {},
): SumsubWebhookEvent {
  return {
    applicantId: `5cb56e8e0a975a35f333cb${String(userId).padStart(2, "0")}`,
    inspectionId: "5cb56e8e0a975a35f333cb84",
    correlationId: `req-${userId}-${createdAtMs}`,
    externalUserId: typeof userId === "number" ? `portal-${userId}` : userId,
    levelName: "basic-kyc-level",
    type: "applicantReviewed",
    reviewResult: result,
    reviewStatus: "completed",
    createdAtMs,
    ...extra,
  };
}

describe("verifying X-Payload-Digest", () => {
  const body = JSON.stringify(reviewed(1, "2026-03-01 10:00:00.123", { reviewAnswer: "GREEN" }));

  for (const alg of ["sha1", "sha256", "sha512"] as const) {
    test(`a good ${ALG[alg]} digest of the raw body is accepted`, async () => {
      expect(await verifyWebhook(body, { digest: digest(alg, body), alg: ALG[alg] }, SECRET)).toBe(true);
      expect(await verifyWebhook(new TextEncoder().encode(body), { digest: digest(alg, body), alg: ALG[alg] }, SECRET))
        .toBe(true);
    });
  }

  test("the digest is over the exact bytes, non-ASCII included", async () => {
    const text = '{"type":"applicantReviewed","note":"Zoë — 東京 ✓"}';
    const bytes = Buffer.from(text, "utf8");
    expect(
      await verifyWebhook(new Uint8Array(bytes), { digest: digest("sha256", bytes), alg: "HMAC_SHA256_HEX" }, SECRET),
    ).toBe(true);
    // The same text read as Latin-1 is other bytes, and fails.
    expect(
      await verifyWebhook(new Uint8Array(bytes), {
        digest: digest("sha256", Buffer.from(text, "latin1")),
        alg: "HMAC_SHA256_HEX",
      }, SECRET),
    )
      .toBe(false);
  });

  test("a tampered body is rejected", async () => {
    const good = digest("sha256", body);
    const tampered = body.replace("GREEN", "RED");
    expect(tampered).not.toBe(body);
    expect(await verifyWebhook(tampered, { digest: good, alg: "HMAC_SHA256_HEX" }, SECRET)).toBe(false);
    expect(await verifyWebhook(body + " ", { digest: good, alg: "HMAC_SHA256_HEX" }, SECRET)).toBe(false);
  });

  test("another secret is rejected", async () => {
    expect(await verifyWebhook(body, { digest: digest("sha256", body, "other"), alg: "HMAC_SHA256_HEX" }, SECRET)).toBe(
      false,
    );
  });

  test("a wrong or unknown algorithm name is rejected", async () => {
    const d256 = digest("sha256", body);
    for (const alg of ["HMAC_SHA256", "SHA256", "hmac_sha256_hex", "HMAC_MD5_HEX", "constructor", "__proto__", ""]) {
      expect(await verifyWebhook(body, { digest: d256, alg }, SECRET)).toBe(false);
    }
    // A digest made with one algorithm but labelled as another.
    expect(await verifyWebhook(body, { digest: digest("sha1", body), alg: "HMAC_SHA256_HEX" }, SECRET)).toBe(false);
    expect(await verifyWebhook(body, { digest: digest("sha512", body), alg: "HMAC_SHA256_HEX" }, SECRET)).toBe(false);
  });

  test("missing headers, a missing secret or a digest that is not hex are rejected", async () => {
    const d = digest("sha256", body);
    expect(await verifyWebhook(body, { digest: null, alg: "HMAC_SHA256_HEX" }, SECRET)).toBe(false);
    expect(await verifyWebhook(body, { digest: d, alg: null }, SECRET)).toBe(false);
    expect(await verifyWebhook(body, { digest: d, alg: undefined }, SECRET)).toBe(false);
    expect(await verifyWebhook(body, {}, SECRET)).toBe(false);
    expect(await verifyWebhook(body, { digest: d, alg: "HMAC_SHA256_HEX" }, undefined)).toBe(false);
    expect(await verifyWebhook(body, { digest: d, alg: "HMAC_SHA256_HEX" }, "")).toBe(false);
    expect(await verifyWebhook(body, { digest: `${d.slice(0, -1)}z`, alg: "HMAC_SHA256_HEX" }, SECRET)).toBe(false);
    expect(await verifyWebhook(body, { digest: d.slice(0, -2), alg: "HMAC_SHA256_HEX" }, SECRET)).toBe(false);
  });
});

describe("applying applicantReviewed events", () => {
  test("an event updates the check: status, comment, review time and applicant id", async () => {
    const event = reviewed(1, "2026-03-01 10:00:00.123", { reviewAnswer: "GREEN" });
    expect(await applyReviewEvent(db, event, new Date("2026-03-01T10:00:01Z"))).toBe("applied");
    expect(await check(1)).toMatchObject({
      provider: "sumsub",
      status: "approved",
      moderationComment: null,
      reviewedAt: new Date("2026-03-01T10:00:00.123Z"),
      applicantId: event.applicantId,
      updatedAt: new Date("2026-03-01T10:00:01Z"),
    });
  });

  test("a replayed event is a duplicate and changes nothing", async () => {
    const event = reviewed(2, "2026-03-01 11:00:00.000", {
      reviewAnswer: "RED",
      reviewRejectType: "RETRY",
      moderationComment: "Please upload the back of your ID card.",
    });
    expect(await applyReviewEvent(db, event, new Date("2026-03-01T11:00:01Z"))).toBe("applied");
    const before = await check(2);
    expect(before).toMatchObject({ status: "retry", moderationComment: "Please upload the back of your ID card." });

    expect(await applyReviewEvent(db, structuredClone(event), new Date("2026-03-01T12:00:00Z"))).toBe("duplicate");
    expect(await check(2)).toEqual(before);
    const ids = await db.select().from(webhookEvents);
    expect(ids.filter((e) => e.id.includes("req-2-"))).toHaveLength(1);
  });

  test("the same delivery several times at once is applied once", async () => {
    const event = reviewed(3, "2026-03-01 12:00:00.000", { reviewAnswer: "GREEN" });
    const outcomes = await Promise.all([1, 2, 3, 4, 5].map(() => applyReviewEvent(db, structuredClone(event))));
    expect(outcomes.sort()).toEqual(["applied", "duplicate", "duplicate", "duplicate", "duplicate"]);
    expect(await check(3)).toMatchObject({ status: "approved" });
  });

  test("an older event after a newer one is stale and ignored", async () => {
    const newer = reviewed(4, "2026-03-02 09:00:00.500", {
      reviewAnswer: "RED",
      reviewRejectType: "FINAL",
      moderationComment: "We cannot verify your identity.",
      clientComment: "Document reported stolen",
    });
    const older = reviewed(4, "2026-03-02 08:59:59.999", { reviewAnswer: "GREEN" });
    expect(await applyReviewEvent(db, newer)).toBe("applied");
    expect(await applyReviewEvent(db, older)).toBe("stale");
    const row = await check(4);
    expect(row).toMatchObject({
      status: "rejected",
      moderationComment: "We cannot verify your identity.",
      reviewedAt: new Date("2026-03-02T09:00:00.500Z"),
    });
    expect(JSON.stringify(row)).not.toContain("stolen");
    // A stale event is not remembered: delivered again, it is still stale, not applied.
    expect(await applyReviewEvent(db, older)).toBe("stale");
  });

  test("a newer event after an older one is applied (retry, then approved)", async () => {
    await applyReviewEvent(
      db,
      reviewed(5, "2026-03-03 09:00:00.000", {
        reviewAnswer: "RED",
        reviewRejectType: "RETRY",
        moderationComment: "Blurry.",
      }),
    );
    expect(await applyReviewEvent(db, reviewed(5, "2026-03-03 10:00:00.000", { reviewAnswer: "GREEN" }))).toBe(
      "applied",
    );
    expect(await check(5)).toMatchObject({ status: "approved", moderationComment: null });
  });

  test("an unknown externalUserId is ignored and changes nothing", async () => {
    const countBefore = (await db.select().from(webhookEvents)).length;
    expect(await applyReviewEvent(db, reviewed(9999, "2026-03-01 10:00:00.000", { reviewAnswer: "GREEN" }))).toBe(
      "unknown-user",
    );
    expect(await applyReviewEvent(db, reviewed("someone-else-6", "2026-03-01 10:00:00.000", { reviewAnswer: "GREEN" })))
      .toBe("unknown-user");
    expect(
      await applyReviewEvent(
        db,
        reviewed(6, "2026-03-01 10:00:00.000", { reviewAnswer: "GREEN" }, { externalUserId: undefined }),
      ),
    )
      .toBe("unknown-user");
    expect(await check(9999)).toBeUndefined();
    expect(await check(6)).toBeUndefined();
    expect((await db.select().from(webhookEvents)).length).toBe(countBefore);
  });

  test("other event types and reviews not completed are ignored", async () => {
    expect(
      await applyReviewEvent(db, {
        ...reviewed(7, "2026-03-01 10:00:00.000", undefined),
        type: "applicantPending",
        reviewStatus: "pending",
      }),
    )
      .toBe("ignored");
    expect(
      await applyReviewEvent(db, {
        ...reviewed(7, "2026-03-01 10:00:00.000", { reviewAnswer: "GREEN" }),
        reviewStatus: "onHold",
      }),
    )
      .toBe("ignored");
    expect(await check(7)).toBeUndefined();
  });

  test("receiveWebhook: unverified, malformed, then applied", async () => {
    const body = JSON.stringify(reviewed(8, "2026-03-04 10:00:00.000", { reviewAnswer: "GREEN" }));
    expect(
      await receiveWebhook(
        db,
        { rawBody: body, digest: digest("sha256", body, "nope"), alg: "HMAC_SHA256_HEX" },
        SECRET,
      ),
    ).toBe("unverified");
    expect(
      await receiveWebhook(db, { rawBody: body, digest: digest("sha256", body), alg: "HMAC_SHA256_HEX" }, undefined),
    ).toBe("unverified");
    expect(await check(8)).toBeUndefined();
    expect(
      await receiveWebhook(
        db,
        { rawBody: "not json", digest: digest("sha512", "not json"), alg: "HMAC_SHA512_HEX" },
        SECRET,
      ),
    ).toBe("malformed");
    const bytes = new TextEncoder().encode(body);
    expect(await receiveWebhook(db, { rawBody: bytes, digest: digest("sha512", body), alg: "HMAC_SHA512_HEX" }, SECRET))
      .toBe("applied");
    expect(await receiveWebhook(db, { rawBody: bytes, digest: digest("sha1", body), alg: "HMAC_SHA1_HEX" }, SECRET))
      .toBe("duplicate");
    expect(await check(8)).toMatchObject({ status: "approved" });
  });
});

describe("recording results read from the provider", () => {
  test("a pending read never moves an approved check back to pending; an older read is ignored", async () => {
    await recordResult(db, 9, "sumsub", {
      status: "approved",
      reviewedAt: new Date("2026-03-05T10:00:00Z"),
      applicantId: "a9",
    });
    expect(await recordResult(db, 9, "sumsub", { status: "pending" })).toMatchObject({
      status: "approved",
      applicantId: "a9",
    });
    expect(
      await recordResult(db, 9, "sumsub", {
        status: "retry",
        moderationComment: "x",
        reviewedAt: new Date("2026-03-05T09:00:00Z"),
      }),
    )
      .toMatchObject({ status: "approved" });
    expect(await check(9)).toMatchObject({ status: "approved", moderationComment: null });
  });

  test("retry then pending (new documents sent) clears the comment but keeps the review time", async () => {
    await recordResult(db, 10, "sumsub", {
      status: "retry",
      moderationComment: "Blurry.",
      reviewedAt: new Date("2026-03-05T10:00:00Z"),
    });
    expect(await recordResult(db, 10, "sumsub", { status: "pending" })).toEqual({
      provider: "sumsub",
      status: "pending",
      reviewedAt: new Date("2026-03-05T10:00:00Z"),
    });
    // So the late webhook of that older review is still recognised as older.
    expect(await applyReviewEvent(db, reviewed(10, "2026-03-05 09:59:00.000", { reviewAnswer: "GREEN" }))).toBe(
      "stale",
    );
  });
});

describe("the sandbox provider", () => {
  const noSumsub = { sumsub: null };

  test("stands in without Sumsub settings; starting needs nothing", async () => {
    const provider = identityProvider(noSumsub, db);
    expect(provider.name).toBe("sandbox");
    expect(
      await provider.startCheck({
        id: 11,
        username: "user11@example.com",
        declared: { firstName: "Ada", lastName: "Lovelace", dob: "1990-05-17" },
      }),
    ).toEqual({ kind: "sandbox" });
    expect(await provider.readResult(11)).toEqual({ status: "pending" });
  });

  test("GREEN approves", async () => {
    const now = new Date("2026-03-06T10:00:00Z");
    expect(await sandboxAnswer(db, 11, "GREEN", { now })).toEqual({
      changed: true,
      result: { status: "approved", reviewedAt: now },
    });
    expect(await identityProvider(noSumsub, db).readResult(11)).toEqual({ status: "approved", reviewedAt: now });
    expect(await check(11)).toMatchObject({ provider: "sandbox", status: "approved", applicantId: null });
    // A decision that is final stands, as with Sumsub.
    expect(await sandboxAnswer(db, 11, "RED")).toMatchObject({ changed: false, result: { status: "approved" } });
  });

  test("RED gives retry with a comment; RED FINAL rejects", async () => {
    const { result } = await sandboxAnswer(db, 12, "RED");
    expect(result).toMatchObject({ status: "retry", moderationComment: SANDBOX_RETRY_COMMENT });
    expect(SANDBOX_RETRY_COMMENT).toMatch(/^Sandbox: /);
    expect(await readStoredResult(db, 12)).toMatchObject({
      provider: "sandbox",
      status: "retry",
      moderationComment: SANDBOX_RETRY_COMMENT,
    });

    const retried = await sandboxAnswer(db, 12, "RED", {
      rejectType: "FINAL",
      comment: "Sandbox: refused for the test.",
    });
    expect(retried).toMatchObject({
      changed: true,
      result: { status: "rejected", moderationComment: "Sandbox: refused for the test." },
    });
    expect(await identityProvider(noSumsub, db).readResult(12)).toMatchObject({ status: "rejected" });
  });

  test("a Sumsub verdict is not the sandbox's", async () => {
    // User 1 was approved by Sumsub above; the sandbox has recorded nothing for them.
    expect(await identityProvider(noSumsub, db).readResult(1)).toEqual({ status: "pending" });
  });
});
