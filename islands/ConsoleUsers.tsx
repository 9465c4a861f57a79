import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { SessionUser } from "../lib/session-user.ts";
import { type CustomerPage, listCustomers } from "./console/calls.ts";
import { CUSTOMER_COLUMNS, CustomerRows } from "./console/customer-rows.tsx";
import { errorText } from "./lib/api.ts";
import { notify } from "./lib/notification-store.ts";
import { ACT_ON_BEHALF_TARGET, onBehalfError, setOnBehalf, startOnBehalf, toCustomer } from "./lib/on-behalf.ts";
import { read, withQueries } from "./lib/query-client.tsx";
import { customerKeys } from "./lib/query-keys.ts";
import { useWrite } from "./lib/write.ts";
import { Alert } from "./ui/alert.tsx";
import { SelectField, TextField } from "./ui/field.tsx";
import { Pager } from "./ui/pager.tsx";
import { EmptyRow, MUTED, Table } from "./ui/table.tsx";

export interface ConsoleUsersProps {
  /** The page the address asked for, as the server rendered it: the list starts from it. */
  first: CustomerPage;
  /** The search, page and filters of the address (`q`, `page` and the filters' names), as read by the server. */
  asked?: Record<string, string>;
  /** The customer the administrator currently acts for, if any. */
  onBehalfId: number | null;
}

/**
 * The list's filters as the query string carries them (GET console/users): each narrows; an empty
 * one is left out.
 */
export interface CustomerFilters {
  type: "" | "Personal" | "Business";
  step: "" | "verify" | "profile" | "identity" | "review" | "rejected" | "open";
  restricted: "" | "true" | "false";
  has_balance: "" | "true" | "false";
  from: string;
  to: string;
}

const NO_FILTERS: CustomerFilters = { type: "", step: "", restricted: "", has_balance: "", from: "", to: "" };

const STEPS: [CustomerFilters["step"], string][] = [
  ["", "Any step"],
  ["verify", "Email to verify"],
  ["profile", "Profile to save"],
  ["identity", "Identity to check"],
  ["review", "Waiting for the review"],
  ["rejected", "Application rejected"],
  ["open", "Account open"],
];

const given = (filters: CustomerFilters) =>
  Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== "")) as Record<string, string>;

const customersQuery = (q: string, page: number, filters: CustomerFilters) =>
  read(customerKeys.search(q, page, given(filters)), listCustomers, {
    query: { ...(q ? { q } : {}), ...(page > 1 ? { page: String(page) } : {}), ...given(filters) },
  });

/** "3 customers", or with a search "3 customers match", and which of them the page shows. */
function countText(list: CustomerPage, searched: string): string {
  const { total, page, per_page, items } = list;
  const what = `${total === 1 ? "1 customer" : `${total} customers`}${
    searched ? (total === 1 ? " matches" : " match") : ""
  }`;
  if (total <= per_page || items.length === 0) return what;
  const from = (page - 1) * per_page + 1;
  return `${what}; showing ${from}–${from + items.length - 1}`;
}

/**
 * The administrators' customer list, a page at a time: a search the server runs over names,
 * emails and account references, with filters by type, onboarding step, restriction, balance and
 * sign-up days (GET console/users?q=&type=&step=&restricted=&has_balance=&from=&to=&page=), how
 * many match, onboarding badges,
 * "Act on behalf" (POST account/onbehalf, then /account) and, for a customer whose identity is
 * approved but who has no account, the compliance review that opens it
 * (POST console/users/{id}/open-account).
 */
