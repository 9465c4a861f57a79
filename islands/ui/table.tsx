/**
 * A table of rows in a bordered, scrollable box, with a header row and a row that says when there
 * is nothing to show. Cells take CELL (or NUMBER for amounts) so they line up with the header.
 */
import type { ReactNode } from "react";

export interface Column {
  label: ReactNode;
  /** Amounts are right-aligned, in the header too. */
  numeric?: boolean;
  /** For screen readers only ("Actions" above a column of buttons). */
  hidden?: boolean;
  /**
   * Left out on a phone (below `sm`), where the row says it under another cell instead: its cells
   * take PHONE_HIDDEN, the text shown in their place PHONE_ONLY (decision 040, phone width).
   */
  hiddenOnPhone?: boolean;
}

/** A cell of a column left out on a phone (Column.hiddenOnPhone). */
export const PHONE_HIDDEN = "hidden sm:table-cell";
/** What a phone shows, under another cell, in place of the columns it leaves out. */
export const PHONE_ONLY = "block sm:hidden";

export const CELL = "px-4 py-3";
export const NUMBER = "px-4 py-3 text-right whitespace-nowrap tabular-nums";
/** The cell that names its row (a <th scope="row">). */
export const ROW_HEADER = "px-4 py-3 font-medium text-neutral-900 dark:text-neutral-100";
/** Muted text inside a cell. */
export const MUTED = "text-neutral-600 dark:text-neutral-300";

/**
 * A box that scrolls sideways when what it holds is wider than the screen (a table on a phone). It
 * takes the keyboard's focus, so that Tab and then the arrow keys scroll it: a table with no link or
 * button inside could otherwise be scrolled only with a pointer. Named for screen readers by
 * `label`, or by the element `labelledBy` names (a heading).
 */
export function ScrollBox({ label, labelledBy, className, children }: {
  label?: string;
  labelledBy?: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div
      // A group, not a region: the page's landmarks stay its sections, not one more per table.
      role={label || labelledBy ? "group" : undefined}
      aria-label={label}
      aria-labelledby={labelledBy}
      tabIndex={0}
      className={`overflow-x-auto focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-primary-600 ${
        className ?? ""
      }`}
    >
      {children}
    </div>
  );
}

export function Table({ caption, labelledBy, columns, busy, className, children }: {
  /** Said to screen readers; `null` when a heading or a form's label already names the table. */
  caption: string | null;
  /** With no caption: the id of the heading that names the table (and its scrolling box). */
  labelledBy?: string;
  columns: Column[];
  busy?: boolean;
  /** Classes of the box (a height limit, say). */
  className?: string;
  children: ReactNode;
}) {
  // `relative`: the screen-reader-only labels (absolutely placed) scroll with the table; otherwise
  // those of a wide table's right-hand columns stick out of the box and widen the page on a phone.
  return (
    <ScrollBox
      label={caption ?? undefined}
      labelledBy={caption ? undefined : labelledBy}
      className={`relative rounded-xl border border-neutral-200 dark:border-neutral-800 ${className ?? ""}`}
    >
      <table className="w-full text-left text-sm" aria-busy={busy || undefined}>
        {caption ? <caption className="sr-only">{caption}</caption> : null}
        <thead className="sticky top-0 bg-neutral-50 text-neutral-700 dark:bg-neutral-900 dark:text-neutral-300">
          <tr>
            {columns.map((column, i) => (
              <th
                key={i}
                scope="col"
                className={`${CELL} font-semibold ${column.numeric ? "text-right" : ""} ${
                  column.hiddenOnPhone ? PHONE_HIDDEN : ""
                }`}
              >
                {column.hidden ? <span className="sr-only">{column.label}</span> : column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-neutral-200 dark:divide-neutral-800">{children}</tbody>
      </table>
    </ScrollBox>
  );
}

/** The row a table shows when it has no other. */
export function EmptyRow({ columns, children }: { columns: number; children: ReactNode }) {
  return (
    <tr>
      <td colSpan={columns} className={`px-4 py-6 text-center ${MUTED}`}>{children}</td>
    </tr>
  );
}

/** A row under another that opens in place (a form about that row). */
export function DetailRow({ id, columns, children }: { id: string; columns: number; children: ReactNode }) {
  return (
    <tr id={id}>
      <td colSpan={columns} className="bg-neutral-50 px-4 py-4 dark:bg-neutral-900">{children}</td>
    </tr>
  );
}
