import { eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { users, webhookEvents } from "../../db/schema.ts";
import { InvalidInput, NotFound, ProviderFailed, Unauthenticated } from "../errors.ts";
import { log } from "../log.ts";
import type { DocumentDetails } from "./document.ts";
import {
  type IdentityProvider,
  parseSumsubDate,
  reviewToResult,
  type SumsubReviewResult,
  userIdFromExternal,
} from "./provider.ts";
import { decide, readStoredCheck, type StoredCheck, writeResult } from "./store.ts";

/**
 * Sumsub's webhooks (https://docs.sumsub.com/docs/webhooks). Each delivery carries
 *   X-Payload-Digest      hex HMAC of the raw request body, keyed with the webhook's secret key
 *   X-Payload-Digest-Alg  HMAC_SHA1_HEX | HMAC_SHA256_HEX | HMAC_SHA512_HEX
 * The portal acts on applicantReviewed only; other types are acknowledged and ignored.
 */

/** An applicantReviewed (or other) webhook body, as Sumsub sends it. */
export interface SumsubWebhookEvent {
  type: string;
  applicantId?: string;
  inspectionId?: string;
  correlationId?: string;
  externalUserId?: string;
  levelName?: string;
  reviewStatus?: string;
  reviewResult?: SumsubReviewResult;
  /** When Sumsub created the event, e.g. "2020-02-21 13:23:19.321" (UTC); orders the events. */
  createdAtMs?: string | number;
  createdAt?: string;
  sandboxMode?: boolean;
  [key: string]: unknown;
}

/** X-Payload-Digest-Alg → WebCrypto hash, and the digest's length in bytes. */
const ALGORITHMS = new Map<string, { hash: "SHA-1" | "SHA-256" | "SHA-512"; bytes: number }>([
  ["HMAC_SHA1_HEX", { hash: "SHA-1", bytes: 20 }],
  ["HMAC_SHA256_HEX", { hash: "SHA-256", bytes: 32 }],
  ["HMAC_SHA512_HEX", { hash: "SHA-512", bytes: 64 }],
]);

const encoder = new TextEncoder();

function hexToBytes(text: string): Uint8Array<ArrayBuffer> | null {
  if (text.length === 0 || text.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(text)) return null;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/**
 * Whether a delivery really comes from Sumsub: X-Payload-Digest must be the hex HMAC of the exact
 * raw body (bytes as received; a string is taken as UTF-8) with the webhook secret, by the
 * algorithm X-Payload-Digest-Alg names. Missing headers, a missing secret, an algorithm name other
 * than the three Sumsub documents, or a digest that is not hex of the right length: false.
 * The comparison is WebCrypto's HMAC verify, which does not leak where the digests differ.
 */
export async function verifyWebhook(
  rawBody: Uint8Array | string,
  headers: { digest?: string | null; alg?: string | null },
  secret: string | undefined | null,
): Promise<boolean> {
  if (!secret || !headers.digest || !headers.alg) return false;
  const algorithm = ALGORITHMS.get(headers.alg.trim());
  if (!algorithm) return false;
  const { hash, bytes } = algorithm;
  const expected = hexToBytes(headers.digest.trim());
  if (!expected || expected.length !== bytes) return false;
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash }, false, ["verify"]);
  const body = typeof rawBody === "string" ? encoder.encode(rawBody) : new Uint8Array(rawBody);
  return await crypto.subtle.verify("HMAC", key, expected, body);
}

/** The JSON object of a webhook body, or null when it is not one. */
export function parseWebhookEvent(rawBody: Uint8Array | string): SumsubWebhookEvent | null {
  try {
    const text = typeof rawBody === "string" ? rawBody : new TextDecoder("utf-8", { fatal: true }).decode(rawBody);
    const value = JSON.parse(text);
    if (!value || typeof value !== "object" || Array.isArray(value) || typeof value.type !== "string") return null;
    return value as SumsubWebhookEvent;
  } catch {
    return null;
  }
}

/**
 * The id under which an event is remembered in webhook_events: type, applicant, correlationId and
 * createdAtMs, which Sumsub repeats unchanged when it re-sends a delivery, and which differ from
 * one review to the next. (Built from fields rather than from a digest of the raw body, so that a
 * re-send that is serialised differently is still the same event.) An event with neither a
 * correlationId nor a createdAtMs falls back to the SHA-256 of its JSON.
 */