function ConsoleUsers({ first, asked = {}, onBehalfId }: ConsoleUsersProps) {
  const queries = useQueryClient();
  const [start] = useState(() => {
    const filters = { ...NO_FILTERS };
    for (const key of Object.keys(NO_FILTERS) as (keyof CustomerFilters)[]) {
      if (asked[key]) (filters as Record<string, string>)[key] = asked[key];
    }
    return { q: asked.q ?? "", page: first.page, filters };
  });
  const [q, setQ] = useState(start.q);
  /** The search text the server was last asked about. */
  const [searched, setSearched] = useState(start.q);
  const [page, setPage] = useState(start.page);
  /** The filters as chosen in the form, and as the server was last asked about them. */
  const [filters, setFilters] = useState<CustomerFilters>(start.filters);
  const [applied, setApplied] = useState<CustomerFilters>(start.filters);
  const unfiltered = Object.keys(given(applied)).length === 0;
  const asAsked = searched === start.q && page === start.page &&
    JSON.stringify(given(applied)) === JSON.stringify(given(start.filters));
  const [reviewing, setReviewing] = useState<number | null>(null);
  const customers = useQuery({
    ...customersQuery(searched, page, applied),
    initialData: asAsked ? first : undefined,
    placeholderData: keepPreviousData,
  });
  // The search and filters live in the address too: Back from a customer's page, a reload or a
  // link shows this list again, where they were lost and every customer was listed.
  useEffect(() => {
    const query = new URLSearchParams({ ...(searched ? { q: searched } : {}), ...given(applied) });
    if (page > 1) query.set("page", String(page));
    const address = `${location.pathname}${query.size ? `?${query}` : ""}`;
    if (address !== `${location.pathname}${location.search}`) history.replaceState(history.state, "", address);
  }, [searched, page, applied]);
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
    setPage(1);
    if (text === searched && page === 1 && JSON.stringify(filters) === JSON.stringify(applied)) {
      void customers.refetch();
    } else {
      setSearched(text);
      setApplied(filters);
    }
  }

  const choose = <K extends keyof CustomerFilters>(key: K) => (event: { currentTarget: { value: string } }) =>
    setFilters((now) => ({ ...now, [key]: event.currentTarget.value as CustomerFilters[K] }));

  function opened(id: number, customer: SessionUser) {
    const user = customers.data?.items.find((u) => u.id === id);
    const ref = customer.account_ref ?? user?.account_ref ?? null;
    // The row changes at once; the lists are read again after the write.
    queries.setQueriesData<CustomerPage>(
      { queryKey: customerKeys.all },
      (list) =>
        list && {
          ...list,
          items: list.items.map((
            u,
          ) => (u.id === id
            ? { ...u, account: customer.account ?? true, account_ref: ref, step: "open", rejection: null }
            : u)
          ),
        },
    );
    setReviewing(null);
    notify({
      title: "Account opened",
      description: `${user?.name ?? "The customer"}'s account${ref ? ` ${ref}` : ""} is open.`,
      color: "success",
    });
  }

  const list = customers.data;
  const shown = list?.items ?? [];
  const pages = list ? Math.max(1, Math.ceil(list.total / list.per_page)) : 1;
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
        <SelectField
          id="console-users-type"
          label="Type"
          required={false}
          value={filters.type}
          onChange={choose("type")}
        >
          <option value="">Any type</option>
          <option value="Personal">Personal</option>
          <option value="Business">Business</option>
        </SelectField>
        <SelectField
          id="console-users-step"
          label="Onboarding step"
          required={false}
          value={filters.step}
          onChange={choose("step")}
        >
          {STEPS.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
        </SelectField>
        <SelectField
          id="console-users-restricted"
          label="Restricted"
          required={false}
          value={filters.restricted}
          onChange={choose("restricted")}
        >
          <option value="">Either</option>
          <option value="true">Restricted</option>
          <option value="false">Not restricted</option>
        </SelectField>
        <SelectField
          id="console-users-balance"
          label="Balance"
          required={false}
          value={filters.has_balance}
          onChange={choose("has_balance")}
        >
          <option value="">Either</option>
          <option value="true">Holds money</option>
          <option value="false">Holds none</option>
        </SelectField>
        <TextField
          id="console-users-from"
          label="Signed up from"
          type="date"
          required={false}
          value={filters.from}
          onChange={choose("from")}
        />
        <TextField
          id="console-users-to"
          label="Signed up until"
          type="date"
          required={false}
          value={filters.to}
          onChange={choose("to")}
        />
        <button type="submit" className="btn-outline" disabled={customers.isFetching}>
          {customers.isFetching ? "Searching…" : "Search"}
        </button>
      </form>

      {error ? <Alert>{error}</Alert> : null}

      <p role="status" className={`text-sm ${MUTED}`}>
        {list ? countText(list, searched || (unfiltered ? "" : "filtered")) : ""}
      </p>

      <Table caption="Customers" columns={CUSTOMER_COLUMNS} busy={customers.isFetching}>
        {shown.length === 0
          ? <EmptyRow columns={CUSTOMER_COLUMNS.length}>No customer matches this search and these filters.</EmptyRow>
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
      <Pager label="Pages of customers" page={page} pages={pages} onPage={setPage} />
    </div>
  );
}

export default withQueries(ConsoleUsers);
