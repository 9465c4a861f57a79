import type { z } from "zod";
import { eq } from "drizzle-orm";
import { attributions, users } from "../../db/schema.ts";
import { partners } from "../../db/schema-partners.ts";
import { recordAssignment } from "../partners/assignments.ts";
import type { register } from "../../lib/contracts/auth.ts";
import { afterAnswer } from "../background.ts";
import { TOO_MANY_ATTEMPTS } from "../../lib/contracts/auth.ts";
import { Conflict, InvalidInput, TooMany, Unauthenticated } from "../errors.ts";
import { emailValidation, registrationAttempt } from "../mail/index.ts";
import { CODE_NO_LONGER_VALID, spendWithinLimit, wrongCode } from "./attempts.ts";
import type { SignInDeps } from "./deps.ts";
import { hashPassword } from "./password.ts";
import {
  ATTEMPT_NOTICES_PER_ACCOUNT,
  CODE_FAILURES,
  CODE_FAILURES_PER_DAY,
  REGISTRATIONS_PER_ADDRESS,
  RESENDS_PER_USER,
  TOKEN_FAILURES,
} from "./rate-limit.ts";
import type { Registration } from "./registration-cookie.ts";
import { findUser, findUserByUsername, markValidated, type UserRow } from "./users.ts";

/** Registering a customer and confirming their email address (SPEC.md section 3, decision 023). */

/**
 * Emails a new validation link and its 6-digit code (decision 039): the link opens /verify with the
 * token; the code is typed there, in the browser that registered or is signed in.
 */
async function sendValidation(deps: SignInDeps, user: Pick<UserRow, "id" | "username">): Promise<void> {
  const { token, code } = await deps.verifications.issueLinkAndCode(user.id);
  // A new code has every try again (decision 072); the day's count of wrong ones stays.
  await deps.limiter.clear(codeKey(`user:${user.id}`));
  const link = `${deps.publicUrl}/verify?token=${encodeURIComponent(token)}`;
  await deps.mailer.send({
    to: user.username,
    userId: user.id,
    template: "email-validation",
    rendered: emailValidation({ link, code }),
  });
}

/**
 * Tells the owner of an address that someone tried to register with it: at most
 * ATTEMPT_NOTICES_PER_ACCOUNT an hour. Registrations are limited per client address only, so
 * without it anyone with a few addresses could fill a customer's (or an administrator's) mailbox
 * with our mail. After the answer, as before: a spent limit changes nothing anyone can see.
 */
async function tellOwnerOfAttempt(deps: SignInDeps, owner: Pick<UserRow, "id" | "username">): Promise<void> {
  if (!(await deps.limiter.claim(`register-notice:account:${owner.id}`, ATTEMPT_NOTICES_PER_ACCOUNT))) return;
  await deps.mailer.send({
    to: owner.username,
    userId: owner.id,
    template: "registration-attempt",
    rendered: registrationAttempt({ signInLink: `${deps.publicUrl}/`, forgotLink: `${deps.publicUrl}/forgot` }),
  });
}

/**
 * Registers an address (at most REGISTRATIONS_PER_ADDRESS from one client address). A new address
 * gets a customer's sign-in, not yet validated, with where they came from, and its validation link.
 * An address that has an account gets nothing new: its owner is emailed instead, and nobody is
 * signed in. Both do the same work before answering (one Argon2 hash, the emails after the
 * answer), so neither the answer nor its time tells which it was (decision 023). Answers the user
 * created, or null.
 */
export async function registerCustomer(
  deps: SignInDeps,
  input: z.output<typeof register.body>,
  address: string,
): Promise<{ email: string; userId: number | null }> {
  await spendWithinLimit(
    deps.limiter,
    `register:address:${address}`,
    REGISTRATIONS_PER_ADDRESS,
    "Too many registrations from here. Try again later.",
  );
  const passwordHash = await hashPassword(input.password);
  const existing = await findUserByUsername(deps.db, input.email);
  const created = existing ? null : await createCustomer(deps, input, passwordHash);
  if (created) {
    afterAnswer("validation email", () => sendValidation(deps, created));
  } else {
    // Registered by someone else between the lookup and the insert: the same as existing.
    const owner = existing ?? await findUserByUsername(deps.db, input.email);
    if (owner) afterAnswer("registration attempt notice", () => tellOwnerOfAttempt(deps, owner));
    // As a new registration's, this one's code counts start afresh (decision 072): after the answer,
    // as the new one's validation email.
    afterAnswer("registration code counts", () => forgetCodeFailures(deps, `email:${input.email}`));
  }
  return { email: input.email, userId: created?.id ?? null };
}

