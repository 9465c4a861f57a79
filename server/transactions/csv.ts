/**
 * The account's movements as CSV (docs/decisions/036), streamed: the body is written a page of
 * rows at a time, each page read from the database when the client has taken the one before, so
 * 100,000 rows take no more memory than one page. Quoting is csv-stringify's (a name with a comma
 * or a quote stays one cell); it runs on the server only.
 */
import { stringify } from "csv-stringify/sync";
import type { Database } from "../../db/client.ts";
import { MOVEMENT_KIND_NAMES } from "../../lib/contracts/transactions.ts";
import { spreadsheetText } from "../csv.ts";
import { type Cursor, type Movement, type MovementFilters, movementPage, movementsOf } from "./movements.ts";

/** The columns, in order, with their header. */
export const CSV_COLUMNS = [
  "date",
  "id",
  "kind",
  "type",
  "status",
  "description",
  "currency",
  "amount",
  "held",
  "counter_currency",
  "counter_amount",
  "fee",
  "fee_currency",
  "rate",
  "reference",
  "counterparty",
  "payment_id",
] as const;

/** Rows read from the database at once: a page of the stream. */
export const CSV_PAGE_ROWS = 250;

function row(m: Movement): (string | number | null)[] {
  return [
    m.created_at,
    m.id,
    m.kind,
    MOVEMENT_KIND_NAMES[m.kind],
    m.status,
    spreadsheetText(m.description),
    m.currency,
    m.amount,
    m.held,
    m.counter_currency,
    m.counter_amount,
    m.fee,
    m.fee_currency,
    m.rate,
    spreadsheetText(m.reference),
    spreadsheetText(m.counterparty),
    m.payment_id,
  ];
}

/** The CSV of the filtered movements, newest first, as a stream of UTF-8 bytes. */
export function movementsCsv(db: Database, accountId: number, filters: MovementFilters): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cursor: Cursor | null = null;
  let header = true;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const page = await movementPage(db, accountId, filters, cursor, CSV_PAGE_ROWS);
      const movements = await movementsOf(db, accountId, page.ids.map((c) => c.id));
      const text = stringify(movements.map(row), { header, columns: header ? [...CSV_COLUMNS] : undefined });
      header = false;
      if (text) controller.enqueue(encoder.encode(text));
      cursor = page.ids[page.ids.length - 1] ?? null;
      if (!page.more) controller.close();
    },
  }, { highWaterMark: 1 });
}