export async function webhookEventId(event: SumsubWebhookEvent): Promise<string> {
  if (event.correlationId || event.createdAtMs !== undefined) {
    return ["sumsub", event.type, event.applicantId ?? "", event.correlationId ?? "", String(event.createdAtMs ?? "")]
      .join("|");
  }
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(JSON.stringify(event)));
  return `sumsub|sha256|${Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/**
 * What applying an event did:
 * - "applied": the check was updated and the event remembered;
 * - "duplicate": this event was applied before; nothing changed;
 * - "stale": the stored review is newer than this event; nothing changed;
 * - "unknown-user": externalUserId is not one of our users; nothing changed;
 * - "ignored": not an applicantReviewed event, or one without a completed review (or a
 *   pending one over a final verdict); nothing changed;
 * - "future": dated more than CLOCK_SKEW_MS ahead of our clock; nothing changed. Kept, it would make
 *   every genuine review after it look older than the stored one (decision 023).
 * Only "applied" events are remembered, so every other outcome is the same on a re-delivery.
 */
/**
 * Acts on a new verdict once committed, for a customer who left the identity page long before it
 * arrived: an approval opens the account of one who needs no review (and emails them), a verdict
 * that asks something of them (try again) or ends their application (refused) is emailed
 * (server/identity/outcome-email.ts, from the route; decision 088).
 */
export type TellCustomer = (check: StoredCheck) => Promise<void>;

export type ApplyOutcome = "applied" | "duplicate" | "stale" | "unknown-user" | "ignored" | "future";

/** How far ahead of our clock a provider's clock may be: 5 minutes. */
export const CLOCK_SKEW_MS = 5 * 60 * 1000;

class Outcome extends Error {
  constructor(readonly outcome: ApplyOutcome) {
    super(outcome);
  }
}

/**
 * Applies a verified applicantReviewed event to identity_checks, in one write transaction: the
 * event id is claimed first (a duplicate stops there), then the user is found from externalUserId
 * ("portal-<id>"), then the event time (createdAtMs; `now` when absent) is compared with the
 * stored review time: an older event is stale. Otherwise status (reviewToResult), moderation
 * comment, review time and applicantId are written. An approval carries what the provider read from
 * the document (`readDocument`, asked before the transaction: the event itself has no such data), to
 * be compared with the profile (decision 085); without it nothing proves the document is the
 * profile's person, and the customer waits for the review.
 */
export async function applyReviewEvent(
  db: Database,
  event: SumsubWebhookEvent,
  now: Date = new Date(),
  readDocument?: (userId: number) => Promise<DocumentDetails | undefined>,
  tell?: TellCustomer,
): Promise<ApplyOutcome> {
  if (event.type !== "applicantReviewed") return "ignored";
  const review = reviewToResult({ reviewStatus: event.reviewStatus, reviewResult: event.reviewResult });
  if (review.status === "pending") return "ignored";
  const result = {
    ...review,
    reviewedAt: parseSumsubDate(event.createdAtMs) ?? parseSumsubDate(event.createdAt) ?? now,
    ...(typeof event.applicantId === "string" && event.applicantId ? { applicantId: event.applicantId } : {}),
  };
  if (result.reviewedAt.getTime() > now.getTime() + CLOCK_SKEW_MS) return "future";
  const id = await webhookEventId(event);
  const userId = userIdFromExternal(event.externalUserId);
  const document = review.status === "approved" && userId !== null && readDocument
    ? await readDocument(userId)
    : undefined;
  /** A verdict the customer must hear of, once committed (a new one: not the same verdict again). */
  let verdict = null as StoredCheck | null;
  try {
    const outcome = await db.transaction(async (tx) => {
      const claimed = await tx.insert(webhookEvents).values({ id, receivedAt: now }).onConflictDoNothing()
        .returning({ id: webhookEvents.id });
      if (claimed.length === 0) return "duplicate";
      if (userId === null) throw new Outcome("unknown-user");
      const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).limit(1);
      if (!user) throw new Outcome("unknown-user");
      const existing = await readStoredCheck(tx, userId);
      const decision = decide(existing, "sumsub", result);
      if (decision === "stale") throw new Outcome("stale");
      if (decision === "keep") throw new Outcome("ignored");
      const row = await writeResult(tx, userId, "sumsub", document ? { ...result, document } : result, existing, now);
      const news = row.status !== existing?.status || row.moderationComment !== existing?.moderationComment;
      if (row.status !== "pending" && news) verdict = row;
      return "applied" as const;
    });
    if (verdict && tell) await tell(verdict);
    return outcome;
  } catch (err) {
    // Thrown only to roll the claimed event id back: the event changed nothing.
    if (err instanceof Outcome) return err.outcome;
    throw err;
  }
}

/**
 * The whole webhook in one call, for the route: "unverified" (answer 401), "malformed" (400), or
 * what applying did (200 in every case, so that Sumsub does not re-send it).
 */
export async function receiveWebhook(
  db: Database,
  delivery: { rawBody: Uint8Array | string; digest?: string | null; alg?: string | null },
  secret: string | undefined | null,
  now: Date = new Date(),
  provider?: IdentityProvider,
  tell?: TellCustomer,
): Promise<ApplyOutcome | "unverified" | "malformed"> {
  if (!(await verifyWebhook(delivery.rawBody, delivery, secret))) return "unverified";
  const event = parseWebhookEvent(delivery.rawBody);
  if (!event) return "malformed";
  return await applyReviewEvent(
    db,
    event,
    now,
    provider && (async (userId) => {
      try {
        return (await provider.readResult(userId)).document;
      } catch (error) {
        // Answered as a failure so that Sumsub sends the event again, rather than an approval with
        // nothing to compare (which would send the customer to the review for a network fault).
        log.warn("identity: reading the document's data for a webhook failed", { error });
        throw new ProviderFailed("The applicant's data could not be read from the identity provider.");
      }
    }),
    tell,
  );
}

/**
 * POST sumsub/webhook: a delivery that is not signed with the webhook secret is 401, one that is
 * signed but not an event, or dated in the future, is 422; otherwise what applying it did (answered 200 in every case, so
 * that Sumsub does not send it again). Without a secret the webhook does not exist.
 */
export async function acceptWebhook(
  db: Database,
  delivery: { rawBody: Uint8Array; digest?: string | null; alg?: string | null },
  secret: string | undefined,
  now: Date,
  provider?: IdentityProvider,
  tell?: TellCustomer,
): Promise<Exclude<ApplyOutcome, "future">> {
  if (!secret) throw new NotFound("Webhooks are not configured.");
  const outcome = await receiveWebhook(db, delivery, secret, now, provider, tell);
  if (outcome === "unverified") throw new Unauthenticated("The payload digest does not match.");
  if (outcome === "malformed") throw new InvalidInput("The event could not be read.");
  if (outcome === "future") {
    throw new InvalidInput("The event is dated in the future (more than 5 minutes ahead of our clock).");
  }
  return outcome;
}
