/** The payout desk's calls, typed by their contracts (lib/contracts/payouts.ts). */
import type * as payouts from "../../lib/contracts/payouts.ts";
import { type AnswerOf, call } from "../lib/api.ts";

export const listPayouts = call<typeof payouts.listPayouts>("GET", "/console/payouts");
export const submitPayout = call<typeof payouts.submitPayout>("POST", "/console/payouts/:id/submit");
export const completePayout = call<typeof payouts.completePayout>("POST", "/console/payouts/:id/complete");
export const failPayout = call<typeof payouts.failPayout>("POST", "/console/payouts/:id/fail");
export const createBatch = call<typeof payouts.createPayoutBatch>("POST", "/console/payouts/batches");
export const listBatches = call<typeof payouts.listPayoutBatches>("GET", "/console/payouts/batches");

export type PayoutQueue = AnswerOf<typeof payouts.listPayouts>;
export type Payout = PayoutQueue["items"][number];
export type PayoutBatch = AnswerOf<typeof payouts.listPayoutBatches>[number];
export type CreatedBatch = AnswerOf<typeof payouts.createPayoutBatch>;
export type QueueName = "local" | "transfer";

/** Where a batch's file downloads from. */
export const fileUrl = (batchId: number) => `/api/console/payouts/batches/${batchId}/file`;

/** How long a payment has waited, at the queue's time: "40 s", "12 min", "3 h", "2 d". */
export function ageText(asOf: string, since: string): string {
  const seconds = Math.max(0, Math.floor((Date.parse(asOf) - Date.parse(since)) / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}
