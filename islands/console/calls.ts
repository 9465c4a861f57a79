/**
 * The console's calls. The rates come from lib/contracts/money.ts; the others' contracts
 * (lib/contracts/admin.ts, console-money.ts) are not written yet: until they are, each call's shape
 * is written here, as docs/API.md describes it.
 */
import type * as money from "../../lib/contracts/money.ts";
import type { SessionUser } from "../../lib/session-user.ts";
import { type AnswerOf, call } from "../lib/api.ts";

/** A row of GET console/users. */
export interface ConsoleUser {
  id: number;
  /** The email address. */
  username: string;
  name: string;
  type: SessionUser["type"];
  validated: boolean;
  profile: boolean;
  identity: boolean;
  account: boolean;
  account_ref: string | null;
  created_at: string;
}

export const listCustomers = call<
  { method: "GET"; path: "/console/users"; query: { q?: string }; answer: ConsoleUser[] }
>("GET", "/console/users");

export interface Compliance {
  done: boolean;
  amount: string;
  date: string;
}

export const openAccount = call<
  { method: "POST"; path: "/console/users/:id/open-account"; body: { compliance: Compliance }; answer: SessionUser }
>("POST", "/console/users/:id/open-account");

/** A customer's fee overrides (DESIGN.md section 4), as the session user summary has them. */
export type FeeOverrides = Pick<
  SessionUser,
  "override_transfer_fee" | "override_regular_transfer_fee" | "override_priority_transfer_fee"
>;

export const setFees = call<
  { method: "PUT"; path: "/console/users/:id/fees"; body: FeeOverrides; answer: SessionUser }
>("PUT", "/console/users/:id/fees");

/** A receipt of console/receipts: money a customer sent to the company's bank account. */
export interface Receipt {
  id: number | string;
  amount: string;
  currency: string;
  payer_name: string;
  reference: string;
  received_at: string;
  status: "matched" | "unmatched" | "allocated";
  account_ref: string | null;
}

export interface ReceiptInput {
  amount: string;
  currency: string;
  payer_name: string;
  reference: string;
  received_at: string;
}

export const listReceipts = call<{ method: "GET"; path: "/console/receipts"; answer: Receipt[] }>(
  "GET",
  "/console/receipts",
);
export const recordReceipt = call<
  { method: "POST"; path: "/console/receipts"; body: ReceiptInput; answer: Receipt }
>("POST", "/console/receipts");
export const allocateReceipt = call<
  { method: "POST"; path: "/console/receipts/:id/allocate"; body: { account_ref: string }; answer: Receipt }
>("POST", "/console/receipts/:id/allocate");

export interface PlanTier {
  /** Upper bound (inclusive) in the tier currency; null for the last, open tier. */
  up_to: string | null;
  /** FX markup in basis points. */
  bps: number;
}

/** A row of GET console/pricingplans. */
export interface PricingPlan {
  id: number | string;
  name: string;
  is_default: boolean;
  tier_currency: string;
  tiers: PlanTier[];
  fees: Record<string, { regular: string; priority: string }>;
  /** The account_refs on this plan. */
  accounts: string[];
}

/** What the editor sends: bps stay as typed when they are not whole numbers, for the server to name. */
export interface PlanInput {
  name: string;
  tier_currency: string;
  tiers: { up_to: string | null; bps: number | string }[];
  fees: Record<string, { regular: string; priority: string }>;
  id?: PricingPlan["id"];
  is_default?: boolean;
}

type SavePlan = {
  method: "POST" | "PUT";
  path: "/console/pricingplans" | "/console/pricingplans/:id";
  body: PlanInput;
  answer: PricingPlan;
};

/** Creates a plan (POST console/pricingplans) or saves one (PUT console/pricingplans/{id}). */
export const savePlan = (isNew: boolean) =>
  isNew ? call<SavePlan>("POST", "/console/pricingplans") : call<SavePlan>("PUT", "/console/pricingplans/:id");

export const listPlans = call<{ method: "GET"; path: "/console/pricingplans"; answer: PricingPlan[] }>(
  "GET",
  "/console/pricingplans",
);
export const assignPlan = call<
  { method: "PUT"; path: "/console/pricingplans/:id"; body: { assign_account_ref: string }; answer: PricingPlan }
>("PUT", "/console/pricingplans/:id");

export type Rates = AnswerOf<typeof money.getRates>;

export const getRates = call<typeof money.getRates>("GET", "/rates");
export const saveRates = call<
  {
    method: "PUT";
    path: "/console/rates";
    body: { base: string; as_of: string; rates: Record<string, string> };
    answer: Rates;
  }
>("PUT", "/console/rates");
