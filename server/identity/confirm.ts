import type { Database } from "../../db/client.ts";
import { Conflict, InvalidInput, NotFound, ProviderFailed, Refused } from "../errors.ts";
import type { IdentityProvider, IdentityStatus, StartedCheck } from "./provider.ts";
import { confirmResult } from "./index.ts";
import { sandboxAnswer } from "./sandbox.ts";
import { declaredIdentityOf } from "./document.ts";
import { readStoredCheck, recordResult } from "./store.ts";
import { log } from "../log.ts";

/** What the identity page's calls do: the sandbox's answer, and confirming the provider's result. */

const FALLBACK = "An error occurred. Please try again later";

/**
 * sumsub/confirm: asks the provider for the customer's result and records it. Only an approval
 * returns; anything else is the refusal the customer reads: still in progress, try again (with the
 * provider's comment), or rejected. A provider that cannot be reached is logged and answered with
 * the general failure text.
 */
export async function confirmIdentity(
  db: Database,
  provider: IdentityProvider,
  userId: number,
  now: Date,
  /** Where to write to us (SUPPORT_EMAIL), named in a rejection. */
  supportEmail: string,
): Promise<void> {
  let result;
  try {
    result = await confirmResult(db, provider, userId, now);
  } catch (error) {
    log.warn("identity: reading the result failed", { error });
    throw new ProviderFailed(FALLBACK);
  }
  switch (result.status) {
    case "pending":
      throw new Conflict("Your identity check is still in progress.");
    case "retry":
      throw new InvalidInput(result.moderationComment || "We could not confirm your identity. Please try again.");
    case "rejected":
      throw new Refused(
        result.moderationComment || `We could not verify your identity. Please write to us at ${supportEmail}.`,
      );
  }
}

/**
 * sumsub/token: starts the customer's check on the identity they declared (decision 085): the
 * provider is given the profile's name, date of birth and country, and the check is recorded as
 * in progress, which locks those fields of the profile for the customer (server/profile/store.ts).
 */
export async function startIdentityCheck(
  db: Database,
  provider: IdentityProvider,
  customer: { id: number; username: string },
  now: Date,
): Promise<StartedCheck> {
  const declared = await declaredIdentityOf(db, customer.id);
  if (!declared) throw new Conflict("Save your profile before the identity check.");
  const started = await provider.startCheck({ ...customer, declared });
  if (provider.name === "sumsub" && !(await readStoredCheck(db, customer.id))) {
    await recordResult(db, customer.id, provider.name, { status: "pending" }, now);
  }
  return started;
}

/** POST sumsub/sandbox: the sandbox's answer for the customer, only while the sandbox is the provider. */
export async function answerAsSandbox(
  db: Database,
  provider: IdentityProvider,
  userId: number,
  answer: "GREEN" | "RED",
  options: { rejectType?: "RETRY" | "FINAL"; document?: "profile" | "another"; now: Date },
): Promise<IdentityStatus> {
  if (provider.name !== "sandbox") throw new NotFound("The sandbox identity provider is off.");
  const { result } = await sandboxAnswer(db, userId, answer, options);
  return result.status;
}
