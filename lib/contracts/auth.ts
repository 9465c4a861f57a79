/**
 * The sign-in calls (SPEC.md sections 2, 3 and 8; decision 007): registering, validating the email
 * address, signing in with the password and the second factor, forgotten passwords, signing out.
 */
import { z } from "zod";
import { text } from "./common.ts";
import { defineCall } from "./define.ts";
import { labelled } from "./messages.ts";
import { sessionUser } from "./session-user.ts";

/** SPEC.md section 8: a wrong password, code or token is a 401 whose error is exactly this. */
export const BAD_CREDENTIALS = "Bad credentials";
/** What a limit on attempts answers (429). */
export const TOO_MANY_ATTEMPTS = "Too many attempts. Try again in 15 minutes.";
/** What a paused account answers (429, decision 023): the same whether or not the account exists. */
export const ACCOUNT_PAUSED = "Sign-in to this account is paused for an hour after many failed attempts from " +
  "several places. Use the link we emailed to its address, or sign in on a device you have used before.";

/** Passwords: 8 to 128 characters, no composition rules (NIST SP 800-63B). */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

/** The problem with a new password, in the customer's words; null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return `Password must be at least ${PASSWORD_MIN} characters.`;
  if (length > PASSWORD_MAX) return `Password must be at most ${PASSWORD_MAX} characters.`;
  return null;
}

/** A password being chosen: it must follow the rule. */
export const newPassword = text({
  label: "Password",
  max: PASSWORD_MAX,
  min: 0,
  secret: true,
  missing: "Password is required.",
}).superRefine((value, ctx) => {
  const problem = passwordProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

/**
 * An email address being registered, or asked a reset link for: trimmed and lower-cased, as
 * usernames are kept. Every username is one (registration, an administrator's invitation or
 * `admin:create`, a migration file all check it), so refusing what is not one tells nothing of who
 * has an account.
 */
export const newEmail = text({
  label: "Your email address",
  max: 254,
  missing: "Enter a valid email address.",
  wrong: "Enter a valid email address.",
}).toLowerCase().pipe(z.email({ error: "Enter a valid email address." }));

/** A username as typed to sign in: whatever it is, a wrong one is only "Bad credentials". */
const username = text({ label: "Your email address", max: 254, min: 0, missing: "Enter your email address." });

/** An emailed code or token as typed or opened from a link. */
const token = text({ label: "The code or token", max: 200, missing: "Enter the code or token." });

const attributionText = (label: string) => text({ label, max: 500, min: 0 }).optional();

export const sent = z.object({ sent: z.literal(true) });
export const done = z.object({ ok: z.literal(true) });

export const register = defineCall({
  method: "POST",
  path: "/auth/register",
  summary: "Registers an address and sends its validation link; an address that has an account gets the same " +
    "answer, and its owner a notice instead. Signs nobody in: the link, opened in this browser, does.",
  guards: [],
  body: z.object({
    email: newEmail,
    password: newPassword,
    type: z.enum(["Personal", "Business"], { error: "Choose Personal or Business." }),
    referral_code: text({ label: "The referral code", max: 64, min: 0 }).optional().nullable(),
    /** Marketing attribution: what the register page saw when the visitor arrived. */
    attribution: labelled(
      z.object({
        utm_source: attributionText("The utm_source"),
        utm_medium: attributionText("The utm_medium"),
        utm_campaign: attributionText("The utm_campaign"),
        utm_term: attributionText("The utm_term"),
        utm_content: attributionText("The utm_content"),
        referrer: attributionText("The referrer"),
        landing_path: attributionText("The landing path"),
      }),
      "The attribution",
    ).optional(),
  }),
  /** The address as it is kept, for "we sent a link to ...": the same answer whether or not it had an account. */
  answer: z.object({ email: z.string() }),
});

export const resendValidation = defineCall({
  method: "POST",
  path: "/validation/resend",
  summary: "Emails a new validation link: to the signed-in user (409 once the address is confirmed), or for this " +
    "browser's registration; 401 for anyone else.",
  guards: [],
  answer: sent,
});

export const validateEmail = defineCall({
  method: "POST",
  path: "/validation/validate",
  summary: "Confirms the email address with the emailed token; in the browser that registered, it also " +
    "passes the second factor and answers the user; anywhere else it answers null and sends to sign in.",
  guards: [],
  body: z.object({ token }),
  // The user only to the browser the answer signs in: a link opened elsewhere (a phone, an old
  // link from a browser's history or a forwarded email) confirms the address and tells nobody
  // whose it is (null).
  answer: sessionUser.nullable(),
});

export const login = defineCall({
  method: "POST",
  path: "/auth/login",
  summary: "Signs in with the password; the second factor is still to pass (a code is emailed unless the " +
    "user has an authenticator app). 429 after 5 failures from one address in 15 minutes, or while the account " +
    "is paused after 50 failures in an hour (decision 023).",
  guards: [],
  body: z.object({
    email: username,
    // An empty password is a 422 like any missing field, never an attempt (issue 14, finding 2).
    password: text({
      label: "Your password",
      max: 1000,
      secret: true,
      missing: "Enter your password.",
      wrong: "Enter your password.",
      tooLong: "Enter your password.",
    }),
  }),
  answer: sessionUser,
});

export const logout = defineCall({
  method: "POST",
  path: "/auth/logout",
  summary: "Ends this session.",
  guards: [],
  answer: done,
});

export const challenge = defineCall({
  method: "POST",
  path: "/challenge",
  summary: "Passes the second factor with the emailed code or the authenticator's. 429 after 5 failures from one " +
    "address, or while the account's codes are paused (decision 023).",
  guards: ["loggedin"],
  body: z.object({ token }),
  answer: sessionUser,
});

export const resendCode = defineCall({
  method: "POST",
  path: "/challenge/resend",
  summary: "Emails a new second-factor code (also to users with an authenticator app).",
  guards: ["loggedin"],
  answer: sent,
});

export const forgotPassword = defineCall({
  method: "POST",
  path: "/auth/forgot",
  summary: "Emails a link to choose a new password when the account exists; the answer is the same either way. " +
    "An empty address, or one that is not an address, is a 422 naming `username`.",
  guards: [],
  body: z.object({ username: newEmail }),
  answer: sent,
});

export const resetPassword = defineCall({
  method: "POST",
  path: "/auth/forgot/reset",
  summary: "Sets a new password with the emailed token; every session of the user ends.",
  guards: [],
  body: z.object({ username, token, password: newPassword }),
  answer: done,
});

export const whoami = defineCall({
  method: "GET",
  path: "/account/whoami",
  summary: "The signed-in user's session summary.",
  guards: ["loggedin"],
  answer: sessionUser,
});
