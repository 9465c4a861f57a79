/** The onboarding calls, typed by their contract (lib/contracts/onboarding.ts). */
import type * as onboarding from "../../lib/contracts/onboarding.ts";
import { type BodyOf, call } from "../lib/api.ts";

export const saveProfile = call<typeof onboarding.saveProfile>("POST", "/account/profile");
export const answerSandbox = call<typeof onboarding.answerSandbox>("POST", "/sumsub/sandbox");
/** Approved: the customer, and a redirect to /auth; 409 pending, 422 retry, 403 rejected. */
export const confirmIdentity = call<typeof onboarding.confirmIdentity>("GET", "/sumsub/confirm");
export const identityToken = call<typeof onboarding.startIdentityCheck>("GET", "/sumsub/token");

/** One of the sandbox provider's answers, as POST sumsub/sandbox takes it. */
export type SandboxAnswer = BodyOf<typeof onboarding.answerSandbox>;
