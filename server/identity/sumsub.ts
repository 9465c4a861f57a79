import { externalUserIdFor, type IdentityProvider, reviewToResult } from "./provider.ts";
import type { SumsubClient } from "./sumsub-client.ts";

/**
 * The Sumsub provider: the page gets a WebSDK access token for the user (externalUserId
 * "portal-<id>", the configured level), and the result is read from Sumsub on the server, never
 * taken from the browser. No applicant yet (404) means no result yet: pending.
 */
export function sumsubProvider(client: SumsubClient, levelName: string, ttlInSecs = 600): IdentityProvider {
  return {
    name: "sumsub",
    async startCheck(user) {
      const { token } = await client.createAccessToken(externalUserIdFor(user.id), levelName, ttlInSecs);
      return { kind: "sumsub", accessToken: token };
    },
    async readResult(userId) {
      const applicant = await client.getApplicantByExternalUserId(externalUserIdFor(userId));
      if (!applicant) return { status: "pending" };
      return { ...reviewToResult(applicant.review), applicantId: applicant.id };
    },
  };
}
