/**
 * The check after conversions over HTTP (bench/conversions.ts, bench/quotes.ts), on the portal's
 * database beside it: the ledger holds (server/ledger/check.ts), every 201 answered is a
 * conversion, each with its ledger transfer, and every used quote made one conversion.
 */
import { openDatabase } from "../../db/client.ts";
import { checkLedger, type LedgerReport } from "../../server/ledger/check.ts";

export interface ConversionsCheck {
  ok: boolean;
  /** What is wrong, for the summary; empty when ok. */
  problems: string[];
  /** Conversions stored. */
  stored: number;
  report: LedgerReport;
}

/** `answered`: the 201s the benchmark counted (warm-ups included). */
export async function checkConversions(databasePath: string, answered: number): Promise<ConversionsCheck> {
  const reader = await openDatabase({ url: `file:${databasePath}` });
  try {
    const report = await checkLedger(reader);
    const [{ n, orphans, quotesUsed }] = (await reader.$client.execute(
      `SELECT (SELECT COUNT(*) FROM conversions) AS n,
              (SELECT COUNT(*) FROM conversions c LEFT JOIN ledger_transfers t ON t.id = c.transfer_id
                 AND t.kind = 'conversion' AND t.reference = 'quote:' || c.quote_id WHERE t.id IS NULL) AS orphans,
              (SELECT COUNT(*) FROM quotes WHERE used_at IS NOT NULL) AS quotesUsed`,
    )).rows as unknown as { n: number; orphans: number; quotesUsed: number }[];
    const problems: string[] = [];
    if (!report.ok) problems.push(`${report.violations.length} ledger violations`);
    if (Number(n) !== answered) problems.push(`${n} conversions stored but ${answered} answered 201`);
    if (Number(orphans) !== 0) problems.push(`${orphans} conversions without their ledger transfer`);
    if (Number(quotesUsed) !== Number(n)) problems.push(`${quotesUsed} quotes used for ${n} conversions`);
    return { ok: problems.length === 0, problems, stored: Number(n), report };
  } finally {
    reader.$client.close();
  }
}
