import { and, eq, ne, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Database } from "../../db/client.ts";
import { users } from "../../db/schema.ts";
import { partners, partnerShares } from "../../db/schema-partners.ts";
import { rowsOf, type Tx } from "../../db/sql.ts";
import {
  bpsOfPercent,
  type partnerCustomer,
  type partnerInput,
  type partnerRow,
  percentOfBps,
} from "../../lib/contracts/partners.ts";
import { audit } from "../audit.ts";
import { recordAssignment, recordEarlierPartner } from "./assignments.ts";
import { InvalidInput, NotFound } from "../errors.ts";

/**
 * Partners (issue 11 item 6, decision 051): introducers with a referral code and a revenue share in
 * basis points. A customer who registers with a partner's code is the partner's
 * (`users.partner_id`, set in server/auth/registration.ts). Every change is audited in its own
 * transaction.
 */

export type Partner = z.output<typeof partnerRow>;
export type PartnerCustomer = z.output<typeof partnerCustomer>;
type PartnerInput = z.output<typeof partnerInput>;

export const NO_SUCH_PARTNER = "There is no partner with this id.";
export const CODE_IN_USE = "This referral code is another partner's: choose another.";
export const NAME_IN_USE = "Another partner has this name: partners are told apart by name in the reports.";

/**
 * Whether a customer has been funded: an account of theirs was ever credited by a receipt (matched
 * at once, or allocated later), whatever happened to the money afterwards (decision 051), kept as
 * `users.funded_at` (decision 055, ./funded.ts). `user` is the SQL alias of the users table.
 */
export const fundedSql = (user: string) => `(${user}.funded_at IS NOT NULL)`;

/** The account a customer owns (the first one), for its reference and name. */
const OWNED_ACCOUNT = (user: string) =>
  `(SELECT oa.id FROM account_members om JOIN accounts oa ON oa.id = om.account_id
     WHERE om.user_id = ${user} AND om.role = 'owner' ORDER BY om.created_at LIMIT 1)`;

/** Customers as the console lists them, with `where` on users `u` (and its arguments). */
export async function customersWhere(
  db: Database | Tx,
  where: string,
  args: (string | number)[],
): Promise<(PartnerCustomer & { referral_code: string | null; partner_id: number | null })[]> {
  const rows = await rowsOf<{
    id: number;
    email: string;
    type: "Personal" | "Business";
    created_at: number;
    account_ref: string | null;
    name: string | null;
    funded: number;
    referral_code: string | null;
    partner_id: number | null;
  }>(
    db,
    `SELECT u.id, u.username AS email, u.type, u.created_at, a.account_ref, a.name, u.referral_code, u.partner_id,
            ${fundedSql("u")} AS funded
       FROM users u LEFT JOIN accounts a ON a.id = ${OWNED_ACCOUNT("u.id")}
      WHERE u.level = 'User' AND ${where}
      ORDER BY u.created_at DESC, u.id DESC`,
    args,
  );
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    name: r.name,
    type: r.type,
    signed_up_at: new Date(r.created_at).toISOString(),
    account_ref: r.account_ref,
    funded: !!r.funded,
    referral_code: r.referral_code,
    partner_id: r.partner_id,
  }));
}

/** Every partner (by name), or one. */
export async function listPartners(db: Database | Tx, only?: number): Promise<Partner[]> {
  const rows = await db.select({
    id: partners.id,
    name: partners.name,
    email: partners.email,
    code: partners.code,
    shareBps: partners.shareBps,
    createdAt: partners.createdAt,
    updatedAt: partners.updatedAt,
    // Spelled out: with one table, Drizzle would write the outer id unqualified, the inner user's id.
    customers: sql<number>`(SELECT count(*) FROM users c WHERE c.partner_id = "partners"."id")`,
  }).from(partners)
    .where(only === undefined ? undefined : eq(partners.id, only))
    .orderBy(partners.name, partners.id);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    email: r.email,
    code: r.code,
    share_bps: r.shareBps,
    share_percent: percentOfBps(r.shareBps),
    customers: Number(r.customers),
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  }));
}

export async function onePartner(db: Database | Tx, id: number): Promise<Partner> {
  const [row] = await listPartners(db, id);
  if (!row) throw new NotFound(NO_SUCH_PARTNER);
  return row;
}

/** One partner with a page of the customers they brought, newest first. */
export async function partnerDetail(db: Database, id: number, page = { page: 1, perPage: 20 }) {
  const partner = await onePartner(db, id);
  // The page's ids from users_partner alone, then only those rows read whole: a far page costs
  // what the first does.
  const customers = await customersWhere(
    db,
    `u.id IN (SELECT c.id FROM users c WHERE c.partner_id = ? ORDER BY c.created_at DESC, c.id DESC LIMIT ? OFFSET ?)`,
    [id, page.perPage, (page.page - 1) * page.perPage],
  );
  return {
    ...partner,
    customer_list: {
      items: customers.map(({ referral_code: _code, partner_id: _partner, ...c }) => c),
      page: page.page,
      per_page: page.perPage,
      total: partner.customers,
    },
  };
}

/** What a partner's audit entry records of them. */
const recorded = (p: { name: string; email: string | null; code: string; shareBps: number }) => ({
  name: p.name,
  email: p.email,
  code: p.code,
  share_bps: p.shareBps,
});

/**
 * A code or a name another partner has is refused: the code decides whose a new customer is, and
 * the profit report by partner names partners by name.
 */
