import { dateInputValue } from "../../lib/periods.ts";
import type { Context } from "hono";
import type { ReactNode } from "react";
import { PROFIT_BY, PROFIT_GROUPS, profitQuery } from "../../lib/contracts/profit.ts";
import type { AppEnv } from "../../server/env.ts";
import {
  NO_PARTNER,
  periodProblem,
  periodsBetween,
  type ProfitFigures,
  profitFigures,
  type ProfitQuery,
  profitQueryOf,
} from "../../server/profit/report.ts";
import { formatMinor } from "../../lib/money/amounts.ts";
import type { CurrencyCode } from "../../lib/money/currencies.ts";
import { PageTitle } from "../layouts/parts.tsx";
import { ScrollBox } from "../../islands/ui/table.tsx";

/**
 * Profit reports (issue 11, item 7; docs/decisions/047): a form whose state is the address, a bar
 * chart per currency drawn on the server as SVG (no script), the table the charts are drawn from
 * (their text alternative), and a CSV link with the same query.
 */

const field = "field-control w-full";
const KEYS = ["from", "to", "group", "by"] as const;
const GROUP_NAMES = { day: "Day", week: "Week", month: "Month" } as const;
const BY_NAMES = { currency: "Currency", partner: "Partner" } as const;

const withQuery = (path: string, query: Record<string, string | undefined>) => {
  const text = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => !!e[1])).toString();
  return text ? `${path}?${text}` : path;
};

function Filters({ q }: { q: Partial<Record<(typeof KEYS)[number], string>> }) {
  return (
    <form method="get" action="/console/profitReports" className="card mb-6 grid gap-4 sm:grid-cols-2 lg:grid-cols-5">
      <label className="block">
        <span className="field-label">From</span>
        <input className={field} type="date" name="from" defaultValue={dateInputValue(q.from)} />
      </label>
      <label className="block">
        <span className="field-label">To</span>
        <input className={field} type="date" name="to" defaultValue={dateInputValue(q.to)} />
      </label>
      <label className="block">
        <span className="field-label">Group by</span>
        <select className={field} name="group" defaultValue={q.group ?? "day"}>
          {PROFIT_GROUPS.map((g) => <option key={g} value={g}>{GROUP_NAMES[g]}</option>)}
        </select>
      </label>
      <label className="block">
        <span className="field-label">Split by</span>
        <select className={field} name="by" defaultValue={q.by ?? "currency"}>
          {PROFIT_BY.map((b) => <option key={b} value={b}>{BY_NAMES[b]}</option>)}
        </select>
      </label>
      <div className="flex items-end gap-2">
        <button type="submit" className="btn-primary">Show</button>
        <a className="btn-ghost" href="/console/profitReports">Clear</a>
      </div>
    </form>
  );
}

const W = 640;
const H = 200;
const PAD = { left: 8, right: 8, top: 12, bottom: 24 };

/**
 * One currency's income per period as stacked bars (markup below, fees above), drawn on the
 * server. Decorative for assistive technology: the table below holds the same figures.
 */
function Chart({ currency, periods, rows }: { currency: string; periods: string[]; rows: ProfitFigures[] }) {
  const per = new Map<string, { markup: number; fees: number }>();
  for (const r of rows) {
    const p = per.get(r.period) ?? { markup: 0, fees: 0 };
    p.markup += r.markup;
    p.fees += r.fees;
    per.set(r.period, p);
  }
  const max = Math.max(1, ...[...per.values()].map((p) => Math.max(0, p.markup) + Math.max(0, p.fees)));
  const plotH = H - PAD.top - PAD.bottom;
  const slot = (W - PAD.left - PAD.right) / Math.max(1, periods.length);
  const bar = Math.max(1, slot * 0.7);
  const total = [...per.values()].reduce((s, p) => s + p.markup + p.fees, 0);
  const code = currency as CurrencyCode;
  return (
    <figure className="card mb-6" data-chart={currency}>
      <figcaption className="mb-2 font-semibold">
        {`${currency}: ${formatMinor(code, total)} in the period`}
      </figcaption>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        className="h-auto w-full"
        role="img"
        aria-label={`Income in ${currency} per period; the figures are in the table below.`}
      >
        <line x1={PAD.left} x2={W - PAD.right} y1={H - PAD.bottom} y2={H - PAD.bottom} stroke="currentColor" />
        {periods.map((period, i) => {
          const p = per.get(period) ?? { markup: 0, fees: 0 };
          const x = PAD.left + i * slot + (slot - bar) / 2;
          const mh = (Math.max(0, p.markup) / max) * plotH;
          const fh = (Math.max(0, p.fees) / max) * plotH;
          const base = H - PAD.bottom;
          return (
            <g key={period}>
              <rect x={x} y={base - mh} width={bar} height={mh} className="fill-sky-600">
                <title>{`${period} markup ${formatMinor(code, p.markup)} ${currency}`}</title>
              </rect>
              <rect x={x} y={base - mh - fh} width={bar} height={fh} className="fill-amber-500">
                <title>{`${period} fees ${formatMinor(code, p.fees)} ${currency}`}</title>
              </rect>
            </g>
          );
        })}
        <text x={PAD.left} y={H - 6} className="fill-current text-[11px]">{periods[0]}</text>
        <text x={W - PAD.right} y={H - 6} textAnchor="end" className="fill-current text-[11px]">
          {periods[periods.length - 1]}
        </text>
      </svg>
      <p className="mt-2 text-sm text-neutral-600 dark:text-neutral-400">
        <span className="mr-1 inline-block h-3 w-3 bg-sky-600 align-middle" aria-hidden="true" />Markup{" "}
        <span className="mr-1 ml-3 inline-block h-3 w-3 bg-amber-500 align-middle" aria-hidden="true" />Fees
      </p>
    </figure>
  );
}

