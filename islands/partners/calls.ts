/** The console's partner calls, typed by their contracts (lib/contracts/partners.ts). */
import type * as partners from "../../lib/contracts/partners.ts";
import { type AnswerOf, call } from "../lib/api.ts";

export const createPartner = call<typeof partners.createPartner>("POST", "/console/partners");
export const updatePartner = call<typeof partners.updatePartner>("PUT", "/console/partners/:id");

export type Partner = AnswerOf<typeof partners.createPartner>;

/** The partners' reads, which these writes make stale. */
export const partnerKeys = {
  all: ["partners"] as const,
};

export const setCustomerPartner = call<typeof partners.setCustomerPartner>("PUT", "/console/users/:id/partner");
