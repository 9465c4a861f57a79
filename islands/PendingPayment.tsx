import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { RATE_EXPIRED_OPENING } from "../lib/payments/approval-notes.ts";
import { isUnpaid, moneyBackText } from "../lib/payments/money-back.ts";
import { errorText, fieldsOf } from "./lib/api.ts";
import { notify } from "./lib/notification-store.ts";
import { withQueries } from "./lib/query-client.tsx";
import { balanceKeys, pendingPaymentKeys } from "./lib/query-keys.ts";
import { useWrite } from "./lib/write.ts";
import {
  approvePendingPayment,
  cancelPayment,
  PAYMENT_CHANGES,
  type PaymentWithTimeline,
  rejectPendingPayment,
} from "./payments/calls.ts";
import { arrivalText, CostList, rateHeldText } from "./payments/cost.tsx";
import { paymentQuery } from "./payments/pending-queries.ts";
import { StatusBadge } from "./payments/status.tsx";
import { detailLines } from "./recipients/format.ts";
import { Timeline, when } from "./payments/timeline.tsx";
import { Alert, FormAlert } from "./ui/alert.tsx";
import { Field } from "./ui/field.tsx";
import { useInPlace } from "./ui/take-focus.ts";
import { BusyButton } from "./ui/submit-button.tsx";

export interface PendingPaymentProps {
  accountRef: string;
  /** The customer an administrator was acting for when the page was rendered; null for the customer's own. */
  actingFor: number | null;
  /** As the server rendered it: the query starts from it. */
  payment: PaymentWithTimeline;
}

const TERM = "text-neutral-600 dark:text-neutral-400";

/**
 * A payment's page (GET account/pendingpayments/one?id=), whatever its status now: who prepared it,
 * the full cost, where the money goes, and its timeline. An approver approves it (PUT
 * account/pendingpayments/update) or rejects it with a reason (DELETE account/pendingpayments/one);
 * its creator, an owner or an admin may cancel it before it is sent. Nobody is offered their own
 * payment to approve: the page says why instead, as it does to an administrator on behalf.
 */
