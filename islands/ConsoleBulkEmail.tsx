import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import {
  bulkEmailKeys,
  bulkEmailQuery,
  type BulkEmailWithRecipients,
  deleteBulkEmail,
  previewQuery,
  RECIPIENTS_PER_PAGE,
  type RecipientState,
  sendBulkEmail,
  sendToInDoubt,
  updateBulkEmail,
} from "./bulkemails/calls.ts";
import { ComposeForm } from "./bulkemails/compose-form.tsx";
import { errorText } from "./lib/api.ts";
import { withQueries } from "./lib/query-client.tsx";
import { useWrite } from "./lib/write.ts";
import { Alert } from "./ui/alert.tsx";
import { Pager } from "./ui/pager.tsx";
import { SubmitButton } from "./ui/submit-button.tsx";
import { CELL, EmptyRow, MUTED, Table } from "./ui/table.tsx";
import { useInPlace } from "./ui/take-focus.ts";

export interface ConsoleBulkEmailProps {
  /** The email with its first page of recipients, as the server rendered it. */
  email: BulkEmailWithRecipients;
  /** For correcting a draft in the compose form: the merge fields, and the partners by name. */
  mergeFields: Record<string, string>;
  partners: { id: number; name: string }[];
}

type Compose = Pick<ConsoleBulkEmailProps, "mergeFields" | "partners">;

/** How often an email being sent is asked again, for its progress bar. */
const POLL_MS = 1000;
const sending = (email: { status: string }) => email.status === "queued" || email.status === "sending";

/** A segment's size in words: "1 customer", "12 customers". */
const customers = (n: number) => n === 1 ? "1 customer" : `${n} customers`;

const STATE_WORDS: Record<RecipientState, string> = {
  pending: "Waiting",
  sending: "Being sent",
  sent: "Sent",
  failed: "Failed",
  "in doubt": "In doubt (not sent again unless you decide so)",
  unsubscribed: "Skipped: unsubscribed",
};

/**
 * /console/bulkemails/{id}: a draft is previewed with a customer's data and sent; a sent email shows
 * its progress (asked again every second while it is sent) and each recipient's state.
 */
function ConsoleBulkEmail({ email: initial, mergeFields, partners }: ConsoleBulkEmailProps) {
  const [page, setPage] = useState(1);
  const [state, setState] = useState<RecipientState | "">("");
  const first = page === 1 && state === "";
  const query = useQuery({
    ...bulkEmailQuery(initial.id, page, state),
    initialData: first ? initial : undefined,
    refetchInterval: (q) => (q.state.data && sending(q.state.data) ? POLL_MS : false),
  });
  const email = query.data ?? (first ? initial : null);
  if (query.isError && !email) return <Alert>{errorText(query.error)}</Alert>;
  if (!email) return <p className={MUTED}>Loading…</p>;
  const pages = Math.max(1, Math.ceil(email.recipients.total / RECIPIENTS_PER_PAGE));
  return (
    <div className="flex flex-col gap-6" data-bulk-email={email.id} data-status={email.status}>
      <p>
        <span className="font-medium">To:</span> {email.segment_text}
        {email.status === "draft" ? ` (${customers(email.segment_size)} now)` : ""}
      </p>
      {email.status === "draft"
        ? <Draft email={email} compose={{ mergeFields, partners }} />
        : <Progress email={email} />}
      {email.status !== "draft" && email.counts.in_doubt > 0 ? <InDoubt email={email} /> : null}
      {email.status !== "draft"
        ? (
          <>
            <label className="flex flex-col text-sm">
              <span className="font-medium">Show</span>
              <select
                className="input w-auto"
                value={state}
                onChange={(event) => {
                  setState(event.target.value as RecipientState | "");
                  setPage(1);
                }}
              >
                <option value="">Every recipient</option>
                {(Object.keys(STATE_WORDS) as RecipientState[]).map((s) => (
                  <option key={s} value={s}>{STATE_WORDS[s]}</option>
                ))}
              </select>
            </label>
            <Table
              caption="Recipients"
              busy={query.isFetching}
              columns={[{ label: "Customer" }, { label: "Email" }, { label: "State" }]}
            >
              {email.recipients.items.length === 0
                ? <EmptyRow columns={3}>No recipients here.</EmptyRow>
                : email.recipients.items.map((r) => (
                  <tr key={r.id} data-recipient={r.user_id} data-state={r.state}>
                    <td className={CELL}>
                      <a className="underline" href={`/console/users/${r.user_id}`}>#{r.user_id}</a>
                    </td>
                    <td className={`${CELL} break-all`}>{r.email}</td>
                    <td className={CELL}>
                      {STATE_WORDS[r.state]}
                      {r.error ? <span className={`block text-xs ${MUTED}`}>{r.error}</span> : null}
                    </td>
                  </tr>
                ))}
            </Table>
            <Pager label="Recipients" page={page} pages={pages} onPage={setPage} />
          </>
        )
        : null}
    </div>
  );
}

