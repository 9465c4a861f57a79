/** The console's calls, typed by their contracts (lib/contracts/admin.ts, console-money.ts, money.ts). */
import type * as admin from "../../lib/contracts/admin.ts";
import type * as consoleProfile from "../../lib/contracts/console-profile.ts";
import type * as consoleMoney from "../../lib/contracts/console-money.ts";
import type * as money from "../../lib/contracts/money.ts";
import { type AnswerOf, type BodyOf, call } from "../lib/api.ts";

export const listCustomers = call<typeof admin.listCustomers>("GET", "/console/users");
export const openAccount = call<typeof admin.openAccount>("POST", "/console/users/:id/open-account");
export const rejectApplication = call<typeof admin.rejectApplication>("POST", "/console/users/:id/reject");
export const restrictCustomer = call<typeof admin.restrictCustomer>("POST", "/console/users/:id/restrict");
export const liftRestriction = call<typeof admin.liftRestriction>("DELETE", "/console/users/:id/restrict");
export const changeProfile = call<typeof consoleProfile.changeCustomerProfile>("PUT", "/console/users/:id/profile");
export const setFees = call<typeof consoleMoney.setFeeOverrides>("PUT", "/console/users/:id/fees");
export const listReceipts = call<typeof consoleMoney.listReceipts>("GET", "/console/receipts");
export const recordReceipt = call<typeof consoleMoney.recordReceipt>("POST", "/console/receipts");
export const allocateReceipt = call<typeof consoleMoney.allocateReceipt>("POST", "/console/receipts/:id/allocate");
export const approveReceipt = call<typeof consoleMoney.approveReceipt>("POST", "/console/receipts/:id/approve");
export const declineReceipt = call<typeof consoleMoney.declineReceipt>("POST", "/console/receipts/:id/decline");
export const releaseReceipt = call<typeof consoleMoney.releaseReceipt>("POST", "/console/receipts/:id/release");
export const discardReceipt = call<typeof consoleMoney.discardReceipt>("POST", "/console/receipts/:id/discard");
export const reverseReceipt = call<typeof consoleMoney.reverseReceipt>("POST", "/console/receipts/:id/reverse");
export const listPlans = call<typeof consoleMoney.listPricingPlans>("GET", "/console/pricingplans");
export const assignPlan = call<typeof consoleMoney.changePricingPlan>("PUT", "/console/pricingplans/:id");
export const getRates = call<typeof money.getRates>("GET", "/rates");
export const saveRates = call<typeof consoleMoney.updateRates>("PUT", "/console/rates");

/**
 * Creates a plan (createPricingPlan) or saves one (changePricingPlan): the editor's one form sends
 * either, with the same body and answer.
 */
type SavePlan = {
  method: "POST" | "PUT";
  path: "/console/pricingplans" | "/console/pricingplans/:id";
  body: PlanInput;
  answer: PricingPlan;
};
export const savePlan = (isNew: boolean) =>
  isNew
    ? call<SavePlan>("POST", "/console/pricingplans" satisfies (typeof consoleMoney.createPricingPlan)["path"])
    : call<SavePlan>("PUT", "/console/pricingplans/:id" satisfies (typeof consoleMoney.changePricingPlan)["path"]);

/** A row of the console's customer list. */
export type CustomerPage = AnswerOf<typeof admin.listCustomers>;
export type ConsoleUser = CustomerPage["items"][number];
/** Where a customer's restriction stands (decision 048). */
export type Restriction = AnswerOf<typeof admin.getRestriction>;
/** Money a customer sent to the company's bank account. */
export type Receipt = AnswerOf<typeof consoleMoney.recordReceipt>;
export type ReceiptInput = BodyOf<typeof consoleMoney.recordReceipt>;
export type PricingPlan = AnswerOf<typeof consoleMoney.listPricingPlans>[number];
/** What the plan editor sends. */
export type PlanInput = BodyOf<typeof consoleMoney.createPricingPlan> & { id?: number; is_default?: boolean };
export type Rates = AnswerOf<typeof money.getRates>;
export type RatesUpdate = BodyOf<typeof consoleMoney.updateRates>;
export const importStatement = call<typeof consoleMoney.importStatement>("POST", "/console/receipts/import");
export type StatementImport = AnswerOf<typeof consoleMoney.importStatement>;