function PendingPayment({ accountRef, actingFor, payment: initial }: PendingPaymentProps) {
  const queries = useQueryClient();
  const key = pendingPaymentKeys.one(accountRef, initial.id);
  const query = useQuery({ ...paymentQuery(accountRef, initial.id, actingFor), initialData: initial });
  const p = query.data;
  const [reason, setReason] = useState("");
  // The reason to reject, and the question before cancelling: each opened in place by its button.
  const rejectQuestion = useInPlace<HTMLTextAreaElement>();
  const cancelQuestion = useInPlace<HTMLButtonElement>();
  const rejecting = rejectQuestion.open;
  const cancelling = cancelQuestion.open;
  const [problem, setProblem] = useState<{ error: string; fields: Record<string, string> } | null>(null);

  const done = (title: string) => (answer: PaymentWithTimeline) => {
    queries.setQueryData(key, answer);
    setProblem(null);
    rejectQuestion.close();
    cancelQuestion.close();
    notify({
      title,
      description: `${answer.buy_amount} ${answer.buy_currency} to ${answer.recipient.name}`,
      color: "success",
    });
  };
  const changes = [balanceKeys.of(accountRef), ...PAYMENT_CHANGES];
  const failed = (err: unknown) => {
    setProblem({ error: errorText(err), fields: fieldsOf(err) });
    void queries.invalidateQueries({ queryKey: key });
  };
  const approval = useWrite({
    call: approvePendingPayment,
    idempotent: true,
    invalidates: changes,
    onSuccess: done("Payment approved"),
  });
  const rejection = useWrite({
    call: rejectPendingPayment,
    idempotent: true,
    invalidates: changes,
    onSuccess: done("Payment rejected"),
  });
  const cancellation = useWrite({
    call: cancelPayment,
    idempotent: true,
    invalidates: changes,
    onSuccess: done("Payment cancelled"),
  });
  const busy = approval.isPending || rejection.isPending || cancellation.isPending;
  const id = String(p.id);
  const moneyBack = moneyBackText(p);
  /** When it arrived, if the timeline says (no expectation is shown for an arrived payment). */
  const arrivedAt = p.events.findLast((e) => e.event === "completed")?.at;
  // Converted on the way and waiting: its rate is the company's promise only so long (decision 092),
  // said to whoever prepared it as to whoever approves it.
  // Past that time the server's note says so, and the promise is said in the past tense.
  const rateHeld = p.rate_held_until
    ? rateHeldText(p.rate_held_until, p.actions.note?.startsWith(RATE_EXPIRED_OPENING) ?? false)
    : null;

  function reject(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    if (!reason.trim()) {
      return setProblem({ error: "Say why you reject it.", fields: { reason: "Say why you reject it." } });
    }
    rejection.mutate({ query: { id }, body: { reason: reason.trim() } }, { onError: failed });
  }

  return (
    <div className="space-y-6">
      <section className="card space-y-4" aria-labelledby="payment-title">
        <div className="flex flex-wrap items-center gap-3">
          <h2 id="payment-title" className="text-lg font-semibold">
            {`${p.buy_amount} ${p.buy_currency} to ${p.recipient.name}`}
          </h2>
          <StatusBadge status={p.status} />
        </div>
        <p className="text-sm">
          Prepared by <strong>{p.created_by.name}</strong>
          {p.created_by.email ? ` (${p.created_by.email})` : ""} on {when(p.created_at)}.
          {p.approved_by ? ` Approved by ${p.approved_by.name} on ${when(p.approved_at!)}.` : ""}
        </p>
        {rateHeld ? <p className="text-sm">{rateHeld}</p> : null}
        {p.reason ? <p className="text-sm">{`Reason: ${p.reason}`}</p> : null}
        {moneyBack ? <Alert tone="info" live={false}>{moneyBack}</Alert> : null}
        {p.status === "completed"
          ? <CostList cost={p} status={p.status} arrival={arrivedAt ? when(arrivedAt) : null} arrivalLabel="Arrived" />
          : <CostList cost={p} status={p.status} arrival={isUnpaid(p.status) ? null : arrivalText(p, p.status)} />}
      </section>

      <section className="card space-y-3" aria-labelledby="payment-recipient-title">
        <h2 id="payment-recipient-title" className="text-lg font-semibold">Where the money goes</h2>
        <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-2 text-sm">
          <dt className={TERM}>Recipient</dt>
          <dd>{`${p.recipient.name} (${p.recipient.type === "business" ? "a business" : "a person"})`}</dd>
          <dt className={TERM}>Bank country</dt>
          <dd>{p.recipient.country}</dd>
          {/* Written and named as on the recipients screen, where the approver may have checked them. */}
          {detailLines(p.recipient.details).map(([key, label, value]) => (
            <div key={key} className="contents">
              <dt className={TERM}>{label}</dt>
              <dd className="font-mono break-all">{value}</dd>
            </div>
          ))}
          <dt className={TERM}>Reference</dt>
          <dd>{p.reference}</dd>
        </dl>
      </section>

      {p.actions.approve || p.actions.cancel || p.actions.note
        ? (
          <section className="card space-y-4" aria-labelledby="payment-decision-title">
            <h2 id="payment-decision-title" className="text-lg font-semibold">
              {p.status === "pending_approval" ? "Approval" : "Stop this payment"}
            </h2>
            {p.actions.note ? <Alert tone="info" live={false}>{p.actions.note}</Alert> : null}
            {problem && !rejecting ? <Alert>{problem.error}</Alert> : null}
            <div className="flex flex-wrap gap-3">
              {p.actions.approve
                ? (
                  <BusyButton
                    type="button"
                    className="btn-primary"
                    busy={busy}
                    aria-busy={approval.isPending || undefined}
                    onClick={() => approval.mutate({ query: { id } }, { onError: failed })}
                  >
                    {approval.isPending ? "Approving…" : "Approve"}
                  </BusyButton>
                )
                : null}
              {p.actions.reject && !rejecting
                ? (
                  <BusyButton
                    type="button"
                    className="btn-outline"
                    busy={busy}
                    aria-busy={undefined}
                    ref={rejectQuestion.opener}
                    onClick={rejectQuestion.show}
                  >
                    Reject…
                  </BusyButton>
                )
                : null}
              {p.actions.cancel && !cancelling
                ? (
                  <BusyButton
                    type="button"
                    className="btn-ghost"
                    busy={busy}
                    aria-busy={undefined}
                    ref={cancelQuestion.opener}
                    onClick={cancelQuestion.show}
                  >
                    Cancel this payment…
                  </BusyButton>
                )
                : null}
            </div>
            {rejecting
              ? (
                <form
                  onSubmit={reject}
                  onKeyDown={rejectQuestion.onKeyDown}
                  noValidate
                  aria-label="Reject the payment"
                  className="space-y-3"
                >
                  <Field id="payment-reject-reason" label="Why do you reject it?" error={problem?.fields.reason}>
                    {(control) => (
                      <textarea
                        {...control}
                        ref={rejectQuestion.first}
                        className="field-control"
                        rows={3}
                        maxLength={500}
                        value={reason}
                        onChange={(event) => setReason(event.currentTarget.value)}
                      />
                    )}
                  </Field>
                  {/* A problem with the reason is said once, under the field (FormAlert leaves it there). */}
                  <FormAlert error={problem?.error ?? null} fields={problem?.fields} shown={["reason"]} />
                  <div className="flex gap-3">
                    <BusyButton
                      type="submit"
                      className="btn-primary"
                      busy={busy}
                      aria-busy={rejection.isPending || undefined}
                    >
                      {rejection.isPending ? "Rejecting…" : "Reject the payment"}
                    </BusyButton>
                    <button type="button" className="btn-ghost" onClick={rejectQuestion.dismiss}>Back</button>
                  </div>
                </form>
              )
              : null}
            {cancelling
              ? (
                <div className="space-y-3" onKeyDown={cancelQuestion.onKeyDown}>
                  <p className="text-sm">
                    {`Cancel it? The ${p.sell_amount} ${p.sell_currency} held for it goes back to your balance.`}
                  </p>
                  <div className="flex gap-3">
                    <BusyButton
                      ref={cancelQuestion.first}
                      type="button"
                      className="btn-primary"
                      busy={busy}
                      aria-busy={cancellation.isPending || undefined}
                      onClick={() => cancellation.mutate({ params: { id }, body: {} }, { onError: failed })}
                    >
                      {cancellation.isPending ? "Cancelling…" : "Yes, cancel it"}
                    </BusyButton>
                    <button type="button" className="btn-ghost" onClick={cancelQuestion.dismiss}>Keep it</button>
                  </div>
                </div>
              )
              : null}
          </section>
        )
        : null}

      <section className="card space-y-3" aria-labelledby="payment-timeline-title">
        <h2 id="payment-timeline-title" className="text-lg font-semibold">What happened</h2>
        <Timeline events={p.events} />
      </section>
    </div>
  );
}

export default withQueries(PendingPayment);
