import { reversedPeriod } from "../../lib/periods.ts";
import { type Context, Hono } from "hono";
import { ACCOUNT_PARAM } from "../../lib/api-types.ts";
import * as calls from "../../lib/contracts/transactions.ts";
import { currentAccount } from "../../server/accounts/current.ts";
import type { AppEnv } from "../../server/env.ts";
import { InvalidInput } from "../../server/errors.ts";
import { route } from "../../server/http/route.ts";
import { movementsCsv } from "../../server/transactions/csv.ts";
import {
  listMovements,
  movementDetail,
  type MovementFilters,
  parseCursor,
} from "../../server/transactions/movements.ts";
import { paymentActorOf } from "../payment-actor.ts";

/** Where the account's money went (issue 10, part 1; docs/decisions/036). */

/** The filters, once they make sense together: a period that ends before it starts is refused. */
function filtersOf(query: MovementFilters): MovementFilters {
  const reversed = reversedPeriod(query.from, query.to);
  if (reversed) throw new InvalidInput(reversed.message, reversed.field);
  return query;
}

export const transactionCalls = new Hono<AppEnv>();

/** The transactions page the CSV's link is on, with the same filters (the file is the list's). */
function transactionsPage(c: Context<AppEnv>): string {
  const search = new URL(c.req.url).searchParams;
  search.delete(ACCOUNT_PARAM);
  return search.size ? `/account/transactions?${search}` : "/account/transactions";
}

route(transactionCalls, calls.listTransactions, async (c, { query }) => {
  const { cursor, limit, ...filters } = query;
  const { accountId } = await currentAccount(c);
  return await listMovements(c.get("db"), accountId, filtersOf(filters), parseCursor(cursor), limit);
});

route(transactionCalls, calls.transactionsCsv, async (c, { query }) => {
  const { account_ref: _shown, ...filters } = query;
  const { accountId, accountRef } = await currentAccount(c);
  const body = movementsCsv(c.get("db"), accountId, filtersOf(filters));
  return new Response(body, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="transactions-${accountRef}.csv"`,
      "Cache-Control": "no-store",
    },
  });
}, { linkedFrom: transactionsPage });

route(transactionCalls, calls.getTransaction, async (c, { params }) => {
  const { viewer, actor } = await paymentActorOf(c);
  return await movementDetail(c.get("db"), actor.accountId, params.id, viewer);
});
