/**
 * The account's recipients, by name, a page at a time, with a search by name. Each row opens the
 * recipient; the bank details show enough to tell recipients apart (an IBAN in groups of four).
 */
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useDeferredValue, useState } from "react";
import { errorText } from "../lib/api.ts";
import { Alert } from "../ui/alert.tsx";
import { TextField } from "../ui/field.tsx";
import { Pager } from "../ui/pager.tsx";
import { CELL, EmptyRow, MUTED, PHONE_HIDDEN, PHONE_ONLY, ROW_HEADER, Table } from "../ui/table.tsx";
import { PER_PAGE, recipientsQuery } from "./calls.ts";
import { detailSummary } from "./format.ts";
import { Grouped } from "./grouped.tsx";

/**
 * On a phone (decision 040) the currency and bank details go under the name, so each row's "Open"
 * is on screen without scrolling the table sideways.
 */
const COLUMNS = [{ label: "Name" }, { label: "Currency and bank", hiddenOnPhone: true }, {
  label: "Bank details",
  hiddenOnPhone: true,
}, {
  label: "Open",
  hidden: true,
}];

export function RecipientList({ accountRef, onOpen }: { accountRef: string; onOpen: (id: number) => void }) {
  const [search, setSearch] = useState("");
  const [page, setPage] = useState(1);
  // Typing keeps the list responsive: the query follows the search a render behind.
  const wanted = useDeferredValue(search.trim());
  const query = useQuery({
    ...recipientsQuery(accountRef, wanted, page),
    placeholderData: keepPreviousData,
  });
  const list = query.data;
  const pages = list ? Math.max(1, Math.ceil(list.total / PER_PAGE)) : 1;

  return (
    <div className="flex flex-col gap-4">
      <TextField
        id="recipient-search"
        label="Search by name"
        type="search"
        optional
        autoComplete="off"
        value={search}
        onChange={(event) => {
          setSearch(event.currentTarget.value);
          setPage(1);
        }}
      />
      {query.isError ? <Alert>{errorText(query.error)}</Alert> : null}
      <Table caption="Recipients" columns={COLUMNS} busy={query.isFetching}>
        {list && list.items.length === 0
          ? (
            <EmptyRow columns={COLUMNS.length}>
              {wanted ? `No recipient's name contains “${wanted}”.` : "No recipients yet."}
            </EmptyRow>
          )
          : null}
        {list?.items.map((recipient) => (
          <tr key={recipient.id}>
            <th scope="row" className={ROW_HEADER}>
              {recipient.name}
              <span className={`block text-xs font-normal ${MUTED}`}>
                {recipient.type === "business" ? "Business" : "Person"}
              </span>
              <span className={`${PHONE_ONLY} font-normal`} data-phone-bank>
                {recipient.currency} · {recipient.country}
                <span className="block font-mono">
                  <Grouped text={detailSummary(recipient.details)} />
                </span>
              </span>
            </th>
            <td className={`${CELL} ${PHONE_HIDDEN}`}>{recipient.currency} · {recipient.country}</td>
            <td className={`${CELL} ${PHONE_HIDDEN} font-mono`}>
              <Grouped text={detailSummary(recipient.details)} />
            </td>
            <td className={`${CELL} text-right`}>
              <button
                type="button"
                className="btn-outline"
                aria-label={`Open ${recipient.name}`}
                data-open={recipient.id}
                onClick={() => onOpen(recipient.id)}
              >
                Open
              </button>
            </td>
          </tr>
        ))}
      </Table>
      <Pager label="Pages of recipients" page={page} pages={pages} onPage={setPage} />
    </div>
  );
}
