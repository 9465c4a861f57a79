import { electronicFormatIBAN } from "ibantools";
import type { z } from "zod";
import type { payout } from "../../lib/contracts/payouts.ts";
import { RAILS } from "../../lib/payments/rails.ts";
import { RESTRICTED_PAYOUT } from "../../lib/restriction.ts";
import { countryOutsideEea } from "../bank-files/sepa-countries.ts";
import { formatAmount } from "../money/amounts.ts";
import type { PaymentRow } from "../payments/answer.ts";
import { type Person, personOr } from "../payments/people.ts";

/** How the payout desk answers a payment (lib/contracts/payouts.ts `payout`). */

export type Payout = z.output<typeof payout>;

/** The customer's account a payment comes from. */
export interface PayoutAccount {
  accountRef: string;
  name: string;
  /** The payment's customer is restricted (./restricted.ts): it is not sent. */
  restricted: boolean;
}

/** A SEPA payment goes out in a file, not on its own. */
export const IN_A_FILE = 'SEPA payments go out in a SEPA file: "Export SEPA file" sends every approved one.';
export const RAIL_UNCONFIRMED =
  "The rail has not confirmed this payment yet (its answer was lost): Submit asks it again. It cannot be failed or completed until the rail answers.";

/** Beside a payment an export left out for want of a BIC (decision 066). */
export const BY_THE_RAIL = "Submit it on the desk: the rail sends it instead of a file.";

/**
 * Why a SEPA file cannot carry this payment, when it is for want of the recipient's BIC: a transfer
 * from the company's account (`debtorIban`, COMPANY_BANK_IBAN) that involves a SEPA country outside
 * the EEA needs it (the rule server/bank-files/pain001.ts applies). Recipients saved before their
 * requirements asked for it have none: such a payment goes by the desk's rail instead, never in a
 * file (decision 066). Null for any other payment.
 */
export function noBicForFile(
  row: Pick<PaymentRow, "rail" | "recipient">,
  debtorIban: string | undefined,
): string | null {
  if (row.rail !== "sepa" || row.recipient.details.bic || !debtorIban) return null;
  const debtor = electronicFormatIBAN(debtorIban) ?? "";
  const creditor = electronicFormatIBAN(row.recipient.details.iban ?? "") ?? "";
  const outside = countryOutsideEea(debtor, creditor);
  return outside
    ? `It cannot go in a SEPA file: the recipient has no BIC, which a transfer involving ${outside} (a SEPA country outside the EEA) needs. Submit sends it by the rail instead.`
    : null;
}

/** Sent, but the rail's answer never came (a crash or a lost connection between the two steps). */
export const awaitsRail = (row: Pick<PaymentRow, "status" | "railReference">) =>
  row.status === "submitted" && row.railReference === null;

/** What the desk may do with a payment now (the server holds the same rules: ./desk.ts). */
export function deskActions(
  row: Pick<PaymentRow, "status" | "rail" | "railReference" | "recipient">,
  restricted = false,
  debtorIban?: string,
  /** The bank sent it back and the return waits (decision 093): it did not arrive. */
  returned = false,
) {
  const noFile = noBicForFile(row, debtorIban);
  const inFile = row.rail === "sepa" && noFile === null;
  const unconfirmed = awaitsRail(row);
  // A restricted customer's approved payment waits for compliance; one the rail may already have is asked again.
  const held = restricted && row.status === "approved";
  return {
    submit: !inFile && !held && (row.status === "approved" || unconfirmed),
    complete: row.status === "submitted" && !unconfirmed && !returned,
    fail: row.status === "approved" || (row.status === "submitted" && !unconfirmed),
    note: held
      ? RESTRICTED_PAYOUT
      : inFile && row.status === "approved"
      ? IN_A_FILE
      : noFile && row.status === "approved"
      ? noFile
      : unconfirmed
      ? RAIL_UNCONFIRMED
      : null,
  };
}

export function payoutAnswer(
  row: PaymentRow,
  account: PayoutAccount,
  people: Map<number, Person>,
  debtorIban?: string,
  returned: Payout["returned"] = null,
): Payout {
  const { name, type, currency, country, details } = row.recipient;
  return {
    id: row.id,
    status: row.status,
    rail: row.rail,
    rail_kind: RAILS[row.rail].kind,
    rail_name: RAILS[row.rail].name,
    customer: {
      account_id: row.accountId,
      account_ref: account.accountRef,
      name: account.name,
      restricted: account.restricted,
    },
    created_by: personOr(people, row.createdBy),
    recipient: { name, type, currency, country, details },
    sell_amount: formatAmount(row.sellCurrency, row.sellMinor),
    sell_currency: row.sellCurrency,
    buy_amount: formatAmount(row.buyCurrency, row.buyMinor),
    buy_currency: row.buyCurrency,
    fee: formatAmount(row.sellCurrency, row.feeMinor),
    priority: row.priority,
    reference: row.reference,
    created_at: row.createdAt.toISOString(),
    approved_at: row.approvedAt?.toISOString() ?? null,
    updated_at: row.updatedAt.toISOString(),
    expected_arrival: row.expectedArrival.toISOString(),
    batch_id: row.batchId,
    rail_reference: row.railReference,
    reason: row.reason,
    returned,
    actions: deskActions(row, account.restricted, debtorIban, returned !== null && !returned.settled),
  };
}
