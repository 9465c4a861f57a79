import type { Context } from "hono";
import { currentAccount } from "../../server/accounts/current.ts";
import type { AppEnv } from "../../server/env.ts";
import { currencyName } from "../../server/statements/document.ts";
import { accountCurrencies } from "../../server/statements/lines.ts";
import { listStatements } from "../../server/statements/service.ts";
import { Statements } from "../islands.ts";
import { PageTitle } from "../layouts/parts.tsx";

/** /account/reports: statements as PDF or CSV, made in the background and kept for 7 days (decision 037). */
export async function ReportsPage(c: Context<AppEnv>) {
  const { accountId, customer } = await currentAccount(c);
  const now = new Date(c.get("services").now());
  const [currencies, statements] = await Promise.all([
    accountCurrencies(c.get("db"), accountId),
    listStatements(c.get("db"), accountId, now),
  ]);
  return (
    <>
      <PageTitle lead="Statements of your balances for a period: the opening balance, every movement with the balance after it, fees on their own lines, and the closing balance. PDF to read and keep, CSV for your accountant's software.">
        Reports
      </PageTitle>
      <Statements
        accountRef={customer.account_ref!}
        currencies={currencies.map((code) => ({ code, name: currencyName(code) }))}
        today={now.toISOString().slice(0, 10)}
        statements={statements}
      />
    </>
  );
}
