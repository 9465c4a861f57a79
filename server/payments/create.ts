/**
 * Making a payment from a held payment quote: in ONE transaction, the quote is marked used (a
 * conditional update, so a quote pays once), the payment row is written with its recipient as it is
 * now, its money is held in the ledger (refused when the balance is short), its timeline starts and,
 * when the account's rule asks for approval, the approvers are told. Either all of it commits or
 * none of it does. Fixed SQL in the group commit, as a conversion's execution (decision 009): this
 * is, with its approval, what a busy account does most.
 */
import type { Database } from "../../db/client.ts";
import { groupedTransaction } from "../../db/group-commit.ts";
import { payments } from "../../db/schema-payments.ts";
import { fromColumns, rowOf, run } from "../../db/sql.ts";
import { expectedArrival, type Rail, railFor, referenceProblem } from "../../lib/payments/rails.ts";
import { Conflict, InvalidInput, NotFound } from "../errors.ts";
import { InsufficientFunds } from "../ledger/ledger.ts";
import { holdPayment } from "../ledger/movements.ts";
import { formatAmount } from "../money/amounts.ts";
import type { PaymentRow } from "./answer.ts";
import { approvalRuleFor, needsApproval } from "./approval-rules.ts";
import { actedByWords } from "../accounts/members.ts";
import { notifyPayment } from "./notify.ts";
import { detailsVersion } from "./quotes.ts";
import { recipientFor, recipientSnapshot } from "../recipients/index.ts";
import { type Alongside, recordEvents } from "./transitions.ts";

export interface PaymentMaker {
  accountId: number;
  /** The customer the payment is made as (on behalf: the customer, not the administrator). */
  userId: number;
  name: string;
  /** The administrator, when one acts on the customer's behalf. */
  onBehalfAdminId: number | null;
}

interface QuoteRow {
  id: string;
  recipient_id: number;
  sell_currency: string;
  buy_currency: string;
  sell_minor: number;
  buy_minor: number;
  fee_minor: number;
  mid_rate: string;
  rate: string;
  bps: number;
  priority: number;
  rail: Rail;
  recipient_details: string | null;
}

const USE_QUOTE = `UPDATE payment_quotes SET used_at = ?1
  WHERE id = ?2 AND account_id = ?3 AND used_at IS NULL AND expires_at > ?1
  RETURNING id, recipient_id, sell_currency, buy_currency, sell_minor, buy_minor, fee_minor, mid_rate, rate, bps,
    priority, rail, recipient_details`;

const DETAILS_CHANGED =
  "This recipient's bank details changed since this cost was shown. Get the full cost again to pay.";

const INSERT_PAYMENT = `INSERT INTO payments (account_id, recipient_id, recipient, quote_id, sell_currency, sell_minor,
    buy_currency, buy_minor, fee_minor, mid_rate, rate, bps, priority, rail, reference, status, expected_arrival,
    created_by, created_at, updated_at, hold_transfer_id)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0) RETURNING *`;

/** Makes a payment from the quote (see the top of this file); answers the stored payment. */
export async function createPayment(
  db: Database,
  maker: PaymentMaker,
  request: { quoteId: string; reference: string },
  now: Date,
  alongside?: Alongside,
): Promise<PaymentRow> {
  const at = now.getTime();
  const reference = request.reference.trim();
  try {
    return await groupedTransaction(db, async (tx) => {
      const quote = await rowOf<QuoteRow>(tx, USE_QUOTE, [at, request.quoteId, maker.accountId]);
      if (!quote) {
        const held = await rowOf<{ used_at: number | null }>(
          tx,
          "SELECT used_at FROM payment_quotes WHERE id = ? AND account_id = ?",
          [request.quoteId, maker.accountId],
        );
        if (!held) throw new NotFound("There is no such payment quote for this account.");
        if (held.used_at !== null) {
          throw new Conflict("This quote was already used. Get a new quote.", { code: "quote_used" });
        }
        throw new Conflict("This quote has expired. Get a new quote.", { code: "quote_expired" });
      }
      const problem = referenceProblem(quote.rail, reference);
      if (problem) throw new InvalidInput(problem, "reference");

      const recipient = await recipientFor(tx, maker.accountId, quote.recipient_id).catch((error) => {
        if (error instanceof NotFound) {
          throw new Conflict("This recipient was deleted. Choose another recipient.", { code: "recipient_deleted" });
        }
        throw error;
      });
      const { currency, country } = recipient;
      const route = railFor(currency, country);
      if (!route.ok) throw new InvalidInput(route.message, "recipient_id");
      // The cost was shown for the recipient's currency, rail and bank details as the quote recorded
      // them: a payment never goes to others.
      const changed = currency !== quote.buy_currency || route.rail !== quote.rail ||
        (quote.recipient_details !== null && quote.recipient_details !== detailsVersion(recipient.details));
      if (changed) throw new Conflict(DETAILS_CHANGED, { code: "details_changed" });

      const rule = await approvalRuleFor(tx, maker.accountId);
      const waits = await needsApproval(tx, rule, {
        sellCurrency: quote.sell_currency,
        sellMinor: quote.sell_minor,
        buyCurrency: quote.buy_currency,
        buyMinor: quote.buy_minor,
        recipientId: recipient.id,
        detailsChangedAt: recipient.detailsChangedAt.getTime(),
      });
      const priority = quote.priority === 1;
      const inserted = await rowOf<Record<string, unknown>>(tx, INSERT_PAYMENT, [
        maker.accountId,
        recipient.id,
        JSON.stringify(recipientSnapshot(recipient)),
        quote.id,
        quote.sell_currency,
        quote.sell_minor,
        quote.buy_currency,
        quote.buy_minor,
        quote.fee_minor,
        quote.mid_rate,
        quote.rate,
        quote.bps,
        priority ? 1 : 0,
        quote.rail,
        reference,
        waits ? "pending_approval" : "approved",
        expectedArrival(quote.rail, priority, now).getTime(),
        maker.userId,
        at,
        at,
      ]);
      const paymentId = inserted!.id as number;
      const held = await holdPayment(tx, {
        paymentId,
        accountId: maker.accountId,
        sellCurrency: quote.sell_currency,
        sellAmount: quote.sell_minor,
        buyCurrency: quote.buy_currency,
        buyAmount: quote.buy_minor,
        feeAmount: quote.fee_minor,
        createdBy: maker.userId,
      });
      const row = fromColumns(payments, inserted!);
      row.holdTransferId = held.transferId;
      await run(tx, "UPDATE payments SET hold_transfer_id = ? WHERE id = ?", [held.transferId, paymentId]);
      const by = { actorId: maker.userId, onBehalfAdminId: maker.onBehalfAdminId, now };
      await recordEvents(tx, paymentId, waits ? ["created", "approval_requested"] : ["created"], by);
      if (waits) {
        // Prepared by our team on the customer's behalf: the approvers are told so, as its timeline says.
        const actorName = await actedByWords(tx, maker);
        await notifyPayment(tx, row, "approval_needed", { actorId: maker.userId, actorName, now });
      }
      await alongside?.(tx, row);
      return row;
    });
  } catch (error) {
    if (error instanceof InsufficientFunds) {
      throw new InvalidInput(
        `Not enough ${error.currency}: your available balance is ${
          formatAmount(error.currency, error.available)
        } ${error.currency} and this payment needs ${
          formatAmount(error.currency, error.required)
        } ${error.currency}, ` +
          `${formatAmount(error.currency, error.shortfall)} ${error.currency} more.`,
        "amount",
      );
    }
    throw error;
  }
}
