import type { z } from "zod";
import { attributions, users } from "../../db/schema.ts";
import type { register } from "../../lib/contracts/auth.ts";
import { Conflict, InvalidInput, Unauthenticated } from "../errors.ts";
import { emailValidation } from "../mail/index.ts";
import { checkWithinLimit, spendWithinLimit } from "./attempts.ts";
import type { SignInDeps } from "./deps.ts";
import { hashPassword } from "./password.ts";
import { REGISTRATIONS_PER_ADDRESS, RESENDS_PER_USER, TOKEN_FAILURES } from "./rate-limit.ts";
import { findUser, findUserByUsername, markValidated, type UserRow } from "./users.ts";

/** Registering a customer and confirming their email address (SPEC.md section 3). */

const ALREADY_REGISTERED = "An account with this email already exists. Sign in instead.";

/** Emails a new validation link; the link opens /verify with the token. */
async function sendValidation(deps: SignInDeps, user: Pick<UserRow, "id" | "username">): Promise<void> {
  const secret = await deps.verifications.issue(user.id, "email-validation");
  const link = `${deps.publicUrl}/verify?token=${encodeURIComponent(secret)}`;
  await deps.mailer.send({
    to: user.username,
    userId: user.id,
    template: "email-validation",
    rendered: emailValidation({ link, token: secret }),
  });
}

/**
 * Creates a customer's sign-in, not yet validated, with where they came from, and emails the
 * validation link. At most REGISTRATIONS_PER_ADDRESS from one address.
 */
export async function registerCustomer(
  deps: SignInDeps,
  input: z.output<typeof register.body>,
  address: string,
): Promise<UserRow> {
  await spendWithinLimit(
    deps.limiter,
    `register:address:${address}`,
    REGISTRATIONS_PER_ADDRESS,
    "Too many registrations from here. Try again later.",
  );
  if (await findUserByUsername(deps.db, input.email)) throw new InvalidInput(ALREADY_REGISTERED, "email");
  const passwordHash = await hashPassword(input.password);
  const now = new Date(deps.now());
  const user = await deps.db.transaction(async (tx) => {
    const [created] = await tx.insert(users).values({
      username: input.email,
      passwordHash,
      type: input.type,
      referralCode: input.referral_code || null,
      createdAt: now,
    }).onConflictDoNothing().returning();
    if (!created) return null;
    const a = input.attribution ?? {};
    await tx.insert(attributions).values({
      userId: created.id,
      utmSource: a.utm_source || null,
      utmMedium: a.utm_medium || null,
      utmCampaign: a.utm_campaign || null,
      utmTerm: a.utm_term || null,
      utmContent: a.utm_content || null,
      // Only what the register page saw: the registering call's own Referer is always our register page.
      referrer: a.referrer || null,
      landingPath: a.landing_path || null,
      createdAt: now,
    });
    return created;
  });
  // Registered by someone else between the check and the insert.
  if (!user) throw new InvalidInput(ALREADY_REGISTERED, "email");
  await sendValidation(deps, user);
  return user;
}

/** Emails a new validation link to a user who has not confirmed their address yet. */
export async function resendValidation(deps: SignInDeps, userId: number): Promise<void> {
  const user = await findUser(deps.db, userId);
  if (!user) throw new Unauthenticated("Please sign in.");
  if (user.validated) throw new Conflict("Your email address is already confirmed.", { next: "/auth" });
  await spendWithinLimit(deps.limiter, `resend:${user.id}`, RESENDS_PER_USER);
  await sendValidation(deps, user);
}

/**
 * Confirms an email address with its emailed token and answers whose it is. Wrong tokens count
 * against the signed-in user when there is one, else against the address they come from.
 */
export async function validateEmail(
  deps: SignInDeps,
  token: string,
  from: { userId: number } | { address: string },
): Promise<number> {
  const key = "userId" in from ? `validate:user:${from.userId}` : `validate:address:${from.address}`;
  const userId = await checkWithinLimit(
    deps.limiter,
    key,
    TOKEN_FAILURES,
    () => deps.verifications.consume("email-validation", token),
  );
  await markValidated(deps.db, userId);
  return userId;
}
