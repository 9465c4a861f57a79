import type { Context } from "hono";
import { Hono } from "hono";
import * as calls from "../../lib/contracts/statements.ts";
import { currentAccount } from "../../server/accounts/current.ts";
import type { AppEnv } from "../../server/env.ts";
import { ApiError } from "../../server/http/api.ts";
import { reply, route } from "../../server/http/route.ts";
import { listStatements, requestStatement, StatementExpired, statementFile } from "../../server/statements/service.ts";

/** Statements as CSV and PDF, made by a background job (issue 10, decision 037). */

const now = (c: Context<AppEnv>) => new Date(c.get("services").now());

export const statementCalls = new Hono<AppEnv>();

route(statementCalls, calls.requestStatement, async (c, { body }, answer) => {
  const { accountId, customer } = await currentAccount(c);
  const made = await requestStatement(
    c.get("db"),
    { accountId, userId: customer.id },
    body,
    now(c),
    (tx, made) => answer.storeWith(tx, made),
  );
  return reply(made, { status: 202 });
});

route(statementCalls, calls.listStatements, async (c) => {
  const { accountId } = await currentAccount(c);
  return { items: await listStatements(c.get("db"), accountId, now(c)) };
});

route(statementCalls, calls.statementFile, async (c, { params }) => {
  const { accountId } = await currentAccount(c);
  try {
    const file = await statementFile(c.get("db"), accountId, params.id, now(c));
    return c.body(file.content, 200, {
      "Content-Type": file.mediaType,
      "Content-Disposition": `attachment; filename="${file.name}"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    });
  } catch (error) {
    // Gone, not missing: the customer had it, and is told when it went and how to have it again.
    if (error instanceof StatementExpired) throw new ApiError(410, error.message);
    throw error;
  }
}, { linkedFrom: () => "/account/reports" });
