/** The bulk email calls the console's islands make, typed by their contracts (lib/contracts/bulkemails.ts). */
import type * as calls from "../../lib/contracts/bulkemails.ts";
import { type AnswerOf, call } from "../lib/api.ts";
import { read } from "../lib/query-client.tsx";

export const createBulkEmail = call<typeof calls.createBulkEmail>("POST", "/console/bulkemails");
export const getBulkEmail = call<typeof calls.getBulkEmail>("GET", "/console/bulkemails/:id");
export const previewBulkEmail = call<typeof calls.previewBulkEmail>("GET", "/console/bulkemails/:id/preview");
export const updateBulkEmail = call<typeof calls.updateBulkEmail>("PUT", "/console/bulkemails/:id");
export const deleteBulkEmail = call<typeof calls.deleteBulkEmail>("DELETE", "/console/bulkemails/:id");
export const sendBulkEmail = call<typeof calls.sendBulkEmail>("POST", "/console/bulkemails/:id/send");
export const sendToInDoubt = call<typeof calls.sendToInDoubt>("POST", "/console/bulkemails/:id/send-in-doubt");
export const unsubscribe = call<typeof calls.unsubscribe>("POST", "/unsubscribe");

export type BulkEmailWithRecipients = AnswerOf<typeof calls.getBulkEmail>;
export type RecipientState = BulkEmailWithRecipients["recipients"]["items"][number]["state"];

export const RECIPIENTS_PER_PAGE = 50;

/** A bulk email by page and state filter, and its previews by customer. */
export const bulkEmailKeys = {
  all: ["bulk-emails"] as const,
  one: (id: number, page: number, state: RecipientState | "") => ["bulk-emails", id, page, state] as const,
  preview: (id: number, userId: string) => ["bulk-emails", id, "preview", userId] as const,
};

export const bulkEmailQuery = (id: number, page: number, state: RecipientState | "") =>
  read(bulkEmailKeys.one(id, page, state), getBulkEmail, {
    params: { id },
    query: { page: String(page), per_page: String(RECIPIENTS_PER_PAGE), ...(state ? { state } : {}) },
  });

export const previewQuery = (id: number, userId: string) =>
  read(bulkEmailKeys.preview(id, userId), previewBulkEmail, {
    params: { id },
    query: userId ? { user_id: userId } : {},
  });