/**
 * A draft: its preview with a customer's data, and the send; until then it can be corrected in the
 * compose form (saving refreshes the preview) or deleted, behind a confirmation.
 */
function Draft({ email, compose }: { email: BulkEmailWithRecipients; compose: Compose }) {
  const [userId, setUserId] = useState("");
  const [asked, setAsked] = useState("");
  // A bulk email cannot be unsent: the send asks once more, saying to how many.
  // The question before sending replaces Send: it takes the keyboard, and Cancel or Escape give it back.
  const sendQuestion = useInPlace<HTMLButtonElement>();
  const confirming = sendQuestion.open;
  // The draft's form replaces the page's view: given up (Cancel, Escape), it gives the keyboard back to Edit.
  const editor = useInPlace();
  const editing = editor.open;
  const preview = useQuery(previewQuery(email.id, asked));
  const send = useWrite({ call: sendBulkEmail, idempotent: true, invalidates: [bulkEmailKeys.all] });
  const update = useWrite({
    call: updateBulkEmail,
    idempotent: true,
    invalidates: [bulkEmailKeys.all],
    onSuccess: (saved) => {
      editor.close();
      // The page's heading is the subject, rendered by the server outside this island: it would
      // still show the typo just corrected.
      const heading = document.querySelector("main h1");
      if (heading) heading.textContent = saved.subject;
    },
  });
  if (editing) {
    return (
      <ComposeForm
        {...compose}
        initial={email}
        label="Edit the draft"
        submitLabel="Save and preview"
        pending={update.isPending}
        error={update.error}
        onSubmit={(body) => update.mutate({ params: { id: email.id }, body })}
        first={editor.first}
        onCancel={() => {
          update.reset();
          editor.dismiss();
        }}
      />
    );
  }
  return (
    <div className="flex flex-col gap-4">
      <form
        className="flex flex-wrap items-end gap-3"
        aria-label="Preview"
        onSubmit={(event) => {
          event.preventDefault();
          setAsked(userId.trim());
        }}
      >
        <label className="flex flex-col text-sm">
          <span className="font-medium">Preview with the data of customer #</span>
          <input
            className="field-control w-40"
            inputMode="numeric"
            value={userId}
            placeholder="first of the segment"
            onChange={(event) => setUserId(event.currentTarget.value)}
          />
        </label>
        <button type="submit" className="btn-outline">Preview</button>
      </form>
      {preview.isError ? <Alert title="No preview">{errorText(preview.error)}</Alert> : null}
      {preview.data
        ? (
          <section
            aria-label="Preview of the email"
            className="flex flex-col gap-2"
            data-preview={preview.data.user_id}
          >
            <p className="text-sm">
              <span className="font-medium">To:</span> {preview.data.to} (customer #{preview.data.user_id}
              {preview.data.in_segment ? "" : ", not in the segment"})
              <br />
              <span className="font-medium">Subject:</span> <span data-preview-subject>{preview.data.subject}</span>
            </p>
            <iframe
              // Asked again once the draft is saved: the frame shows the new text, not the old.
              key={`${preview.data.user_id}:${preview.dataUpdatedAt}`}
              title="The email as the customer sees it"
              className="h-96 w-full rounded-xl border border-neutral-200 bg-white dark:border-neutral-800"
              sandbox=""
              src={`/console/bulkemails/${email.id}/preview?user_id=${preview.data.user_id}`}
            />
          </section>
        )
        : preview.isPending
        ? <p className={MUTED}>Loading the preview…</p>
        : null}
      {send.isError ? <Alert title="Not sent">{errorText(send.error)}</Alert> : null}
      {confirming
        ? (
          <form
            className="flex flex-wrap items-center gap-3"
            aria-label="Confirm the send"
            onKeyDown={sendQuestion.onKeyDown}
            onSubmit={(event) => {
              event.preventDefault();
              send.mutate({ params: { id: email.id } });
            }}
          >
            <p role="status">
              It goes to {customers(email.segment_size)} now and cannot be taken back.
            </p>
            <SubmitButton
              ref={sendQuestion.first}
              pending={send.isPending}
              pendingLabel="Sending…"
              className="btn-primary"
            >
              Yes, send it now
            </SubmitButton>
            <button type="button" className="btn-ghost" onClick={sendQuestion.dismiss}>Cancel</button>
          </form>
        )
        : (
          <div>
            <button type="button" className="btn-primary" ref={sendQuestion.opener} onClick={sendQuestion.show}>
              Send to {customers(email.segment_size)}
            </button>
          </div>
        )}
      {confirming ? null : (
        <div className="flex flex-wrap gap-3">
          <button type="button" className="btn-outline" ref={editor.opener} onClick={editor.show}>Edit</button>
          <DeleteDraft email={email} />
        </div>
      )}
    </div>
  );
}

