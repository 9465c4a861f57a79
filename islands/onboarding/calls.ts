/**
 * The onboarding calls: the profile and the identity check. Their contract
 * (lib/contracts/onboarding.ts) is not written yet: until it is, each call's shape is written
 * here, as docs/API.md describes it.
 */
import type { SessionUser } from "../../lib/session-user.ts";
import { call } from "../lib/api.ts";
import type { Values } from "./profile-context.ts";

export const saveProfile = call<{ method: "POST"; path: "/account/profile"; body: Values; answer: SessionUser }>(
  "POST",
  "/account/profile",
);

/** The sandbox provider's answers, as POST sumsub/sandbox takes them. */
export type SandboxAnswer = { answer: "GREEN" } | { answer: "RED"; reject_type: "RETRY" | "FINAL" };

export const answerSandbox = call<
  { method: "POST"; path: "/sumsub/sandbox"; body: SandboxAnswer; answer: { status: string } }
>("POST", "/sumsub/sandbox");

/** Approved: the customer, and a redirect to /auth; 409 pending, 422 retry, 403 rejected. */
export const confirmIdentity = call<{ method: "GET"; path: "/sumsub/confirm"; answer: SessionUser }>(
  "GET",
  "/sumsub/confirm",
);

export const identityToken = call<
  { method: "GET"; path: "/sumsub/token"; answer: { kind: "sandbox" } | { kind: "sumsub"; accessToken: string } }
>("GET", "/sumsub/token");
