import type { paymentEvents, payments } from "../../db/schema-payments.ts";
import { PENDING_PAYMENT_RATE_HOURS } from "../../lib/constants.ts";
import { NOT_ON_BEHALF, RATE_EXPIRED_OPENING } from "../../lib/payments/approval-notes.ts";
import { momentInUtc } from "../../lib/moment.ts";
import { RAILS } from "../../lib/payments/rails.ts";
import { type AccountRole, may } from "../../lib/permissions.ts";
import { formatAmount } from "../money/amounts.ts";
import { sameDetails } from "../recipients/changes.ts";
import { type Person, personOr } from "./people.ts";
import { markupOf } from "./pricing.ts";

/** How payments and their timelines are answered to the account's people (lib/contracts/payments.ts). */

export type PaymentRow = typeof payments.$inferSelect;
export type PaymentEventRow = typeof paymentEvents.$inferSelect;

/** Who is looking, and when: what they may do with a payment depends on it. */
export interface Viewer {
  userId: number;
  role: AccountRole;
  /** An administrator acting on the customer's behalf. */
  onBehalf: boolean;
  /** The moment of the request: a waiting payment's rate is guaranteed only so long (rateHeldUntil). */
  now: Date;
}

export { NOT_ON_BEHALF };
export const NOT_ONE_S_OWN = "You prepared this payment: someone else on the account must approve it.";
const NOT_AN_APPROVER = "Your role on this account does not allow approving payments.";
const departed = (name: string) =>
  `${name} is no longer a user of this account. Approve this payment only if it should still go; otherwise reject it.`;

/**
 * Cancelling is for the payment's creator, an owner or an admin, before it is sent (decision 030).
 * The creator whatever their role now (decision 076): a payer made approver or viewer since still
 * withdraws what they prepared, as cancelling only returns the held money to the account, and
 * rejecting their own payment is refused ("cancel it instead").
 */
export function mayCancel(row: Pick<PaymentRow, "createdBy">, viewer: Pick<Viewer, "userId" | "role">): boolean {
  return row.createdBy === viewer.userId || viewer.role === "owner" || viewer.role === "admin";
}

const NONE: ReadonlySet<number> = new Set();

/**
 * What became of a waiting payment's recipient that stops it being approved: deleted (decision 029:
 * not payable, often because the details were found to be a fraudster's), or bank details changed
 * since it was prepared, so that it would pay details the account no longer holds (a correction, or
 * the change a fraud needs). Either way the approver rejects it, and the payer prepares it again.
 */
export type RecipientGone = "deleted" | "details_changed";

/** The recipient as it is now, beside the snapshot the payment keeps: whether it may still be approved. */
export function recipientGone(
  snapshot: Readonly<Record<string, string>>,
  now: { deleted: boolean; details: Readonly<Record<string, string>> },
): RecipientGone | null {
  if (now.deleted) return "deleted";
  return sameDetails(snapshot, now.details) ? null : "details_changed";
}

