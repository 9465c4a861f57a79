import type { Context } from "hono";
import { idText } from "../../lib/contracts/common.ts";
import type { PayoutQueue } from "../../lib/contracts/payouts.ts";
import type { AppEnv } from "../../server/env.ts";
import { currencyList } from "../../server/money/currencies.ts";
import { companyBankDetails } from "../../server/money/funding.ts";
import { listBatches } from "../../server/payouts/batches.ts";
import { deskQueue } from "../../server/payouts/queue.ts";
import { PageTitle } from "../layouts/parts.tsx";
import { ConsolePayouts } from "../islands.ts";

/** The payout desk's two pages (issue 8 item 7): each loads its queue (and /console/local its SEPA files). */

const LEADS: Record<PayoutQueue, string> = {
  local:
    "Payments to SEPA, UK Faster Payments, ACH and the other local rails: send them, then mark them arrived or failed.",
  transfer: "International (SWIFT) transfers: send them, then mark them arrived or failed.",
};

async function PayoutDesk(c: Context<AppEnv>, queue: PayoutQueue, title: string) {
  const db = c.get("db");
  const now = new Date(c.get("services").now());
  // ?payment=ID: the one payment an audit entry links to; an address that names none shows the queue.
  const asked = idText.safeParse(c.req.query("payment"));
  const payment = asked.success ? asked.data : null;
  const [initial, batches] = await Promise.all([
    deskQueue(
      db,
      { queue, ...(payment ? { payment } : {}) },
      now,
      companyBankDetails(c.get("config").companyBank).iban,
    ),
    queue === "local" ? listBatches(db) : null,
  ]);
  return (
    <section>
      <PageTitle lead={LEADS[queue]}>{title}</PageTitle>
      <ConsolePayouts
        queue={queue}
        payment={payment}
        initial={initial}
        batches={batches}
        currencies={currencyList().map(({ code, name }) => ({ code, name }))}
      />
    </section>
  );
}

export const ConsoleLocalPage = (c: Context<AppEnv>) => PayoutDesk(c, "local", "Local payouts");
export const ConsoleTransferPage = (c: Context<AppEnv>) => PayoutDesk(c, "transfer", "Transfers");
