import { useQuery, useQueryClient } from "@tanstack/react-query";
import { lazy, type ReactNode, Suspense, useEffect, useRef, useState } from "react";
import { notify } from "./lib/notification-store.ts";
import { withQueries } from "./lib/query-client.tsx";
import { recipientKeys } from "./lib/query-keys.ts";
import { type RecipientPage, recipientQuery, type RecipientWithHistory } from "./recipients/calls.ts";
import { RecipientCard } from "./recipients/recipient-card.tsx";
import { RecipientList } from "./recipients/recipient-list.tsx";
import { Alert } from "./ui/alert.tsx";
import type { CurrencyOption } from "./ui/currency-select.tsx";
import { errorText } from "./lib/api.ts";

/**
 * The form that adds or changes a recipient, with the bank-detail checks it runs while the customer
 * types (ibantools and the rules: most of this page's code), loaded when it is wanted or about to
 * be (a pointer on the button); the list and the recipients' cards do not need it.
 */
const loadForm = () => import("./recipients/recipient-form.tsx");
const RecipientForm = lazy(() =>
  loadForm().then(({ RecipientForm }) => ({ default: RecipientForm })).catch(() => ({
    default: () => (
      <p role="alert" className="field-error">The form could not be loaded. Reload the page to try again.</p>
    ),
  }))
);

const loading = <p role="status" className="text-sm text-neutral-600 dark:text-neutral-300">Loading the form…</p>;

export interface RecipientsProps {
  /** The current account: the recipients' queries are keyed by it. */
  accountRef: string;
  /** The first page of recipients, as the server rendered it. */
  recipients: RecipientPage;
  /** The recipient the address named (?recipient=5), with its history, else null. */
  selected: RecipientWithHistory | null;
  /** The currencies recipients can be paid in. */
  currencies: CurrencyOption[];
  /** Whether the user's role may add, change and delete recipients (lib/permissions.ts). */
  canManage: boolean;
}

type View = { is: "list" } | { is: "adding" } | { is: "open"; id: number } | { is: "changing"; id: number };

/** Keeps the open recipient in the address, so a reload or a shared link opens it again. */
function remember(id: number | null) {
  const url = new URL(location.href);
  if (id === null) url.searchParams.delete("recipient");
  else url.searchParams.set("recipient", String(id));
  history.replaceState(history.state, "", url);
}

function OpenRecipient({ accountRef, id, children }: {
  accountRef: string;
  id: number;
  children: (recipient: RecipientWithHistory) => ReactNode;
}) {
  const query = useQuery(recipientQuery(accountRef, id));
  if (query.data) return <>{children(query.data)}</>;
  if (query.isError) return <Alert>{errorText(query.error)}</Alert>;
  return <p role="status" className="text-sm text-neutral-600 dark:text-neutral-300">Loading the recipient…</p>;
}

/**
 * The customer's recipients (/account/recipients): the list with a search, one recipient with its
 * bank details and history, and for those who may manage recipients, adding, changing and deleting
 * them. Every read is a query seeded from the server's render; every write refreshes the list.
 */
function Recipients({ accountRef, recipients, selected, currencies, canManage }: RecipientsProps) {
  const queries = useQueryClient();
  // What the server rendered goes into the page's cache once, as queries of their own: a write
  // then refreshes them like any other, even those not on screen at the time.
  useState(() => {
    const first = recipientKeys.list(accountRef, "", 1);
    if (queries.getQueryData(first) === undefined) queries.setQueryData(first, recipients);
    if (selected) queries.setQueryData(recipientKeys.one(accountRef, selected.id), selected);
  });
  const [view, setView] = useState<View>(selected ? { is: "open", id: selected.id } : { is: "list" });
  /**
   * Where the keyboard goes once the view changes (the button pressed is gone with the old view):
   * the new view's heading, or back in the list, the "Open" button of the recipient left, else
   * "Add a recipient" (or the search for a viewer). Null until the user does something: the page
   * opens with the focus where the browser puts it.
   */
  const [moved, setMoved] = useState<{ back?: number } | null>(null);
  const root = useRef<HTMLDivElement>(null);
  const go = (next: View, back?: number) => {
    setView(next);
    setMoved({ back });
    remember(next.is === "open" || next.is === "changing" ? next.id : null);
  };
  useEffect(() => {
    if (!moved || view.is !== "list") return;
    const list = root.current;
    const to = (moved.back !== undefined && list?.querySelector<HTMLElement>(`[data-open="${moved.back}"]`)) ||
      list?.querySelector<HTMLElement>("[data-add]") || list?.querySelector<HTMLElement>("#recipient-search");
    to?.focus();
  }, [moved, view]);

  return (
    <div ref={root} className="flex flex-col gap-6">
      {view.is === "list" && canManage
        ? (
          <div>
            <button
              type="button"
              className="btn-primary"
              data-add
              onPointerEnter={loadForm}
              onFocus={loadForm}
              onClick={() => go({ is: "adding" })}
            >
              Add a recipient
            </button>
          </div>
        )
        : null}
      {view.is === "adding"
        ? (
          <Suspense fallback={loading}>
            <RecipientForm
              accountRef={accountRef}
              currencies={currencies}
              onSaved={(saved) => {
                notify({ title: `${saved.name} saved`, color: "success" });
                go({ is: "open", id: saved.id });
              }}
              onCancel={() => go({ is: "list" })}
            />
          </Suspense>
        )
        : null}
      {view.is === "open" || view.is === "changing"
        ? (
          <OpenRecipient accountRef={accountRef} id={view.id}>
            {(recipient) =>
              view.is === "changing"
                ? (
                  <Suspense fallback={loading}>
                    <RecipientForm
                      key={recipient.id}
                      accountRef={accountRef}
                      currencies={currencies}
                      recipient={recipient}
                      onSaved={(saved) => {
                        notify({ title: `Changes to ${saved.name} saved`, color: "success" });
                        go({ is: "open", id: saved.id });
                      }}
                      onCancel={() => go({ is: "open", id: recipient.id })}
                    />
                  </Suspense>
                )
                : (
                  <RecipientCard
                    accountRef={accountRef}
                    recipient={recipient}
                    canManage={canManage}
                    takeFocus={moved !== null}
                    onEditWanted={loadForm}
                    onEdit={() => go({ is: "changing", id: recipient.id })}
                    onDeleted={() => go({ is: "list" })}
                    onClose={() => go({ is: "list" }, recipient.id)}
                  />
                )}
          </OpenRecipient>
        )
        : null}
      {view.is === "list" ? <RecipientList accountRef={accountRef} onOpen={(id) => go({ is: "open", id })} /> : null}
    </div>
  );
}

export default withQueries(Recipients);
