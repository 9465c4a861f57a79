import type { Database } from "../../db/client.ts";
import { profiles, users } from "../../db/schema.ts";

export interface BulkCustomerOptions {
  /** The addresses' prefix: "<prefix>-<n>@bulk.test". */
  prefix: string;
  type?: "Personal" | "Business";
  country?: string;
  /** When they signed up. */
  createdAt?: Date;
  validated?: boolean;
}

/**
 * `count` customers with a confirmed address and a profile, written straight to the database a
 * few hundred at a time: the bulk email tests and benchmark need thousands, which registering each
 * through the calls would take minutes to make. Answers their ids and addresses.
 */
export async function insertCustomers(
  db: Database,
  count: number,
  options: BulkCustomerOptions,
): Promise<{ id: number; email: string }[]> {
  const made: { id: number; email: string }[] = [];
  const type = options.type ?? "Personal";
  const createdAt = options.createdAt ?? new Date();
  for (let from = 0; from < count; from += 500) {
    const part = Array.from({ length: Math.min(500, count - from) }, (_, i) => from + i + 1);
    const rows = await db.insert(users).values(part.map((n) => ({
      username: `${options.prefix}-${n}@bulk.test`,
      type,
      validated: options.validated ?? true,
      createdAt,
    }))).returning({ id: users.id, email: users.username });
    await db.insert(profiles).values(rows.map((row, i) => ({
      userId: row.id,
      type,
      data: type === "Business"
        ? { name: `Firm ${part[i]} Ltd`, first: "Grace", last: "Hopper", address: { country: options.country ?? "GB" } }
        : { first: `Ada${part[i]}`, last: "Lovelace", address: { country: options.country ?? "GB" } },
      createdAt,
      updatedAt: createdAt,
    })));
    made.push(...rows);
  }
  return made;
}
