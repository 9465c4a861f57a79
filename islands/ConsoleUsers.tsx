import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { SessionUser } from "../lib/session-user.ts";
import { type ConsoleUser, listCustomers } from "./console/calls.ts";
import { CUSTOMER_COLUMNS, CustomerRows } from "./console/customer-rows.tsx";
import { errorText } from "./lib/api.ts";
import { notify } from "./lib/notification-store.ts";
import { onBehalfError, setOnBehalf, startOnBehalf, toCustomer } from "./lib/on-behalf.ts";
import { read, withQueries } from "./lib/query-client.tsx";
import { customerKeys } from "./lib/query-keys.ts";
import { useWrite } from "./lib/write.ts";
import { Alert } from "./ui/alert.tsx";
import { TextField } from "./ui/field.tsx";
import { EmptyRow, Table } from "./ui/table.tsx";

export interface ConsoleUsersProps {
  /** Every customer, as the server rendered them: the unfiltered list's query starts from these. */
  users: ConsoleUser[];
  /** The customer the administrator currently acts for, if any. */
  onBehalfId: number | null;
}

/** Where "Act on behalf" goes: a full page load, so the layout renders the banner. */
export const ACT_ON_BEHALF_TARGET = "/account";

/** Whether a row matches the search text (name, email, account reference or id). */
export function matches(user: ConsoleUser, q: string): boolean {
  const needle = q.trim().toLowerCase();
  if (!needle) return true;
  return [user.name, user.username, user.account_ref ?? "", String(user.id)].some((v) =>
    v.toLowerCase().includes(needle)
  );
}

const customersQuery = (q: string) => read(customerKeys.search(q), listCustomers, { query: q ? { q } : {} });

/**
 * The administrators' customer list: a search (filters as one types; Enter also asks the server,
 * GET console/users?q=), onboarding badges, "Act on behalf" (POST account/onbehalf, then /account)
 * and, for a customer whose identity is approved but who has no account, the compliance review
 * that opens it (POST console/users/{id}/open-account).
 */
function ConsoleUsers({ users: initialUsers, onBehalfId }: ConsoleUsersProps) {
  const queries = useQueryClient();
  const [q, setQ] = useState("");
  /** The search text the server was last asked about. */
  const [searched, setSearched] = useState("");
  const [reviewing, setReviewing] = useState<number | null>(null);
  const customers = useQuery({
    ...customersQuery(searched),
    initialData: searched === "" ? initialUsers : undefined,
    placeholderData: keepPreviousData,
  });
  const act = useWrite({
    call: startOnBehalf,
    idempotent: true,
    onSuccess(answer) {
      setOnBehalf(toCustomer(answer), queries);
      location.assign(ACT_ON_BEHALF_TARGET);
    },
  });

  function search(event: { preventDefault(): void }) {
    event.preventDefault();
    const text = q.trim();
    if (text === searched) void customers.refetch();
    else setSearched(text);
  }

  function opened(id: number, customer: SessionUser) {
    const user = customers.data?.find((u) => u.id === id);
    const ref = customer.account_ref ?? user?.account_ref ?? null;
    // The row changes at once; the lists are read again after the write.
    queries.setQueriesData<ConsoleUser[]>(
      { queryKey: customerKeys.all },
      (rows) => rows?.map((u) => (u.id === id ? { ...u, account: customer.account ?? true, account_ref: ref } : u)),
    );
    setReviewing(null);
    notify({
      title: "Account opened",
      description: `${user?.name ?? "The customer"}'s account${ref ? ` ${ref}` : ""} is open.`,
      color: "success",
    });
  }

  const shown = (customers.data ?? []).filter((u) => matches(u, q));
  const acting = act.isPending || act.isSuccess ? Number(act.variables?.body?.on_behalf_of) : null;
  const error = act.error ? onBehalfError(act.error) : customers.isError ? errorText(customers.error) : null;

  return (
    <div className="flex flex-col gap-4">
      <form role="search" onSubmit={search} className="flex flex-wrap items-end gap-3">
        <TextField
          id="console-users-search"
          label="Search customers"
          fieldClassName="min-w-64 flex-1"
          type="search"
          required={false}
          value={q}
          onChange={(event) => setQ(event.currentTarget.value)}
          placeholder="Name, email or account reference"
          autoComplete="off"
        />
        <button type="submit" className="btn-outline" disabled={customers.isFetching}>
          {customers.isFetching ? "Searching…" : "Search"}
        </button>
      </form>

      {error ? <Alert>{error}</Alert> : null}

      <p role="status" className="text-sm text-neutral-600 dark:text-neutral-300">
        {shown.length === 1 ? "1 customer" : `${shown.length} customers`}
      </p>

      <Table caption="Customers" columns={CUSTOMER_COLUMNS}>
        {shown.length === 0
          ? <EmptyRow columns={CUSTOMER_COLUMNS.length}>No customer matches this search.</EmptyRow>
          : null}
        {shown.map((user) => (
          <CustomerRows
            key={user.id}
            user={user}
            current={user.id === onBehalfId}
            acting={acting}
            reviewing={reviewing === user.id}
            onAct={() => act.mutate({ body: { on_behalf_of: user.id } })}
            onReview={(open) => setReviewing(open ? user.id : null)}
            onOpened={(customer) => opened(user.id, customer)}
          />
        ))}
      </Table>
    </div>
  );
}

export default withQueries(ConsoleUsers);
