import { eq } from "drizzle-orm";
import type { Context } from "hono";
import type { Database } from "../../db/client.ts";
import { may } from "../../lib/permissions.ts";
import { currentAccount } from "../../server/accounts/current.ts";
import type { AppEnv } from "../../server/env.ts";
import { currencyList } from "../../server/money/currencies.ts";
import { ratesFor } from "../../server/money/rates.ts";
import { currentRates } from "../../server/money/store.ts";
import { firedRateAlerts, listRateAlerts } from "../../server/ratealerts/service.ts";
import { FIRED_ALERT_PARAM, RATE_ALERTS_PAGE } from "../../server/ratealerts/check.ts";
import { rateAlerts } from "../../db/schema-ratealerts.ts";
import { idText } from "../../lib/contracts/common.ts";
import { switchToAccountOf } from "../switch-account.ts";
import { RateAlerts } from "../islands.ts";
import { PageTitle } from "../layouts/parts.tsx";

/** /account/ratealerts: set alerts on a rate, pause, resume and delete them (decision 038). */
export async function RateAlertsPage(c: Context<AppEnv>) {
  const { accountId, customer, role } = await currentAccount(c);
  const canManage = may(role, "money.convert");
  return (
    <>
      <PageTitle
        lead={"We watch the mid-market rate (the rate before our markup, as the calculator shows it) and tell " +
          "you once, by email and in the portal, when it reaches your target. A fired alert stops watching." +
          (canManage ? "" : " Your role lets you see this account's alerts, not change them.")}
      >
        Rate alerts
      </PageTitle>
      <RateAlerts
        accountRef={customer.account_ref!}
        alerts={await listRateAlerts(c.get("db"), accountId)}
        rates={ratesFor(await currentRates(c.get("db")), "GBP")}
        currencies={currencyList().map(({ code, name }) => ({ code, name }))}
        canManage={canManage}
      />
    </>
  );
}

/**
 * The link of a fired alert names it (firedAlertLink): followed while the person works on another of
 * their accounts, the page switches to the alert's account (decision 060). An alert not found (since
 * deleted) or of an account they do not belong to switches nothing: the page shows the account worked on.
 */
export function switchToFiredAlertsAccount(c: Context<AppEnv>): Promise<Response | null> {
  const id = idText.safeParse(c.req.query(FIRED_ALERT_PARAM));
  if (!id.success) return Promise.resolve(null);
  return switchToAccountOf(c, async (db) => {
    const [alert] = await db.select({ accountId: rateAlerts.accountId }).from(rateAlerts)
      .where(eq(rateAlerts.id, id.data));
    return alert?.accountId;
  });
}

const MOMENT = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });

/**
 * The dashboard's "Rate alerts that fired": the latest five, each with when and at what rate, and
 * the way to the alerts page. Rendered by the server (renderToString takes no async components, so
 * the page awaits this); nothing in it is interactive.
 */
export async function firedRateAlertsCard(db: Database, accountId: number) {
  const fired = await firedRateAlerts(db, accountId, 5);
  return (
    <section aria-labelledby="fired-alerts-heading" className="card">
      <h2 id="fired-alerts-heading" className="mb-4 text-lg font-semibold">Rate alerts that fired</h2>
      {fired.length
        ? (
          <ul className="text-sm">
            {fired.map((a) => (
              <li key={a.id} className="border-t border-neutral-200 py-2 dark:border-neutral-800">
                <span className="font-mono">1 {a.sell_currency} = {a.fired_rate} {a.buy_currency}</span>{" "}
                ({a.direction === "above" ? "at or above" : "at or below"} {a.target_rate}),{" "}
                <span className="text-neutral-600 dark:text-neutral-300">
                  {MOMENT.format(new Date(a.fired_at))} UTC
                </span>
              </li>
            ))}
          </ul>
        )
        : <p className="text-neutral-600 dark:text-neutral-400">None of your alerts has fired yet.</p>}
      <div className="mt-4">
        <a className="btn-ghost" href={RATE_ALERTS_PAGE}>All rate alerts</a>
      </div>
    </section>
  );
}