export function recipientGoneText(name: string, gone: RecipientGone): string {
  return gone === "deleted"
    ? `${name} was deleted from the account's recipients after this payment was prepared, so it cannot be approved: ` +
      "reject it."
    : `The bank details of ${name} were changed after this payment was prepared, so it cannot be approved: reject it, ` +
      "and pay the new details if they are right.";
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * Until when the rate of a payment converted on the way is guaranteed while it waits for approval:
 * PENDING_PAYMENT_RATE_HOURS from when it was confirmed (decision 092). Approving it later would pay
 * out at a rate the market has left, an option the account could take only when it moved its way.
 * Null for a payment in the recipient's own currency: it has no rate.
 */
export function rateHeldUntil(p: Pick<PaymentRow, "sellCurrency" | "buyCurrency" | "createdAt">): Date | null {
  if (p.sellCurrency === p.buyCurrency) return null;
  return new Date(p.createdAt.getTime() + PENDING_PAYMENT_RATE_HOURS * HOUR_MS);
}

/** When the rate held for a waiting payment ran out, if it has by `now`; null while held, or with no rate. */
export function rateExpired(p: Pick<PaymentRow, "sellCurrency" | "buyCurrency" | "createdAt">, now: Date): Date | null {
  const until = rateHeldUntil(p);
  return until !== null && now.getTime() >= until.getTime() ? until : null;
}

export function rateExpiredText(until: Date): string {
  return `${RATE_EXPIRED_OPENING}${momentInUtc(until)}, so it cannot be approved: reject it, ` +
    "and prepare it again at today's rate.";
}

/**
 * The same, to someone who cannot decide it (its preparer, an administrator on behalf, a viewer):
 * nobody can approve it any more, so "someone else must approve it" would have them wait for
 * nothing. Whoever may cancel it is told to, as the approver is told to reject it.
 */
function rateExpiredForOthersText(until: Date, cancels: boolean): string {
  return `${RATE_EXPIRED_OPENING}${momentInUtc(until)}, so it can no longer be approved` +
    (cancels ? ": cancel it, and prepare it again at today's rate." : ".");
}

/**
 * What the approver is told of a waiting payment's recipient: gone (it cannot be approved), or
 * bank details no payment has been approved to yet, since they were added or last changed, and by
 * whom: the moment a fraud needs (an email "from the supplier" giving new details), which the
 * recipient's card warns of (decision 029) and which the approver, deciding on this page, must see.
 */
export type RecipientNote =
  | { kind: RecipientGone }
  | { kind: "unproven"; added: boolean; at: Date; by: string };

function unprovenText(name: string, note: { added: boolean; at: Date; by: string }): string {
  const when = `on ${momentInUtc(note.at)} by ${note.by}`;
  return note.added
    ? `${name} was added ${when}, and no payment to them has been approved yet: check their bank details with ` +
      `${name} by a means you already trust before approving.`
    : `The bank details of ${name} were changed ${when}, and no payment to them has been approved since: check ` +
      `them with ${name} by a means you already trust before approving.`;
}

const NO_RECIPIENT_NOTES: ReadonlyMap<number, RecipientNote> = new Map();

/** What the viewer may do with the payment now, and why they may not approve it when they may not. */
export function actionsFor(
  row: Pick<PaymentRow, "status" | "createdBy" | "sellCurrency" | "buyCurrency" | "createdAt">,
  viewer: Viewer,
  departedCreator: string | null = null,
  recipient: { name: string; note: RecipientNote } | null = null,
) {
  const pending = row.status === "pending_approval";
  const note = !pending
    ? null
    : viewer.onBehalf
    ? NOT_ON_BEHALF
    : row.createdBy === viewer.userId
    ? NOT_ONE_S_OWN
    : may(viewer.role, "payments.approve")
    ? null
    : NOT_AN_APPROVER;
  const decide = pending && note === null;
  const open = pending || row.status === "approved";
  // Whoever prepared it was removed from the account since: the payment still waits for a decision
  // (decision 076, amended), and the approver, who sees the usual "prepared by", is told.
  const gone = recipient && recipient.note.kind !== "unproven" ? recipient.note.kind : null;
  // Waited longer than its rate is held: it can only be rejected (decision 092), as with a recipient gone.
  const expiredAt = decide ? rateExpired(row, viewer.now) : null;
  const warnings = !decide
    ? []
    : gone !== null
    ? [recipientGoneText(recipient!.name, gone)]
    : expiredAt !== null
    ? [rateExpiredText(expiredAt)]
    : [
      ...(departedCreator !== null ? [departed(departedCreator)] : []),
      ...(recipient?.note.kind === "unproven" ? [unprovenText(recipient.name, recipient.note)] : []),
    ];
  const warning = warnings.length ? warnings.join(" ") : null;
  const cancel = open && mayCancel(row, viewer);
  const expiredForOthers = pending && !decide ? rateExpired(row, viewer.now) : null;
  return {
    approve: decide && gone === null && expiredAt === null,
    reject: decide,
    cancel,
    note: expiredForOthers !== null ? rateExpiredForOthersText(expiredForOthers, cancel) : note ?? warning,
  };
}

/** The full cost of a payment (or of its quote), as the contract writes it. */
export function costAnswer(row: {
  sellCurrency: string;
  sellMinor: number;
  buyCurrency: string;
  buyMinor: number;
  feeMinor: number;
  midRate: string;
  rate: string;
  priority: boolean;
  rail: PaymentRow["rail"];
  expectedArrival: Date;
}) {
  const converts = row.sellCurrency !== row.buyCurrency;
  return {
    sell_currency: row.sellCurrency,
    sell_amount: formatAmount(row.sellCurrency, row.sellMinor),
    buy_currency: row.buyCurrency,
    buy_amount: formatAmount(row.buyCurrency, row.buyMinor),
    fee: formatAmount(row.sellCurrency, row.feeMinor),
    fee_currency: row.sellCurrency,
    mid_rate: converts ? row.midRate : null,
    rate: converts ? row.rate : null,
    markup: converts
      ? formatAmount(
        row.sellCurrency,
        markupOf(row.sellMinor - row.feeMinor, row.buyMinor, row.midRate, row.sellCurrency, row.buyCurrency),
      )
      : null,
    priority: row.priority,
    rail: row.rail,
    rail_kind: RAILS[row.rail].kind,
    rail_name: RAILS[row.rail].name,
    expected_arrival: row.expectedArrival.toISOString(),
  };
}

/**
 * A payment for the viewer; `people` names its creator and approver. `departed` holds the ids of
 * payments whose creator is no longer a user of the account (read by `departedCreators`);
 * `recipientNotes` what the approver is told of a waiting payment's recipient (`recipientNotes`).
 */
export function paymentAnswer(
  row: PaymentRow,
  people: Map<number, Person>,
  viewer: Viewer,
  departed: ReadonlySet<number> = NONE,
  recipientNotes: ReadonlyMap<number, RecipientNote> = NO_RECIPIENT_NOTES,
) {
  const { name, type, currency, country, details } = row.recipient;
  return {
    id: row.id,
    status: row.status,
    recipient_id: row.recipientId,
    recipient: { name, type, currency, country, details },
    ...costAnswer(row),
    reference: row.reference,
    created_by: personOr(people, row.createdBy),
    created_at: row.createdAt.toISOString(),
    rate_held_until: row.status === "pending_approval" ? rateHeldUntil(row)?.toISOString() ?? null : null,
    approved_by: row.approvedBy === null ? null : personOr(people, row.approvedBy),
    approved_at: row.approvedAt?.toISOString() ?? null,
    reason: row.reason,
    rail_reference: row.railReference,
    actions: actionsFor(
      row,
      viewer,
      departed.has(row.id) ? personOr(people, row.createdBy).name : null,
      recipientNotes.has(row.id) ? { name, note: recipientNotes.get(row.id)! } : null,
    ),
  };
}

export function eventAnswer(row: PaymentEventRow, people: Map<number, Person>) {
  return {
    event: row.event,
    at: row.at.toISOString(),
    actor: row.actorId === null ? null : personOr(people, row.actorId),
    on_behalf_admin: row.onBehalfAdminId === null ? null : personOr(people, row.onBehalfAdminId),
    note: row.note,
  };
}
