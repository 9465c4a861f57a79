/**
 * The sign-in and security calls. Their contracts (lib/contracts/auth.ts, security.ts) are not
 * written yet: until they are, each call's shape is written here, as docs/API.md describes it.
 */
import type { SessionUser } from "../../lib/session-user.ts";
import { call } from "../lib/api.ts";

type Post<P extends string, B, A> = { method: "POST"; path: P; body: B; answer: A };
type Sent = { sent: true };
type Ok = { ok: true };

export const login = call<Post<"/auth/login", { email: string; password: string }, SessionUser>>(
  "POST",
  "/auth/login",
);
export const register = call<
  Post<"/auth/register", {
    email: string;
    password: string;
    type: SessionUser["type"];
    referral_code?: string;
    attribution?: Record<string, string>;
  }, SessionUser>
>("POST", "/auth/register");
export const setup = call<Post<"/setup", { email: string; password: string }, Ok>>("POST", "/setup");
export const askPasswordReset = call<Post<"/auth/forgot", { username: string }, Sent>>("POST", "/auth/forgot");
export const resetPassword = call<
  Post<"/auth/forgot/reset", { username: string; token: string; password: string }, Ok>
>("POST", "/auth/forgot/reset");
export const validateEmail = call<Post<"/validation/validate", { token: string }, SessionUser>>(
  "POST",
  "/validation/validate",
);
export const resendValidation = call<Post<"/validation/resend", Record<never, never>, Sent>>(
  "POST",
  "/validation/resend",
);
export const checkSecondFactor = call<Post<"/challenge", { token: string }, SessionUser>>("POST", "/challenge");
export const resendSecondFactor = call<Post<"/challenge/resend", Record<never, never>, Sent>>(
  "POST",
  "/challenge/resend",
);
/** A new authenticator key, not in use until a code from the app confirms it. */
export interface NewTotpKey {
  secret: string;
  /** otpauth://… for the app. */
  uri: string;
}

export const startTotp = call<Post<"/account/totp/setup", Record<never, never>, NewTotpKey>>(
  "POST",
  "/account/totp/setup",
);
export const enableTotp = call<Post<"/account/totp/enable", { secret: string; code: string }, SessionUser>>(
  "POST",
  "/account/totp/enable",
);
export const disableTotp = call<{ method: "DELETE"; path: "/account/totp"; answer: SessionUser }>(
  "DELETE",
  "/account/totp",
);
