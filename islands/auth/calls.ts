/** The sign-in and security calls, typed by their contracts (lib/contracts/auth.ts, security.ts, admin.ts). */
import type * as admin from "../../lib/contracts/admin.ts";
import type * as auth from "../../lib/contracts/auth.ts";
import type * as security from "../../lib/contracts/security.ts";
import { type AnswerOf, call } from "../lib/api.ts";

export const login = call<typeof auth.login>("POST", "/auth/login");
export const register = call<typeof auth.register>("POST", "/auth/register");
export const setup = call<typeof admin.setup>("POST", "/setup");
export const askPasswordReset = call<typeof auth.forgotPassword>("POST", "/auth/forgot");
export const resetPassword = call<typeof auth.resetPassword>("POST", "/auth/forgot/reset");
export const validateEmail = call<typeof auth.validateEmail>("POST", "/validation/validate");
export const resendValidation = call<typeof auth.resendValidation>("POST", "/validation/resend");
export const checkSecondFactor = call<typeof auth.challenge>("POST", "/challenge");
export const resendSecondFactor = call<typeof auth.resendCode>("POST", "/challenge/resend");
export const startTotp = call<typeof security.startAuthenticator>("POST", "/account/totp/setup");
export const enableTotp = call<typeof security.enableAuthenticator>("POST", "/account/totp/enable");
export const disableTotp = call<typeof security.disableAuthenticator>("DELETE", "/account/totp");
export const changePassword = call<typeof security.changePassword>("POST", "/account/password");

/** A new authenticator key, not in use until a code from the app confirms it. */
export type NewTotpKey = AnswerOf<typeof security.startAuthenticator>;
