/**
 * Onboarding (DESIGN.md section 3): the customer's profile, the identity check, and the identity
 * provider's webhook.
 */
import { z } from "zod";
import { defineCall } from "./define.ts";
import { sessionUser } from "./session-user.ts";

const ONBOARDING = ["loggedin", "is-verified", "secondfactor", "is-user"] as const;
const WITH_PROFILE = [...ONBOARDING, "has-profile"] as const;

export const identityStatus = z.enum(["pending", "approved", "retry", "rejected"]);

/**
 * What an administrator acting on behalf is told on the identity check's calls (403): the documents
 * and the selfie are the customer's own, sent from their own session, never by staff in their place.
 */
export const IDENTITY_CHECK_IS_THEIRS =
  "Only the customer can take their identity check: they sign in as themselves to do it.";

/**
 * The profile of the customer's type, every field of SPEC.md section 3. Its rules depend on the
 * customer's type and on today's date, so the server checks them when it saves (server/profile/
 * schema.ts: a 422 naming each failing field); the contract only requires an object.
 */
const profile = z.custom<Record<string, unknown>>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  { error: "Send the profile as an object." },
);

export const saveProfile = defineCall({
  method: "POST",
  path: "/account/profile",
  summary: "Saves the profile of the customer's type, until the identity check approves them (decision 071).",
  guards: ONBOARDING,
  body: profile,
  // The longest answers to every question, in a script of four bytes a character (decision 024).
  bodyLimit: 64 * 1024,
  answer: sessionUser,
});

export const startIdentityCheck = defineCall({
  method: "GET",
  path: "/sumsub/token",
  summary: "What the identity page needs to start the check: a WebSDK token for Sumsub, nothing for the sandbox; " +
    "403 to an administrator acting on behalf.",
  guards: WITH_PROFILE,
  answer: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("sumsub"), accessToken: z.string() }),
    z.object({ kind: z.literal("sandbox") }),
  ]),
});

export const answerSandbox = defineCall({
  method: "POST",
  path: "/sumsub/sandbox",
  summary: "Records the sandbox provider's answer for the customer (only while the sandbox is the provider); " +
    "403 to an administrator acting on behalf.",
  guards: WITH_PROFILE,
  body: z.object({
    answer: z.enum(["GREEN", "RED"], { error: "The answer is GREEN or RED." }),
    reject_type: z.enum(["RETRY", "FINAL"], { error: "reject_type is RETRY or FINAL." }).optional(),
    // Whose document a GREEN presents: the profile's person (default) or another's (decision 085).
    document: z.enum(["profile", "another"], { error: "document is profile or another." }).optional(),
  }),
  answer: z.object({ status: identityStatus }),
});

export const confirmIdentity = defineCall({
  method: "GET",
  path: "/sumsub/confirm",
  summary: "Reads the provider's result: approved opens an eligible Personal customer's account at once; " +
    "409 in progress, 422 retry, 403 rejected.",
  guards: WITH_PROFILE,
  answer: sessionUser,
});

/**
 * Sumsub's webhook. Its body is not declared: it is signed (X-Payload-Digest is the HMAC of the
 * exact bytes received), so the handler reads the raw body, verifies it, and only then parses it
 * (server/identity/webhook.ts). Parsing it first would check a re-serialised copy, not what was signed.
 */
export const sumsubWebhook = defineCall({
  method: "POST",
  path: "/sumsub/webhook",
  summary: "Sumsub's review events, signed by X-Payload-Digest; 401 for a bad digest, 422 for an event " +
    "dated more than 5 minutes ahead of our clock.",
  guards: [],
  signedBody: true,
  // An event is a few KB; its review comments are the provider's to size.
  bodyLimit: 64 * 1024,
  answer: z.object({
    ok: z.literal(true),
    outcome: z.enum(["applied", "duplicate", "stale", "unknown-user", "ignored"]),
  }),
});
