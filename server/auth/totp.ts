import { decodeBase32IgnorePadding, encodeBase32UpperCaseNoPadding } from "@oslojs/encoding";
import { createTOTPKeyURI, generateHOTP } from "@oslojs/otp";
import { constantTimeEqual } from "./tokens.ts";

/** RFC 6238 with the usual parameters: SHA-1, 6 digits, a 30 s step, one step of drift either way. */
export const TOTP_STEP_S = 30;
const DIGITS = 6;
const DRIFT_STEPS = 1;

export function newTotpKey(): Uint8Array<ArrayBuffer> {
  return crypto.getRandomValues(new Uint8Array(20));
}

export function totpKeyText(key: Uint8Array): string {
  return encodeBase32UpperCaseNoPadding(key);
}

export function totpKeyFromText(text: string): Uint8Array {
  return decodeBase32IgnorePadding(text.replace(/\s+/g, "").toUpperCase());
}

/** The otpauth:// address an authenticator app reads from a QR code. */
export function totpUri(issuer: string, account: string, key: Uint8Array): string {
  return createTOTPKeyURI(issuer, account, key, TOTP_STEP_S, DIGITS);
}

/** The code of a time step (what an authenticator shows then): the HOTP of the step number. */
export function totpAt(key: Uint8Array, step: number): string {
  return generateHOTP(key, BigInt(step), DIGITS);
}

export function totpStepAt(nowMs: number): number {
  return Math.floor(nowMs / 1000 / TOTP_STEP_S);
}

/**
 * Checks a code against the current step and one step either side. Returns the step it matched,
 * or null. A step at or before `lastStep` is refused, so no code is accepted twice.
 */
export function verifyTotp(key: Uint8Array, code: string, nowMs: number, lastStep: number | null): number | null {
  const trimmed = code.replace(/\s+/g, "");
  if (!/^\d{6}$/.test(trimmed)) return null;
  const current = totpStepAt(nowMs);
  for (let step = current - DRIFT_STEPS; step <= current + DRIFT_STEPS; step++) {
    if (lastStep !== null && step <= lastStep) continue;
    if (constantTimeEqual(totpAt(key, step), trimmed)) return step;
  }
  return null;
}
