import { Hono } from "hono";
import type { Context } from "hono";
import * as calls from "../../lib/contracts/onboarding.ts";
import { customerOf as customerOrNull } from "../../server/accounts/current.ts";
import { openAtOnceIfEligible } from "../../server/accounts/onboarding.ts";
import { sessionSummary } from "../../server/auth/users.ts";
import type { AppEnv } from "../../server/env.ts";
import { Refused } from "../../server/errors.ts";
import { reply, route } from "../../server/http/route.ts";
import { answerAsSandbox, confirmIdentity, startIdentityCheck } from "../../server/identity/confirm.ts";
import { acceptWebhook } from "../../server/identity/webhook.ts";
import { emailIdentityVerdict } from "../../server/identity/outcome-email.ts";
import { saveProfile } from "../../server/profile/store.ts";

/** Onboarding (DESIGN.md section 3): the profile, the identity check, and the provider's webhook. */

/** The customer of the request (the guards have required one). */
const customerOf = (c: Context<AppEnv>) => customerOrNull(c)!;
const now = (c: Context<AppEnv>) => new Date(c.get("services").now());

export const onboarding = new Hono<AppEnv>();

route(onboarding, calls.saveProfile, async (c, { body }) => {
  const customer = customerOf(c);
  await saveProfile(c.get("db"), customer, body, now(c), c.get("config").supportEmail);
  return reply(await sessionSummary(c.get("db"), customer.id, customer.secondFactor), { redirect: "/identity" });
});

/** The identity check is the person's own: staff acting on behalf neither start it nor answer it (decision 079). */
function refuseOnBehalf(c: Context<AppEnv>): void {
  if (c.get("onBehalf")) throw new Refused(calls.IDENTITY_CHECK_IS_THEIRS);
}

route(onboarding, calls.startIdentityCheck, async (c) => {
  refuseOnBehalf(c);
  const { id, username } = customerOf(c);
  return await startIdentityCheck(c.get("db"), c.get("services").identity, { id, username }, now(c));
});

route(onboarding, calls.answerSandbox, async (c, { body }) => {
  refuseOnBehalf(c);
  const status = await answerAsSandbox(c.get("db"), c.get("services").identity, customerOf(c).id, body.answer, {
    rejectType: body.reject_type,
    document: body.document,
    now: now(c),
  });
  return { status };
});

route(onboarding, calls.confirmIdentity, async (c) => {
  const customer = customerOf(c);
  const { identity, mailer } = c.get("services");
  await confirmIdentity(c.get("db"), identity, customer.id, now(c), c.get("config").supportEmail);
  await openAtOnceIfEligible({ db: c.get("db"), mailer, publicUrl: c.get("config").publicUrl }, customer.id, now(c));
  return reply(await sessionSummary(c.get("db"), customer.id, customer.secondFactor), { redirect: "/auth" });
});

route(onboarding, calls.sumsubWebhook, async (c) => {
  const outcome = await acceptWebhook(
    c.get("db"),
    {
      // The digest signs these exact bytes: the body is read raw, never re-serialised.
      rawBody: new Uint8Array(await c.req.arrayBuffer()),
      digest: c.req.header("x-payload-digest"),
      alg: c.req.header("x-payload-digest-alg"),
    },
    c.get("config").sumsub?.webhookSecret,
    now(c),
    c.get("services").identity,
    emailIdentityVerdict({
      db: c.get("db"),
      mailer: c.get("services").mailer,
      publicUrl: c.get("config").publicUrl,
      supportEmail: c.get("config").supportEmail,
      now: now(c),
    }),
  );
  return { ok: true, outcome } as const;
});