async function refuseTaken(tx: Tx, values: { code: string; name: string }, except?: number) {
  const others = except === undefined ? undefined : ne(partners.id, except);
  const [code] = await tx.select({ id: partners.id }).from(partners).where(and(eq(partners.code, values.code), others));
  if (code) throw new InvalidInput(CODE_IN_USE, "code");
  const [name] = await tx.select({ id: partners.id }).from(partners)
    .where(and(sql`lower(${partners.name}) = lower(${values.name})`, others));
  if (name) throw new InvalidInput(NAME_IN_USE, "name");
}

const valuesOf = (input: PartnerInput) => ({
  name: input.name,
  email: input.email || null,
  code: input.code,
  shareBps: bpsOfPercent(input.share_percent),
});

export async function createPartner(db: Database, input: PartnerInput, by: number, now: Date): Promise<Partner> {
  const id = await db.transaction(async (tx) => {
    const values = valuesOf(input);
    await refuseTaken(tx, values);
    const [created] = await tx.insert(partners).values({ ...values, createdAt: now, createdBy: by, updatedAt: now })
      .returning({ id: partners.id });
    // The share's history starts with the partner (decision 055).
    await tx.insert(partnerShares).values({
      partnerId: created.id,
      shareBps: values.shareBps,
      startsAt: now,
      createdBy: by,
    });
    await audit(tx, {
      actor: by,
      action: "partner.create",
      before: null,
      after: { id: created.id, ...recorded(values) },
    }, now);
    return created.id;
    // IMMEDIATE: the check that the code is free and the insert are one step.
  }, { behavior: "immediate" });
  return await onePartner(db, id);
}

/**
 * Changes a partner. Their customers stay theirs, whatever the code becomes: the code only decides
 * whose the customers who register from now on are.
 */
export async function updatePartner(
  db: Database,
  id: number,
  input: PartnerInput,
  by: number,
  now: Date,
): Promise<Partner> {
  await db.transaction(async (tx) => {
    const [before] = await tx.select().from(partners).where(eq(partners.id, id));
    if (!before) throw new NotFound(NO_SUCH_PARTNER);
    const values = valuesOf(input);
    await refuseTaken(tx, values, id);
    await tx.update(partners).set({ ...values, updatedAt: now }).where(eq(partners.id, id));
    if (values.shareBps !== before.shareBps) {
      // A new share applies from now; the movements before keep the one in force then (decision 055).
      const [known] = await tx.select({ id: partnerShares.id }).from(partnerShares)
        .where(eq(partnerShares.partnerId, id)).limit(1);
      if (!known) {
        // A partner from before the history: their share until now is the one they had.
        await tx.insert(partnerShares).values({
          partnerId: id,
          shareBps: before.shareBps,
          startsAt: before.createdAt,
          createdBy: before.createdBy,
        });
      }
      await tx.insert(partnerShares).values({ partnerId: id, shareBps: values.shareBps, startsAt: now, createdBy: by });
    }
    await audit(tx, {
      actor: by,
      action: "partner.update",
      before: { id, ...recorded(before) },
      after: { id, ...recorded(values) },
    }, now);
  }, { behavior: "immediate" });
  return await onePartner(db, id);
}

export const NO_SUCH_CUSTOMER = "There is no customer with this id.";

/**
 * Makes a customer a partner's, or nobody's (`partnerId` null), as an administrator decides: for
 * a customer who registered without the code, or with another. The change applies from now: it is
 * recorded in the customer's partner history (decision 062), and each movement of their account
 * counts for the partner they were with at its time, so no earlier period's figures change.
 */
export async function setCustomerPartner(
  db: Database,
  customerId: number,
  partnerId: number | null,
  by: number,
  now: Date,
): Promise<{ id: number; partner_id: number | null; partner: string | null }> {
  return await db.transaction(async (tx) => {
    const [customer] = await tx.select({ partnerId: users.partnerId }).from(users)
      .where(and(eq(users.id, customerId), eq(users.level, "User")));
    if (!customer) throw new NotFound(NO_SUCH_CUSTOMER);
    const nameOf = async (id: number | null) => {
      if (id === null) return null;
      const [p] = await tx.select({ name: partners.name, code: partners.code }).from(partners)
        .where(eq(partners.id, id));
      return p;
    };
    const next = await nameOf(partnerId);
    if (partnerId !== null && !next) throw new InvalidInput(NO_SUCH_PARTNER, "partner_id");
    const before = await nameOf(customer.partnerId);
    // Only the partner: the code the customer registered with, and the session's `affiliate` read
    // from it, are facts of the sign-up (decision 065).
    await tx.update(users).set({ partnerId }).where(eq(users.id, customerId));
    // From now on only: the income before stays with whoever the customer was with then (decision 062).
    if (partnerId !== customer.partnerId) {
      await recordEarlierPartner(tx, customerId, customer.partnerId);
      await recordAssignment(tx, { userId: customerId, partnerId, startsAt: now, createdBy: by });
    }
    await audit(tx, {
      actor: by,
      subject: customerId,
      action: "customer.partner",
      before: { partner_id: customer.partnerId, partner: before?.name ?? null },
      after: { partner_id: partnerId, partner: next?.name ?? null },
    }, now);
    return { id: customerId, partner_id: partnerId, partner: next?.name ?? null };
  }, { behavior: "immediate" });
}
