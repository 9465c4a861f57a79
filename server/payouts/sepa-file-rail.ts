import { BankFileError } from "../bank-files/bank-file-error.ts";
import type { SepaDebtor } from "../bank-files/debtor.ts";
import {
  type SepaCreditTransfer,
  type SepaCreditTransferFile,
  writeSepaCreditTransferFile,
} from "../bank-files/pain001.ts";
import type { PaymentRow } from "../payments/answer.ts";
import { type PayoutRail, RailRefused } from "./rail.ts";

/**
 * The SEPA file rail (decisions 020 and 031): approved EUR SEPA payments go to the company's bank
 * in a pain.001.001.03 file. Putting a payment in a file is submitting it; `submit` checks that the
 * file can carry the payment (its IBAN, the BIC a transfer outside the EEA needs, a name in SEPA's
 * characters) by writing it alone, and answers its end-to-end id, which comes back in the bank's
 * statements and returns. `file` writes the batch.
 */
export class SepaFileRail implements PayoutRail {
  readonly name = "SEPA file";

  constructor(private readonly debtor: SepaDebtor, private readonly at: Date) {}

  submit(payment: PaymentRow): Promise<{ railReference: string }> {
    try {
      this.#write("CHECK", [payment]);
    } catch (error) {
      if (error instanceof BankFileError) return Promise.reject(new RailRefused(error.problems.map((p) => p.message)));
      return Promise.reject(error);
    }
    return Promise.resolve({ railReference: endToEndIdOf(payment) });
  }

  /** The file of a batch: one credit transfer per payment, in the order given. */
  file(messageId: string, payments: readonly PaymentRow[]): SepaCreditTransferFile {
    return this.#write(messageId, payments);
  }

  #write(messageId: string, payments: readonly PaymentRow[]) {
    return writeSepaCreditTransferFile({
      messageId,
      createdAt: this.at,
      debtor: this.debtor,
      executionDate: executionDateOf(this.at),
      payments: payments.map(creditTransferOf),
    });
  }
}

/** Our reference for a payment in SEPA files: unique, and only SEPA's identifier characters. */
export const endToEndIdOf = (payment: Pick<PaymentRow, "id">) => `PAYMENT-${payment.id}`;

/**
 * The payment an end-to-end id of ours names (endToEndIdOf), found in a text where a bank returning
 * the transfer puts it (its references, or its return information): null when it names none.
 */
export function paymentNamedIn(text: string | null): number | null {
  const id = /\bPAYMENT-(\d{1,15})\b/.exec(text ?? "")?.[1];
  return id === undefined ? null : Number(id);
}

/** The file's message id: the day and the batch, unique per file as banks require. */
export const messageIdOf = (batchId: number, at: Date) =>
  `PAYOUTS-${at.toISOString().slice(0, 10).replaceAll("-", "")}-${batchId}`;

function creditTransferOf(payment: PaymentRow): SepaCreditTransfer {
  const { name, details } = payment.recipient;
  return {
    endToEndId: endToEndIdOf(payment),
    amountMinor: payment.buyMinor,
    creditorName: name,
    creditorIban: details.iban ?? "",
    creditorBic: details.bic || null,
    remittance: payment.reference,
  };
}

/**
 * The day the bank is asked to pay: the file's day (UTC), or the Monday after it at a weekend,
 * when SEPA does not settle. Bank holidays (TARGET2's) are left to the bank, which moves such a
 * date to its next business day.
 */
export function executionDateOf(at: Date): string {
  const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  const weekday = day.getUTCDay();
  if (weekday === 6) day.setUTCDate(day.getUTCDate() + 2);
  if (weekday === 0) day.setUTCDate(day.getUTCDate() + 1);
  return day.toISOString().slice(0, 10);
}
