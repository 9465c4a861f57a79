import type { Database } from "../../db/client.ts";
import { rowsOf, type Tx } from "../../db/sql.ts";
import { customerName, migrationLineOf, migrationNames } from "../accounts/customer-name.ts";
import { personName } from "../accounts/person-name.ts";

/** Someone a payment's timeline names: a user of the account, or an administrator. */
export interface Person {
  id: number;
  /** The person, for who did something (a business owner is their person, not the company). */
  name: string;
  email: string;
}

/**
 * The people with these ids (unknown ids are left out), by id, with their own names as the account's
 * users list gives them (a business owner is their person, not the company). A member of our team is
 * named as the console's administrators screen names them, when it does.
 */
export async function peopleByIds(executor: Database | Tx, ids: Iterable<number | null>): Promise<Map<number, Person>> {
  const rows = await namesOf(executor, ids);
  return new Map(rows.map((r) => [r.id, {
    id: r.id,
    name: r.staff?.trim() ||
      personName(r.type, r.data ? JSON.parse(r.data) : null, r.username, migrationNames(r.migrated)),
    email: r.username,
  }]));
}

/**
 * The customers with these ids by id, named as every console screen names a customer (a business by
 * its name, a migrated customer by their file's names until they save a profile; decision 065).
 */
export async function customerNamesByIds(
  executor: Database | Tx,
  ids: Iterable<number | null>,
): Promise<Map<number, string>> {
  const rows = await namesOf(executor, ids);
  return new Map(
    rows.map((
      r,
    ) => [r.id, customerName(r.type, r.data ? JSON.parse(r.data) : null, migrationNames(r.migrated), r.username)]),
  );
}

/** What both names are made of, for the users with these ids (unknown ids are left out). */
async function namesOf(executor: Database | Tx, ids: Iterable<number | null>) {
  const wanted = [...new Set([...ids].filter((id): id is number => id !== null))];
  if (!wanted.length) return [];
  return await rowsOf<
    {
      id: number;
      username: string;
      type: "Personal" | "Business";
      data: string | null;
      migrated: string | null;
      staff: string | null;
    }
  >(
    executor,
    `SELECT u.id, u.username, u.type, p.data, ${migrationLineOf("u.id")} AS migrated, a.name AS staff
       FROM users u LEFT JOIN profiles p ON p.user_id = u.id LEFT JOIN administrators a ON a.user_id = u.id
     WHERE u.id IN (${wanted.map(() => "?").join(", ")})`,
    wanted,
  );
}

/** A person when known, else a placeholder that says so (a user deleted since). */
export function personOr(people: Map<number, Person>, id: number): Person {
  return people.get(id) ?? { id, name: "A former user", email: "" };
}
