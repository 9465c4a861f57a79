/** The rate alerts calls the island makes, typed by their contracts (lib/contracts/ratealerts.ts). */
import type * as money from "../../lib/contracts/money.ts";
import type * as alerts from "../../lib/contracts/ratealerts.ts";
import { type AnswerOf, call } from "../lib/api.ts";
import { read } from "../lib/query-client.tsx";
import { rateAlertKeys, rateKeys } from "../lib/query-keys.ts";

export const listRateAlerts = call<typeof alerts.listRateAlerts>("GET", "/account/ratealerts");
export const createRateAlert = call<typeof alerts.createRateAlert>("POST", "/account/ratealerts");
export const changeRateAlert = call<typeof alerts.changeRateAlert>("PUT", "/account/ratealerts/:id");
export const deleteRateAlert = call<typeof alerts.deleteRateAlert>("DELETE", "/account/ratealerts/:id");
const getRates = call<typeof money.getRates>("GET", "/rates");

export type RateAlertList = AnswerOf<typeof alerts.listRateAlerts>;
export type RateAlert = RateAlertList["items"][number];
export type Rates = AnswerOf<typeof money.getRates>;

export const rateAlertsQuery = (accountRef: string) => read(rateAlertKeys.of(accountRef), listRateAlerts);

/** The mid-market rates against `base` (GET rates): "1 base = rates[X] X". */
export const ratesQuery = (base: string) => read(rateKeys.of(base), getRates, { query: { base } });
