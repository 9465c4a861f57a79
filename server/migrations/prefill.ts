import { desc, eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { migrationRows } from "../../db/schema-migrations.ts";

/**
 * What the old system knew of a migrated customer, in the shape of their profile form, so that the
 * form starts filled in (decision 049): names, phone, date of birth, address. It is not a saved
 * profile: the customer checks it, answers the rest and saves it, as every customer does. Null for
 * a customer who was not migrated.
 */
export async function migratedProfile(db: Database, userId: number): Promise<Record<string, unknown> | null> {
  const [row] = await db.select({ data: migrationRows.data }).from(migrationRows)
    .where(eq(migrationRows.userId, userId)).orderBy(desc(migrationRows.id)).limit(1);
  const data = row?.data;
  if (!data) return null;
  const address = {
    line1: data.address_line1 ?? "",
    line2: data.address_line2 ?? "",
    city: data.city ?? "",
    postcode: data.postcode ?? "",
    country: data.country ?? "",
  };
  const person = { first: data.first_name, last: data.last_name, phone: data.phone, dob: data.date_of_birth };
  return data.type === "Business"
    ? { ...person, name: data.company_name, country: data.country, address }
    : { ...person, address };
}