/** Deletes the draft, asked once more; then back to the list, where it is gone. */
function DeleteDraft({ email }: { email: BulkEmailWithRecipients }) {
  const question = useInPlace<HTMLButtonElement>();
  const confirming = question.open;
  const remove = useWrite({
    call: deleteBulkEmail,
    idempotent: true,
    // Nothing to refresh: the page is left for the list (rendered by the server), and asking this
    // email's queries again would only fetch 404s for the draft just deleted.
    invalidates: [],
    onSuccess: () => location.assign("/console/bulkemails"),
  });
  if (!confirming) {
    return (
      <button type="button" className="btn-ghost" ref={question.opener} onClick={question.show}>Delete draft</button>
    );
  }
  return (
    <form
      className="flex flex-wrap items-center gap-3"
      aria-label="Confirm the deletion"
      onKeyDown={question.onKeyDown}
      onSubmit={(event) => {
        event.preventDefault();
        remove.mutate({ params: { id: email.id } });
      }}
    >
      <p role="status">Delete the draft “{email.subject}”? It cannot be brought back.</p>
      {remove.isError ? <Alert title="Not deleted">{errorText(remove.error)}</Alert> : null}
      <SubmitButton ref={question.first} pending={remove.isPending} pendingLabel="Deleting…" className="btn-primary">
        Yes, delete it
      </SubmitButton>
      <button type="button" className="btn-ghost" onClick={question.dismiss}>Cancel</button>
    </form>
  );
}

/**
 * The recipients a crash left in doubt: their mail was handed to the mail server, whose answer was
 * never recorded. Whether to send it to them anyway is an administrator's decision (decision 050):
 * asked once more, saying plainly that those who got it will get it twice.
 */
function InDoubt({ email }: { email: BulkEmailWithRecipients }) {
  const question = useInPlace<HTMLButtonElement>();
  const confirming = question.open;
  const send = useWrite({
    call: sendToInDoubt,
    idempotent: true,
    invalidates: [bulkEmailKeys.all],
    onSuccess: () => question.close(),
  });
  const n = email.counts.in_doubt;
  const them = n === 1 ? "recipient" : "recipients";
  return (
    <section aria-label="Recipients in doubt" className="flex flex-col gap-3">
      <p className="text-sm">
        {n} {them}{" "}
        in doubt: a crash came after their mail was handed to the mail server and before its answer was recorded, so
        they may or may not have it. They are not sent it again unless you decide so (the mail provider's log can tell).
      </p>
      {send.isError ? <Alert title="Not sent">{errorText(send.error)}</Alert> : null}
      {confirming
        ? (
          <form
            className="flex flex-wrap items-center gap-3"
            aria-label="Confirm sending to the recipients in doubt"
            onKeyDown={question.onKeyDown}
            onSubmit={(event) => {
              event.preventDefault();
              send.mutate({ params: { id: email.id } });
            }}
          >
            <p role="status">
              Some of these {n} {them}{" "}
              may already have this email: they will then receive it twice. It cannot be taken back.
            </p>
            <SubmitButton ref={question.first} pending={send.isPending} pendingLabel="Sending…" className="btn-primary">
              Yes, send it to them
            </SubmitButton>
            <button type="button" className="btn-ghost" onClick={question.dismiss}>Cancel</button>
          </form>
        )
        : (
          <div>
            <button type="button" className="btn-outline" ref={question.opener} onClick={question.show}>
              Send to the {n} in-doubt {them}
            </button>
          </div>
        )}
    </section>
  );
}

function Progress({ email }: { email: BulkEmailWithRecipients }) {
  const { counts } = email;
  const summary = `${counts.sent} sent, ${counts.failed} failed, ${counts.in_doubt} in doubt, ${counts.unsubscribed} ` +
    "skipped as unsubscribed";
  if (email.status === "failed") {
    return <Alert title="The send stopped">{email.error ?? "The job failed."} {summary}.</Alert>;
  }
  if (email.status === "done") {
    return <Alert tone="success" title="Sent" live>{summary}, of {counts.total}.</Alert>;
  }
  const { done = 0, total = 0 } = email.progress ?? {};
  return (
    <div role="status" className="flex flex-col gap-1 text-sm">
      <span>
        {email.status === "queued" ? "Waiting to start" : "Sending"}: {done} of {total} ({summary})
      </span>
      <progress className="w-full" max={total || 1} value={done} aria-label="Sending progress" />
    </div>
  );
}

export default withQueries(ConsoleBulkEmail);
