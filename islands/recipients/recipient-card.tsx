/**
 * One recipient: who they are, their bank details (an IBAN in groups of four), when and by whom
 * the bank details last changed, the history of changes, and for those who may manage recipients,
 * buttons to change or delete it. Deleting asks first; payments already made keep what they paid.
 */
import { useQueryClient } from "@tanstack/react-query";
import { errorText } from "../lib/api.ts";
import { notify } from "../lib/notification-store.ts";
import { recipientKeys } from "../lib/query-keys.ts";
import { useWrite } from "../lib/write.ts";
import { Alert } from "../ui/alert.tsx";
import { useInPlace, useTakeFocus } from "../ui/take-focus.ts";
import { deleteRecipient, type RecipientWithHistory } from "./calls.ts";
import { countryLabel, detailLines, moment } from "./format.ts";
import { Grouped } from "./grouped.tsx";
import { byWhom, History } from "./history.tsx";
import { BusyButton } from "../ui/submit-button.tsx";

export function RecipientCard(
  { accountRef, recipient, canManage, takeFocus, onEditWanted, onEdit, onDeleted, onClose }: {
    accountRef: string;
    recipient: RecipientWithHistory;
    canManage: boolean;
    /** The card replaced what the keyboard was on: its heading takes the focus. */
    takeFocus: boolean;
    /** The pointer or the keyboard is on "Change": the form may start loading. */
    onEditWanted: () => void;
    onEdit: () => void;
    onDeleted: () => void;
    onClose: () => void;
  },
) {
  const queries = useQueryClient();
  const deleteQuestion = useInPlace<HTMLButtonElement>();
  const confirming = deleteQuestion.open;
  const heading = useTakeFocus<HTMLHeadingElement>(takeFocus);
  const removal = useWrite({
    call: deleteRecipient,
    invalidates: [recipientKeys.all],
    idempotent: true,
    onSuccess() {
      queries.removeQueries({ queryKey: recipientKeys.one(accountRef, recipient.id) });
      notify({ title: `${recipient.name} deleted`, color: "success" });
      onDeleted();
    },
  });
  const lastDetailsChange = recipient.changes.find((change) => change.kind === "details");
  const id = `recipient-${recipient.id}`;

  return (
    <section aria-labelledby={`${id}-name`} className="card flex flex-col gap-5">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h2 ref={heading} tabIndex={-1} id={`${id}-name`} className="text-lg font-semibold">{recipient.name}</h2>
          <p className="text-sm text-neutral-600 dark:text-neutral-300">
            {recipient.type === "business" ? "Business" : "Person"} · receives {recipient.currency} at a bank in{" "}
            {countryLabel(recipient.country)}
            {recipient.email ? ` · ${recipient.email}` : ""}
          </p>
        </div>
        <button type="button" className="btn-ghost" onClick={onClose}>Back to the list</button>
      </div>

      {lastDetailsChange
        ? (
          <Alert tone="warning" live={false} title={`Bank details changed on ${moment(lastDetailsChange.at)}`}>
            Changed{" "}
            {byWhom(lastDetailsChange)}. Before paying, check the new details with the recipient by a means you already
            trust: fraudsters often ask for bank details to be changed.
          </Alert>
        )
        : null}

      <section aria-labelledby={`${id}-bank`}>
        <h3 id={`${id}-bank`} className="mb-2 font-semibold">
          Bank details{recipient.scheme_name ? ` · ${recipient.scheme_name}` : ""}
        </h3>
        {recipient.scheme
          ? null
          : <Alert tone="warning" live={false}>We no longer pay {recipient.currency} to this country.</Alert>}
        <dl className="grid gap-2 text-sm sm:grid-cols-[12rem_1fr]">
          {detailLines(recipient.details).map(([key, label, value]) => (
            <div key={key} className="contents">
              <dt className="text-neutral-600 dark:text-neutral-300">{label}</dt>
              <dd className="font-mono" data-detail={key}>
                <Grouped text={value} />
              </dd>
            </div>
          ))}
        </dl>
      </section>

      {canManage
        ? (
          <div className="flex flex-col gap-3">
            <div className="flex flex-wrap gap-3">
              <button
                type="button"
                className="btn-primary"
                onPointerEnter={onEditWanted}
                onFocus={onEditWanted}
                onClick={onEdit}
              >
                Change
              </button>
              <button
                type="button"
                className="btn-outline"
                aria-expanded={confirming}
                aria-controls={`${id}-delete`}
                ref={deleteQuestion.opener}
                // The question appears below: the keyboard goes to its "Yes, delete".
                onClick={deleteQuestion.show}
              >
                Delete
              </button>
            </div>
            {confirming
              ? (
                <div
                  id={`${id}-delete`}
                  role="group"
                  aria-labelledby={`${id}-delete-question`}
                  onKeyDown={deleteQuestion.onKeyDown}
                >
                  <Alert tone="warning" live={false}>
                    <p id={`${id}-delete-question`}>
                      Delete{" "}
                      {recipient.name}? You will no longer be able to pay them. A payment to them still waiting for
                      approval can then only be rejected; one already approved is still sent unless you cancel it on its
                      page; payments already sent keep the details they were paid to.
                    </p>
                    <div className="mt-3 flex flex-wrap gap-3">
                      <BusyButton
                        ref={deleteQuestion.first}
                        type="button"
                        className="btn-primary"
                        busy={removal.isPending}
                        onClick={() => removal.mutate({ params: { id: recipient.id } })}
                      >
                        {removal.isPending ? "Deleting…" : `Yes, delete ${recipient.name}`}
                      </BusyButton>
                      <button type="button" className="btn-outline" onClick={deleteQuestion.dismiss}>
                        Keep it
                      </button>
                    </div>
                  </Alert>
                </div>
              )
              : null}
            {removal.isError ? <Alert>{errorText(removal.error)}</Alert> : null}
          </div>
        )
        : null}

      <section aria-labelledby={`${id}-history`}>
        <h3 id={`${id}-history`} className="mb-2 font-semibold">History</h3>
        <History changes={recipient.changes} />
      </section>
    </section>
  );
}
