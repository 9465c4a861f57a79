import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { profiles } from "../../db/schema.ts";
import { customerOf as customerOrNull } from "../../server/accounts/current.ts";
import { openAccountFor, opensAtOnce } from "../../server/accounts/onboarding.ts";
import { userWithSummary } from "../../server/auth/users.ts";
import type { AppEnv } from "../../server/env.ts";
import { guards } from "../../server/guards.ts";
import { ApiError, ok } from "../../server/http/api.ts";
import { valid } from "../../server/http/validate.ts";
import { confirmResult, receiveWebhook, sandboxAnswer } from "../../server/identity/index.ts";
import { validateProfile } from "../../server/profile/schema.ts";

const FALLBACK = "An error occurred. Please try again later";

/** The customer of the request (guards have required one). */
const customerOf = (c: import("hono").Context<AppEnv>) => customerOrNull(c)!;

// One statement per route, never a chain: a chain's types pile up (decision 010).
export const onboarding = new Hono<AppEnv>();

onboarding.post("/account/profile", guards("loggedin", "is-verified", "secondfactor", "is-user"), async (c) => {
  const customer = customerOf(c);
  // Someone who joined an account through an invitation has one before their own onboarding is done.
  if (customer.account && customer.identity) {
    throw new ApiError(409, "Your account is open: contact us to change your profile.");
  }
  const input = await c.req.json().catch(() => null);
  const now = new Date(c.get("services").now());
  const result = validateProfile(customer.type, input, now);
  if (!result.ok) throw new ApiError(422, result.error, { fields: result.fields });
  await c.get("db").insert(profiles).values({
    userId: customer.id,
    type: customer.type,
    data: result.profile,
    createdAt: now,
    updatedAt: now,
  }).onConflictDoUpdate({ target: profiles.userId, set: { data: result.profile, updatedAt: now } });
  return ok(c, (await userWithSummary(c.get("db"), customer.id, customer.secondFactor))!.summary, {
    redirect: "/identity",
  });
});

onboarding.get(
  "/sumsub/token",
  guards("loggedin", "is-verified", "secondfactor", "is-user", "has-profile"),
  async (c) => {
    const customer = customerOf(c);
    return ok(c, await c.get("services").identity.startCheck({ id: customer.id, username: customer.username }));
  },
);

onboarding.post(
  "/sumsub/sandbox",
  guards("loggedin", "is-verified", "secondfactor", "is-user", "has-profile"),
  valid("json", z.object({ answer: z.enum(["GREEN", "RED"]), reject_type: z.enum(["RETRY", "FINAL"]).optional() })),
  async (c) => {
    if (c.get("services").identity.name !== "sandbox") throw new ApiError(404, "The sandbox identity provider is off.");
    const { answer, reject_type } = c.req.valid("json");
    const { result } = await sandboxAnswer(c.get("db"), customerOf(c).id, answer, {
      rejectType: reject_type,
      now: new Date(c.get("services").now()),
    });
    return ok(c, { status: result.status });
  },
);

onboarding.get(
  "/sumsub/confirm",
  guards("loggedin", "is-verified", "secondfactor", "is-user", "has-profile"),
  async (c) => {
    const customer = customerOf(c);
    const { identity, now } = c.get("services");
    let result;
    try {
      result = await confirmResult(c.get("db"), identity, customer.id, new Date(now()));
    } catch (error) {
      console.warn("[identity] reading the result failed", error);
      throw new ApiError(502, FALLBACK);
    }
    switch (result.status) {
      case "pending":
        throw new ApiError(409, "Your identity check is still in progress.");
      case "retry":
        throw new ApiError(422, result.moderationComment || "We could not confirm your identity. Please try again.");
      case "rejected":
        throw new ApiError(403, result.moderationComment || "We could not verify your identity. Please contact us.");
    }
    if (await opensAtOnce(c, customer.id)) await openAccountFor(c, customer.id, null);
    return ok(c, (await userWithSummary(c.get("db"), customer.id, customer.secondFactor))!.summary, {
      redirect: "/auth",
    });
  },
);

onboarding.post("/sumsub/webhook", async (c) => {
  const secret = c.get("config").sumsub?.webhookSecret;
  if (!secret) throw new ApiError(404, "Webhooks are not configured.");
  const outcome = await receiveWebhook(
    c.get("db"),
    {
      rawBody: new Uint8Array(await c.req.arrayBuffer()),
      digest: c.req.header("x-payload-digest"),
      alg: c.req.header("x-payload-digest-alg"),
    },
    secret,
    new Date(c.get("services").now()),
  );
  if (outcome === "unverified") throw new ApiError(401, "The payload digest does not match.");
  if (outcome === "malformed") throw new ApiError(400, "The event could not be read.");
  return ok(c, { ok: true, outcome });
});

/** The profile a customer saved, for the form to show again. */
export async function savedProfile(c: import("hono").Context<AppEnv>, userId: number) {
  const [row] = await c.get("db").select({ data: profiles.data }).from(profiles).where(eq(profiles.userId, userId));
  return row?.data ?? null;
}
