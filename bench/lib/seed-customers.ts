/**
 * Many customers written straight into the tables, a statement a table (bench/customers.ts,
 * bench/partners.ts): the console's reads are measured over a realistic number of people, and
 * signing 100,000 of them up over HTTP would take hours. What differs from one benchmark to the
 * other (who is a business, who is restricted, who was referred) comes as SQL over `i`, the
 * customer's number from 0.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";

export const DAY = 24 * 60 * 60 * 1000;

export interface CustomersSeed {
  count: number;
  /** Their addresses are bench<i>@<domain>. */
  domain: string;
  /** They signed up over the 1,000 days before this. */
  now: number;
  /** SQL over `i`; 'Personal' when absent. */
  type?: SQL;
  /** SQL over `i` (1 or 0); 1 when absent. A customer not validated has no account. */
  validated?: SQL;
  /** SQL over `i` (1 or 0); 0 when absent. */
  restricted?: SQL;
  /** More columns of users, each with its SQL over `i`. */
  more?: Record<string, SQL>;
  /** Each account's GBP balance in minor units, SQL over `a` (the accounts row). */
  balance: SQL;
}

/**
 * Writes the customers: users, then an open account owned by 60 % of the validated ones (account_ref
 * B + the user's id) with a GBP balance (no ledger entries: the reads are measured, not the
 * ledger). Answers the range of their ids.
 */
export async function seedCustomers(db: Database, seed: CustomersSeed): Promise<{ first: number; last: number }> {
  const first = (await db.all<{ id: number }>(sql`SELECT coalesce(max(id), 0) + 1 AS id FROM users`))[0].id;
  const more = Object.entries(seed.more ?? {});
  const moreColumns = sql.raw(more.map(([column]) => `, ${column}`).join(""));
  const moreValues = sql.join(more.map(([, value]) => sql`, ${value}`), sql``);
  await db.run(sql`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${seed.count - 1})
    INSERT INTO users (username, level, type, validated, restricted, override_transfer_fee, created_at${moreColumns})
    SELECT 'bench' || i || ${"@" + seed.domain}, 'User', ${seed.type ?? sql`'Personal'`}, ${seed.validated ?? sql`1`},
      ${seed.restricted ?? sql`0`}, 0, ${seed.now} - (i % 1000) * ${DAY}${moreValues} FROM n`);
  const last = first + seed.count - 1;
  await db.run(sql`INSERT INTO accounts (account_ref, type, name, opened_at)
    SELECT 'B' || printf('%08d', id), type, 'Bench ' || id, created_at FROM users
    WHERE id BETWEEN ${first} AND ${last} AND (id - ${first}) % 10 < 6 AND validated = 1`);
  await db.run(sql`INSERT INTO account_members (account_id, user_id, role, created_at)
    SELECT a.id, CAST(substr(a.account_ref, 2) AS INTEGER), 'owner', a.opened_at FROM accounts a
    WHERE a.account_ref LIKE 'B%'`);
  await db.run(sql`INSERT INTO ledger_accounts (kind, account_id, currency, purpose, balance, created_at)
    SELECT 'customer', a.id, 'GBP', 'balance', ${seed.balance}, a.opened_at
    FROM accounts a WHERE a.account_ref LIKE 'B%'`);
  return { first, last };
}

/** What a console call costs over SAMPLES requests (after `warmup` more, not counted). */
export interface ServerTimes {
  /** The server's own times (its Server-Timing header `app;dur=`), sorted, in ms. */
  server: number[];
  /** The times seen by the client, sorted, in ms. */
  client: number[];
  /** The last answer's body. */
  body: string;
}

/**
 * Asks `url` samples + warmup times, one after another (fetch keeps the connection alive), with
 * the administrator's cookie: the server's time is from the request's arrival to its answer,
 * without the network and the client's queue on a loaded machine.
 */
export async function serverTimes(url: string, cookie: string, samples: number, warmup: number): Promise<ServerTimes> {
  const server: number[] = [];
  const client: number[] = [];
  let body = "";
  for (let i = 0; i < samples + warmup; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers: { Cookie: cookie, Accept: "application/json" } });
    body = await res.text();
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${body.slice(0, 300)}`);
    const dur = /app;dur=([0-9.]+)/.exec(res.headers.get("Server-Timing") ?? "");
    if (!dur) throw new Error(`${url}: no Server-Timing header`);
    if (i >= warmup) {
      client.push(ms);
      server.push(Number(dur[1]));
    }
  }
  server.sort((a, b) => a - b);
  client.sort((a, b) => a - b);
  return { server, client, body };
}
