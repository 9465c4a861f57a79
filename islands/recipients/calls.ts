/** The recipients calls the island makes, typed by their contracts (lib/contracts/recipients.ts). */
import type * as recipients from "../../lib/contracts/recipients.ts";
import { type AnswerOf, type BodyOf, call } from "../lib/api.ts";
import { read } from "../lib/query-client.tsx";
import { recipientKeys } from "../lib/query-keys.ts";

export const getRequirements = call<typeof recipients.getRecipientRequirements>(
  "GET",
  "/account/recipients/requirements",
);
export const listRecipients = call<typeof recipients.listRecipients>("GET", "/account/recipients");
export const addRecipient = call<typeof recipients.addRecipient>("POST", "/account/recipients");
export const getRecipient = call<typeof recipients.getRecipient>("GET", "/account/recipients/:id");
export const changeRecipient = call<typeof recipients.changeRecipient>("PUT", "/account/recipients/:id");
export const deleteRecipient = call<typeof recipients.deleteRecipient>("DELETE", "/account/recipients/:id");

export type Requirement = AnswerOf<typeof recipients.getRecipientRequirements>;
export type RequirementField = Requirement["fields"][number];
export type RecipientPage = AnswerOf<typeof recipients.listRecipients>;
export type Recipient = RecipientPage["items"][number];
export type RecipientWithHistory = AnswerOf<typeof recipients.getRecipient>;
export type RecipientChange = RecipientWithHistory["changes"][number];
export type RecipientInput = BodyOf<typeof recipients.addRecipient>;

/** Recipients shown a page at a time. */
export const PER_PAGE = 20;

/** A page of the account's recipients, those whose name contains `search` ("" for all). */
export const recipientsQuery = (accountRef: string, search: string, page: number) =>
  read(recipientKeys.list(accountRef, search, page), listRecipients, {
    query: { ...(search ? { search } : {}), page: String(page), per_page: String(PER_PAGE) },
  });

/** One recipient with its history. */
export const recipientQuery = (accountRef: string, id: number) =>
  read(recipientKeys.one(accountRef, id), getRecipient, { params: { id } });

/** The bank details a currency and bank country need (the currency's home country when none). */
export const requirementsQuery = (currency: string, country: string) =>
  read(recipientKeys.requirements(currency, country), getRequirements, {
    query: { currency, ...(country ? { country } : {}) },
  });
