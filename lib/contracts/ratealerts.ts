/**
 * Rate alerts (issue 10 part 3, DESIGN.md section 4, decision 038): a target on a currency pair,
 * read "1 sell_currency = target_rate buy_currency" as every rate in the portal is, watched against
 * the mid-market rate. It fires once, when a rate change puts the rate at or past the target
 * (`above`: at or above; `below`: at or below), and says when and at what rate. At most
 * RATE_ALERTS_PER_ACCOUNT per account; another account's alert is a 404.
 */
import { z } from "zod";
import { currencyCode, currencyInput, idText, rateText, timestamp } from "./common.ts";
import { rateValue } from "./console-money.ts";
import { defineCall } from "./define.ts";
import { CUSTOMER_GUARDS } from "./guards.ts";
import { RATE_ALERT_DIRECTIONS, RATE_ALERTS_PER_ACCOUNT } from "../ratealerts.ts";

export { RATE_ALERT_DIRECTIONS, RATE_ALERTS_PER_ACCOUNT };

export const rateAlertAnswer = z.object({
  id: z.number(),
  sell_currency: currencyCode,
  buy_currency: currencyCode,
  /** 1 sell_currency = target_rate buy_currency. */
  target_rate: rateText,
  direction: z.enum(RATE_ALERT_DIRECTIONS),
  paused: z.boolean(),
  created_at: timestamp,
  /** The pair's mid-market rate now, printed as GET rates prints it; null when the pair has no rate. */
  current_rate: rateText.nullable(),
  /** When it fired and at what mid-market rate; null until then. A fired alert is no longer watched. */
  fired_at: timestamp.nullable(),
  fired_rate: rateText.nullable(),
});

export type RateAlertAnswer = z.output<typeof rateAlertAnswer>;

export const rateAlertList = z.object({
  /** Newest first. */
  items: z.array(rateAlertAnswer),
  /** How many an account may keep. */
  limit: z.number(),
  /** The date of the rates current_rate is read from. */
  rates_as_of: z.string(),
});

export type RateAlertList = z.output<typeof rateAlertList>;

const rateAlertId = z.object({ id: idText });

export const listRateAlerts = defineCall({
  method: "GET",
  path: "/account/ratealerts",
  summary: "The account's rate alerts, newest first, each with its pair's mid-market rate now and when it fired.",
  guards: CUSTOMER_GUARDS,
  permission: "account.view",
  answer: rateAlertList,
});

export const rateAlertPayload = z.object({
  sell_currency: currencyInput('Choose the currency you sell (the 1 of "1 GBP = x EUR").'),
  buy_currency: currencyInput("Choose the currency you buy."),
  target_rate: rateValue("The target rate"),
  direction: z.enum(RATE_ALERT_DIRECTIONS, { error: "Choose whether to be told above or below the target." }),
}, { error: "A rate alert is an object with sell_currency, buy_currency, target_rate and direction." });

export type RateAlertPayload = z.output<typeof rateAlertPayload>;

export const createRateAlert = defineCall({
  method: "POST",
  path: "/account/ratealerts",
  summary: "Sets an alert on a currency pair: it fires once when the mid-market rate reaches target_rate " +
    "(at or above, or at or below). Refused when the rate is already there, and beyond " +
    `${RATE_ALERTS_PER_ACCOUNT} alerts per account.`,
  guards: CUSTOMER_GUARDS,
  movesMoney: false,
  permission: "money.convert",
  body: rateAlertPayload,
  answer: rateAlertAnswer,
  status: 201,
});

export const changeRateAlert = defineCall({
  method: "PUT",
  path: "/account/ratealerts/:id",
  summary: "Pauses or resumes an alert that has not fired: a paused alert does not fire.",
  guards: CUSTOMER_GUARDS,
  movesMoney: false,
  permission: "money.convert",
  params: rateAlertId,
  body: z.object({
    paused: z.boolean({ error: "paused is true (pause the alert) or false (resume it)." }),
  }, { error: "Send an object with paused true or false." }),
  answer: rateAlertAnswer,
});

export const deleteRateAlert = defineCall({
  method: "DELETE",
  path: "/account/ratealerts/:id",
  summary: "Deletes an alert, fired or not.",
  guards: CUSTOMER_GUARDS,
  movesMoney: false,
  permission: "money.convert",
  params: rateAlertId,
  answer: z.object({ id: z.number(), deleted: z.literal(true) }),
});
