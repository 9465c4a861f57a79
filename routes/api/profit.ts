import { stringify } from "csv-stringify/sync";
import { spreadsheetText } from "../../server/csv.ts";
import { type Context, Hono } from "hono";
import * as calls from "../../lib/contracts/profit.ts";
import type { AppEnv } from "../../server/env.ts";
import { InvalidInput } from "../../server/errors.ts";
import { route } from "../../server/http/route.ts";
import { consolePage } from "../../server/http/download.ts";
import {
  periodProblem,
  PROFIT_CSV_COLUMNS,
  type ProfitQuery,
  profitQueryOf,
  profitReport,
} from "../../server/profit/report.ts";

/** The profit report (issue 11, item 7; docs/decisions/047): administrators only, read-only. */

/** The query with its defaults, or a 422 naming the field when its period cannot be reported. */
function checked(c: Context<AppEnv>, query: Parameters<typeof profitQueryOf>[0]): ProfitQuery {
  const q = profitQueryOf(query, c.get("services").now());
  const problem = periodProblem(q);
  if (problem) throw new InvalidInput(problem.message, problem.field);
  return q;
}

export const profitCalls = new Hono<AppEnv>();

/** The report's page with the query the CSV's link was made from (decision 075). */
function profitPage(c: Context<AppEnv>): string {
  const search = new URL(c.req.url).searchParams;
  return search.size ? `/console/profitReports?${search}` : "/console/profitReports";
}

route(profitCalls, calls.profitCsv, async (c, { query }) => {
  const q = checked(c, query);
  const rows = await profitReport(c.get("db"), q);
  // A partner's name is typed by people (server/csv.ts); the figures are the server's own.
  const body = stringify(rows.map((r) => ({ ...r, partner: spreadsheetText(r.partner ?? "") })), {
    header: true,
    columns: [...PROFIT_CSV_COLUMNS],
  });
  return new Response(body, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="profit-${q.from}-${q.to}-${q.group}.csv"`,
      "Cache-Control": "no-store",
    },
  });
}, { linkedFrom: consolePage(profitPage) });

route(profitCalls, calls.profitReport, async (c, { query }) => {
  const q = checked(c, query);
  return { ...q, rows: await profitReport(c.get("db"), q) };
});
