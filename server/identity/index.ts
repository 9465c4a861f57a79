import type { Database } from "../../db/client.ts";
import type { Config } from "../config.ts";
import type { IdentityProvider, IdentityResult, ProviderName } from "./provider.ts";
import { sandboxProvider } from "./sandbox.ts";
import { recordResult } from "./store.ts";
import { sumsubProvider } from "./sumsub.ts";
import { CLOCK_SKEW_MS } from "./webhook.ts";
import { SumsubClient } from "./sumsub-client.ts";

/**
 * The identity-check provider layer (DESIGN.md section 3, step 5). Routes use:
 * - identityProvider(config, db): Sumsub when SUMSUB_APP_TOKEN and SUMSUB_SECRET_KEY are set,
 *   else the built-in sandbox;
 * - provider.startCheck(user) for the identity page, confirmResult(db, provider, userId) for
 *   sumsub/confirm;
 * - receiveWebhook(db, delivery, config.sumsub.webhookSecret) for Sumsub's webhook;
 * - sandboxAnswer(db, userId, answer) for POST /api/sumsub/sandbox (only when the sandbox is on).
 */

export function identityProvider(
  config: Pick<Config, "sumsub">,
  db: Database,
  options: { fetch?: typeof fetch } = {},
): IdentityProvider {
  if (!config.sumsub) return sandboxProvider(db);
  const { appToken, secretKey, baseUrl, levelName } = config.sumsub;
  return sumsubProvider(new SumsubClient({ appToken, secretKey, baseUrl, fetch: options.fetch }), levelName);
}

/**
 * sumsub/confirm: asks the provider for the user's result and records it. Returns the check as
 * stored afterwards (an older or pending answer never undoes a newer or final one).
 */
export async function confirmResult(
  db: Database,
  provider: IdentityProvider,
  userId: number,
  now: Date = new Date(),
): Promise<IdentityResult & { provider: ProviderName }> {
  const result = await provider.readResult(userId);
  // A review date ahead of our clock would make later reviews look older (decision 023): the
  // answer is current, so it is kept with our time.
  const future = result.reviewedAt && result.reviewedAt.getTime() > now.getTime() + CLOCK_SKEW_MS;
  return await recordResult(db, userId, provider.name, future ? { ...result, reviewedAt: now } : result, now);
}

export {
  externalUserIdFor,
  type IdentityProvider,
  type IdentityResult,
  type IdentityStatus,
  parseSumsubDate,
  type ProviderName,
  reviewToResult,
  type StartedCheck,
  type SumsubReview,
  type SumsubReviewResult,
  userIdFromExternal,
} from "./provider.ts";
export { decide, readStoredResult, recordResult } from "./store.ts";
export {
  sign,
  type SumsubAccessToken,
  type SumsubApplicant,
  SumsubClient,
  type SumsubClientOptions,
  SumsubError,
} from "./sumsub-client.ts";
export {
  SANDBOX_FINAL_COMMENT,
  SANDBOX_RETRY_COMMENT,
  sandboxAnswer,
  type SandboxAnswerOptions,
  sandboxProvider,
} from "./sandbox.ts";
export { sumsubProvider } from "./sumsub.ts";
export {
  type ApplyOutcome,
  applyReviewEvent,
  parseWebhookEvent,
  receiveWebhook,
  type SumsubWebhookEvent,
  verifyWebhook,
  webhookEventId,
} from "./webhook.ts";