/** The period's totals per currency: what a reader adds up first. */
function totalsOf(rows: ProfitFigures[]): ProfitFigures[] {
  const sums = new Map<string, ProfitFigures>();
  for (const r of rows) {
    const sum = sums.get(r.currency) ?? { period: "", currency: r.currency, partner: null, markup: 0, fees: 0 };
    sum.markup += r.markup;
    sum.fees += r.fees;
    sums.set(r.currency, sum);
  }
  return [...sums.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}

function Table({ rows, byPartner }: { rows: ProfitFigures[]; byPartner: boolean }) {
  const money = (r: ProfitFigures, n: number) => formatMinor(r.currency as CurrencyCode, n);
  return (
    <ScrollBox label="Income per period and currency" className="card">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Income per period and currency</caption>
        <thead className="text-neutral-600 dark:text-neutral-400">
          <tr>
            <th scope="col" className="py-2 pr-4 font-medium">Period</th>
            <th scope="col" className="py-2 pr-4 font-medium">Currency</th>
            {byPartner && <th scope="col" className="py-2 pr-4 font-medium">Partner</th>}
            <th scope="col" className="py-2 pr-4 text-right font-medium">Markup</th>
            <th scope="col" className="py-2 pr-4 text-right font-medium">Fees</th>
            <th scope="col" className="py-2 text-right font-medium">Total</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr
              key={`${r.period} ${r.currency} ${r.partner}`}
              className="border-t border-neutral-200 dark:border-neutral-800"
              data-row={`${r.period} ${r.currency}`}
            >
              <td className="py-2 pr-4 whitespace-nowrap">{r.period}</td>
              <td className="py-2 pr-4">{r.currency}</td>
              {byPartner && <td className="py-2 pr-4">{r.partner}</td>}
              <td className="py-2 pr-4 text-right font-mono">{money(r, r.markup)}</td>
              <td className="py-2 pr-4 text-right font-mono">{money(r, r.fees)}</td>
              <td className="py-2 text-right font-mono">{money(r, r.markup + r.fees)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          {totalsOf(rows).map((r) => (
            <tr key={r.currency} className="border-t-2 border-neutral-300 font-semibold dark:border-neutral-700">
              <th scope="row" className="py-2 pr-4 text-left" colSpan={byPartner ? 3 : 2}>
                {`Total ${r.currency}`}
              </th>
              <td className="py-2 pr-4 text-right font-mono">{money(r, r.markup)}</td>
              <td className="py-2 pr-4 text-right font-mono">{money(r, r.fees)}</td>
              <td className="py-2 text-right font-mono">{money(r, r.markup + r.fees)}</td>
            </tr>
          ))}
        </tfoot>
      </table>
    </ScrollBox>
  );
}

export async function ConsoleProfitPage(c: Context<AppEnv>) {
  const raw = c.req.query();
  const given = Object.fromEntries(KEYS.filter((k) => raw[k]?.trim()).map((k) => [k, raw[k].trim()]));
  const parsed = profitQuery.safeParse(given);
  let q: ProfitQuery | null = null;
  let problems: string[] = [];
  if (!parsed.success) problems = parsed.error.issues.map((i) => i.message);
  else {
    q = profitQueryOf(parsed.data, c.get("services").now());
    const problem = periodProblem(q);
    if (problem) {
      problems = [problem.message];
      q = null;
    }
  }
  let body: ReactNode;
  if (!q) {
    body = (
      <div className="card" role="alert">
        <p className="font-semibold">This report cannot be made:</p>
        <ul className="mt-2 list-disc pl-5">{problems.map((p) => <li key={p}>{p}</li>)}</ul>
      </div>
    );
  } else {
    const rows = await profitFigures(c.get("db"), q);
    const periods = periodsBetween(q);
    const currencies = [...new Set(rows.map((r) => r.currency))].sort();
    body = rows.length
      ? (
        <>
          {currencies.map((cur) => (
            <Chart
              key={cur}
              currency={cur}
              periods={periods}
              rows={rows.filter((r) => r.currency === cur)}
            />
          ))}
          <Table rows={rows} byPartner={q.by === "partner"} />
        </>
      )
      : <p className="card text-neutral-600 dark:text-neutral-400">No fee or markup income in this period.</p>;
  }
  const shown = q ?? given;
  return (
    <>
      <PageTitle
        lead={
          <>
            FX markup and fee income from the ledger's house accounts, in the currency the customer sold
            {q && `, ${q.from} to ${q.to} (UTC)`}. By partner, the income of customers no partner introduced is under
            “{NO_PARTNER}”. {
              /* Followed rather than saved (no `download`: the file comes as an attachment), so that a
                refusal (signed in again elsewhere, a period the report refuses) brings this page
                back with the reason instead of being saved as the CSV (decision 075). */
            }
            {q && (
              <a className="underline" href={withQuery("/api/console/profit.csv", { ...q })}>
                Download CSV
              </a>
            )}
          </>
        }
      >
        Profit reports
      </PageTitle>
      <Filters q={shown} />
      {body}
    </>
  );
}