/** The new user and where they came from, in one transaction; null if the address was taken meanwhile. */
async function createCustomer(
  deps: SignInDeps,
  input: z.output<typeof register.body>,
  passwordHash: string,
): Promise<UserRow | null> {
  const now = new Date(deps.now());
  return await deps.db.transaction(async (tx) => {
    // A partner's referral code makes the customer the partner's (decision 051); codes are kept in
    // capitals, and typed in any case. Any other code is kept as typed, for the affiliates screen.
    const code = input.referral_code || null;
    const [partner] = code
      ? await tx.select({ id: partners.id, code: partners.code }).from(partners)
        .where(eq(partners.code, code.toUpperCase()))
      : [];
    const [created] = await tx.insert(users).values({
      username: input.email,
      passwordHash,
      type: input.type,
      referralCode: partner?.code ?? code,
      affiliate: partner?.code ?? null,
      partnerId: partner?.id ?? null,
      createdAt: now,
    }).onConflictDoNothing().returning();
    if (!created) return null;
    // The partner's from sign-up, in the history the commissions read (decision 062).
    if (partner) {
      await recordAssignment(tx, { userId: created.id, partnerId: partner.id, startsAt: now, createdBy: created.id });
    }
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
}

/**
 * Emails the validation link again for this browser's registration (decision 023): to a new
 * address, a new link; to an address that had an account, the notice again, so that the answer
 * is the same. At most RESENDS_PER_USER for an address.
 */
export async function resendForRegistration(deps: SignInDeps, registration: Registration): Promise<void> {
  await spendWithinLimit(deps.limiter, `resend:email:${registration.email}`, RESENDS_PER_USER);
  const user = registration.userId ? await findUser(deps.db, registration.userId) : undefined;
  if (user) {
    if (!user.validated) afterAnswer("validation email", () => sendValidation(deps, user));
    return;
  }
  const owner = await findUserByUsername(deps.db, registration.email);
  if (owner) afterAnswer("registration attempt notice", () => tellOwnerOfAttempt(deps, owner));
  // The "new code" of a registration that names nobody: its tries start again, as a new code's do.
  afterAnswer("registration code counts", () => deps.limiter.clear(codeKey(`email:${registration.email}`)));
}

/**
 * The user this browser registered, when their address has since been confirmed (the emailed
 * link opened on another device, decision 077), else null. Only the registration's own user is
 * looked up, and for a registration that names nobody the same look-up is made for nobody (ids
 * start at 1), so that both take the same work (decision 023). It signs nobody in: the caller
 * sends the browser to sign in with the password and the second factor.
 */
export async function confirmedElsewhere(
  deps: Pick<SignInDeps, "db">,
  registration: Registration | null,
): Promise<number | null> {
  if (!registration) return null;
  const user = await findUser(deps.db, registration.userId ?? 0);
  return user?.validated ? user.id : null;
}

/**
 * The user whose address a validation link confirmed already, when the link is opened again (a
 * second click in the email, or after typing the code that came with it), else null. A link that
 * lapsed before its user confirmed, or a code, is null: those need a new link.
 */
export async function confirmedByLink(
  deps: Pick<SignInDeps, "db" | "verifications">,
  typed: string,
): Promise<number | null> {
  if (SHORT_CODE.test(typed.replace(/\s+/g, ""))) return null;
  const owner = await deps.verifications.ownerOfLink("email-validation", typed);
  const user = owner === null ? undefined : await findUser(deps.db, owner);
  return user?.validated ? user.id : null;
}

/** Emails a new validation link to a user who has not confirmed their address yet. */
export async function resendValidation(deps: SignInDeps, userId: number): Promise<void> {
  const user = await findUser(deps.db, userId);
  if (!user) throw new Unauthenticated("Please sign in.");
  if (user.validated) throw new Conflict("Your email address is already confirmed.", { next: "/auth" });
  await spendWithinLimit(deps.limiter, `resend:${user.id}`, RESENDS_PER_USER);
  await sendValidation(deps, user);
}

/** Six digits, spaces allowed ("123 456"): the emailed code, not a link's token. */
const SHORT_CODE = /^\d{6}$/;

/** Whose validation code is typed: `user:<id>`, or `email:<address>` for a registration that names nobody. */
type CodeOwner = `user:${number}` | `email:${string}`;
/** Wrong tries at the current code (CODE_FAILURES), cleared when a new code is issued. */
const codeKey = (owner: CodeOwner) => `validate-code:${owner}`;
/** Wrong codes of the day (CODE_FAILURES_PER_DAY), across new codes. */
const codesOfTheDayKey = (owner: CodeOwner) => `validate-codes:${owner}`;

/** Forgets both counts of codes (after a success, or for a new registration that names nobody). */
async function forgetCodeFailures(deps: SignInDeps, owner: CodeOwner): Promise<void> {
  await deps.limiter.clear(codeKey(owner));
  await deps.limiter.clear(codesOfTheDayKey(owner));
}

/**
 * Confirms an email address with its emailed link token or 6-digit code and answers whose it is.
 * A code is checked only for the user it can belong to: the signed-in one, or the one this
 * browser registered (`registration`); a registration of an address that had an account names
 * nobody, so its code is never right, as an unknown one. Wrong ones count against the signed-in
 * user when there is one, else against the address they come from, and are refused on the page
 * with the tries left (decision 039). Using the link retires the code, and the code the link.
 *
 * A code is also limited for its user from anywhere (decision 072): the `registration` cookie works
 * from any address, so a limit per address alone gave each new address fresh guesses. The third
 * wrong try retires the code (the customer asks for a new one), and 10 wrong codes in a day stop
 * codes for a day; the link, unguessable, is not limited so. A registration that names nobody
 * is counted the same way under its address, so that both answer alike (decision 023).
 */
export async function validateEmail(
  deps: SignInDeps,
  typed: string,
  from: { userId: number } | { address: string; registration: Registration | null },
): Promise<number> {
  const key = "userId" in from ? `validate:user:${from.userId}` : `validate:address:${from.address}`;
  const code = typed.replace(/\s+/g, "");
  const isCode = SHORT_CODE.test(code);
  const owner = "userId" in from ? from.userId : from.registration?.userId ?? null;
  const whose: CodeOwner | null = "userId" in from
    ? `user:${from.userId}`
    : from.registration
    ? (from.registration.userId ? `user:${from.registration.userId}` : `email:${from.registration.email}`)
    : null;

  const claimed = await deps.limiter.attempt(key, TOKEN_FAILURES);
  if (!claimed.allowed) throw new TooMany(TOO_MANY_ATTEMPTS);
  let left = claimed.left;
  let codeLeft: number | null = null;
  let dayLeft: number | null = null;
  if (isCode && whose) {
    // The code first: a try at a code already retired is refused without spending the day's tries
    // (a double submit, or a retry of the same wrong code, would otherwise pause codes for a day).
    const current = await deps.limiter.attempt(codeKey(whose), CODE_FAILURES);
    if (!current.allowed) throw new InvalidInput(CODE_RETIRED, "token");
    const day = await deps.limiter.attempt(codesOfTheDayKey(whose), CODE_FAILURES_PER_DAY);
    if (!day.allowed) throw new TooMany(CODES_PAUSED);
    codeLeft = current.left;
    dayLeft = day.left;
    left = Math.min(left, current.left);
  }

  const userId = isCode
    // Nobody to check for: the same look-up for no user (ids start at 1), so that the answer
    // takes the same time as for a new registration's wrong code (decision 023).
    ? await deps.verifications.consume("email-validation-code", code, owner ?? 0)
    : await deps.verifications.consume("email-validation", typed);
  if (userId === null) {
    if (dayLeft === 0) throw new InvalidInput(CODES_PAUSED, "token");
    if (codeLeft === 0) {
      // For nobody too (ids start at 1): the same statement, so that both answers take the same work.
      await deps.verifications.retire(owner ?? 0, ["email-validation-code"]);
      throw new InvalidInput(CODE_RETIRED, "token");
    }
    // A code from an earlier email (a new link was asked for since) is said to be that, not wrong.
    // Looked up for nobody too (ids start at 1), so that both answers take the same work.
    const late = isCode && await deps.verifications.wasSent("email-validation-code", code, owner ?? 0);
    throw wrongCode("token", left, late ? CODE_NO_LONGER_VALID : isCode ? "That code is not right." : EXPIRED_LINK);
  }
  await deps.limiter.clear(key);
  await forgetCodeFailures(deps, `user:${userId}`);
  await deps.verifications.retire(userId, ["email-validation", "email-validation-code"]);
  await markValidated(deps.db, userId);
  return userId;
}

/** A validation code typed wrong too many times (decision 072): retired, a new one is needed. */
export const CODE_RETIRED = "That code no longer works after too many wrong tries: ask for a new one.";
/** Too many wrong validation codes in a day (decision 072): the link in the email still works. */
export const CODES_PAUSED = "Too many wrong codes today: open the link in the email, or try a code again tomorrow.";

/**
 * Said on the sign-in page to whoever confirmed the address where they are not signed in as its
 * user (the link opened on a phone), and to the browser that registered once it was (decision 077).
 */
export const CONFIRMED_SIGN_IN = {
  title: "Email address confirmed",
  description: "Sign in with your email address and password to continue.",
  color: "success",
} as const;

/** A validation link that no longer works. */
export const EXPIRED_LINK = "This link has expired or was already used: ask for a new one.";
