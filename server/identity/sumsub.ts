import countries from "i18n-iso-countries";
import { type DeclaredIdentity, documentFromSumsub } from "./document.ts";
import { externalUserIdFor, type IdentityProvider, reviewToResult } from "./provider.ts";
import type { SumsubClient, SumsubFixedInfo } from "./sumsub-client.ts";

/**
 * The Sumsub provider: the page gets a WebSDK access token for the user (externalUserId
 * "portal-<id>", the configured level), and the result is read from Sumsub on the server, never
 * taken from the browser. No applicant yet (404) means no result yet: pending.
 *
 * Before the token, the applicant carries the person's declared identity as its fixedInfo
 * (decision 085): created with it, or changed to it when it differs, so that Sumsub checks the
 * document against the profile. Only the first and last name, the date of birth and the country
 * go: what the check needs, nothing else of the profile.
 */
export function sumsubProvider(client: SumsubClient, levelName: string, ttlInSecs = 600): IdentityProvider {
  return {
    name: "sumsub",
    async startCheck(user) {
      const externalUserId = externalUserIdFor(user.id);
      const fixedInfo = toFixedInfo(user.declared);
      let applicant = await client.getApplicantByExternalUserId(externalUserId);
      if (!applicant) {
        // 409: made in the meantime (another tab): then it is changed like any existing one.
        const created = await client.createApplicant(externalUserId, levelName, fixedInfo);
        if (!created) applicant = await client.getApplicantByExternalUserId(externalUserId);
      }
      if (applicant && !sameFixedInfo(applicant.fixedInfo, fixedInfo)) {
        await client.changeFixedInfo(applicant.id, fixedInfo);
      }
      const { token } = await client.createAccessToken(externalUserId, levelName, ttlInSecs);
      return { kind: "sumsub", accessToken: token };
    },
    async readResult(userId) {
      const applicant = await client.getApplicantByExternalUserId(externalUserIdFor(userId));
      if (!applicant) return { status: "pending" };
      const document = documentFromSumsub(applicant.info);
      return { ...reviewToResult(applicant.review), applicantId: applicant.id, ...(document ? { document } : {}) };
    },
  };
}

/** The declared identity as Sumsub's fixedInfo: its countries are alpha-3 ("GB" → "GBR"). */
export function toFixedInfo(declared: DeclaredIdentity): SumsubFixedInfo {
  const country = declared.country ? countries.alpha2ToAlpha3(declared.country) : undefined;
  return {
    firstName: declared.firstName,
    lastName: declared.lastName,
    dob: declared.dob,
    ...(country ? { country } : {}),
  };
}

function sameFixedInfo(current: Partial<SumsubFixedInfo> | undefined, wanted: SumsubFixedInfo): boolean {
  return !!current && current.firstName === wanted.firstName && current.lastName === wanted.lastName &&
    current.dob === wanted.dob && current.country === wanted.country;
}
