import { and, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import { marketingConsents } from "../../db/schema-bulkemails.ts";
import { ledgerAccounts } from "../../db/schema-money.ts";
import { accountMembers, profiles, users } from "../../db/schema.ts";
import type { BulkSegment } from "../../lib/contracts/bulkemails.ts";
import { countryName } from "../../lib/bank-details/country-name.ts";

/**
 * Who a bulk email goes to (decision 050): customers (never administrators) whose address is
 * confirmed and who have not unsubscribed, narrowed by the segment's filters, all of which must
 * hold. Every condition reads `users` and `profiles` (left-joined), as `segmentFrom` joins them.
 */
export function segmentWhere(segment: BulkSegment): SQL {
  return and(
    eq(users.level, "User"),
    eq(users.validated, true),
    sql`NOT EXISTS (SELECT 1 FROM ${marketingConsents} WHERE ${marketingConsents.userId} = ${users.id})`,
    segment.type ? eq(users.type, segment.type) : undefined,
    segment.country ? sql`${countryOf} = ${segment.country}` : undefined,
    segment.currency ? holding(segment.currency) : undefined,
    segment.signed_up_from ? gte(users.createdAt, startOfDay(segment.signed_up_from)) : undefined,
    segment.signed_up_to ? lt(users.createdAt, new Date(startOfDay(segment.signed_up_to).getTime() + DAY)) : undefined,
    segment.partner_id !== undefined ? partnerCustomers(segment.partner_id) : undefined,
  )!;
}

/** The tables the segment's conditions read: `FROM ${segmentFrom} WHERE ${segmentWhere(...)}`. */
export const segmentFrom = sql`${users} LEFT JOIN ${profiles} ON ${profiles.userId} = ${users.id}`;

/** The customers a partner brought (users.partner_id, decision 051). */
export function partnerCustomers(partnerId: number): SQL {
  return eq(users.partnerId, partnerId)!;
}

/** Where the customer lives: their address's country (a business's registered address). */
const countryOf = sql`json_extract(${profiles.data}, '$.address.country')`;

/** Money in `currency` on an account the customer belongs to (spendable or held for a payment). */
const holding = (currency: string) =>
  sql`EXISTS (SELECT 1 FROM ${accountMembers}
  INNER JOIN ${ledgerAccounts} ON ${ledgerAccounts.accountId} = ${accountMembers.accountId}
  WHERE ${accountMembers.userId} = ${users.id} AND ${ledgerAccounts.kind} = 'customer'
  AND ${ledgerAccounts.currency} = ${currency} AND ${ledgerAccounts.balance} > 0)`;

const startOfDay = (day: string) => new Date(`${day}T00:00:00Z`);
const DAY = 24 * 60 * 60 * 1000;

/** The segment in words, for the console: "Business customers in GB holding EUR". */
export function describeSegment(segment: BulkSegment): string {
  const parts = [segment.type ? `${segment.type} customers` : "All customers"];
  if (segment.country) parts.push(`in ${countryName(segment.country)}`);
  if (segment.currency) parts.push(`holding ${segment.currency}`);
  if (segment.signed_up_from && segment.signed_up_to) {
    parts.push(`who signed up from ${segment.signed_up_from} to ${segment.signed_up_to}`);
  } else if (segment.signed_up_from) parts.push(`who signed up on or after ${segment.signed_up_from}`);
  else if (segment.signed_up_to) parts.push(`who signed up on or before ${segment.signed_up_to}`);
  if (segment.partner_id !== undefined) parts.push(`brought by partner #${segment.partner_id}`);
  return parts.join(" ");
}
