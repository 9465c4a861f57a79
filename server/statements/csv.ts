import { stringify } from "csv-stringify/sync";
import { spreadsheetText } from "../csv.ts";
import { plainAmount, type StatementDocument } from "./document.ts";

/** The columns of a statement's CSV, in order (docs/API.md shows an example). */
export const CSV_COLUMNS = [
  "account_ref",
  "currency",
  "date",
  "type",
  "description",
  "rate",
  "amount",
  "balance",
  "held",
] as const;

/**
 * A statement as CSV (decision 037): one table a spreadsheet opens as it is, every row with its
 * account_ref and currency; per currency an `opening` row, a row per line and a `closing` row.
 * Amounts are plain decimals with the currency's digits ("-1234.56"), times ISO 8601 UTC.
 * `onRows` is told after every `every` rows, for the job's progress.
 */
export async function statementCsv(
  doc: StatementDocument,
  onRows: (done: number) => Promise<void> = async () => {},
  every = 1000,
): Promise<Uint8Array> {
  const rows: string[][] = [];
  let done = 0;
  for (const section of doc.sections) {
    const amount = (minor: number) => plainAmount(section.currency, minor);
    rows.push([
      doc.account.ref,
      section.currency,
      `${doc.from}T00:00:00.000Z`,
      "opening",
      `Opening balance on ${doc.from}`,
      "",
      "",
      amount(section.opening),
      amount(section.openingHeld),
    ]);
    for (const line of section.lines) {
      rows.push([
        doc.account.ref,
        section.currency,
        line.at.toISOString(),
        line.kind,
        spreadsheetText(line.description),
        line.rate ?? "",
        amount(line.amount),
        amount(line.balance),
        amount(line.held),
      ]);
      if (++done % every === 0) await onRows(done);
    }
    rows.push([
      doc.account.ref,
      section.currency,
      doc.closingAt.toISOString(),
      "closing",
      `Closing balance on ${doc.to}`,
      "",
      "",
      amount(section.closing),
      amount(section.closingHeld),
    ]);
  }
  const text = stringify(rows, { header: true, columns: [...CSV_COLUMNS] });
  await onRows(done);
  return new TextEncoder().encode(text);
}
