import { eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { users } from "../../db/schema.ts";
import { passwordProblem } from "../../lib/contracts/auth.ts";
import { InvalidInput, Refused } from "../errors.ts";
import { hashPassword } from "./password.ts";
import { normalizeUsername } from "./users.ts";

/** Whether the portal has its first administrator (then /setup is done). */
export async function hasAdministrator(db: Database): Promise<boolean> {
  const [row] = await db.select({ id: users.id }).from(users).where(eq(users.level, "Admin")).limit(1);
  return !!row;
}

/**
 * Creates an administrator: always validated, never restricted (SPEC.md section 3). With
 * `onlyIfNone`, refuses once one exists ("exists"), checked in the same transaction as the insert
 * so that two setups at once create one. Returns the new id, or the problem with the password.
 */
export async function createAdministrator(
  db: Database,
  email: string,
  password: string,
  options: { onlyIfNone?: boolean } = {},
): Promise<number | "exists" | string> {
  const problem = passwordProblem(password);
  if (problem) return problem;
  const passwordHash = await hashPassword(password);
  return await db.transaction(async (tx) => {
    if (options.onlyIfNone) {
      const [existing] = await tx.select({ id: users.id }).from(users).where(eq(users.level, "Admin")).limit(1);
      if (existing) return "exists";
    }
    const username = normalizeUsername(email);
    const [taken] = await tx.select({ id: users.id }).from(users).where(eq(users.username, username));
    if (taken) return "An account with this email already exists.";
    const [created] = await tx.insert(users).values({
      username,
      passwordHash,
      level: "Admin",
      validated: true,
      restricted: false,
      createdAt: new Date(),
    }).returning({ id: users.id });
    return created.id;
    // IMMEDIATE takes the write lock before the check, so the check and the insert are one step.
  }, { behavior: "immediate" });
}

/** POST setup: the first administrator, while there is none (SPEC.md section 2). */
export async function setUpPortal(db: Database, email: string, password: string): Promise<void> {
  const problem = passwordProblem(password);
  if (problem) throw new InvalidInput(problem, "password");
  const created = await createAdministrator(db, email, password, { onlyIfNone: true });
  if (created === "exists") throw new Refused("Setup is already done.");
  // The password is acceptable: what remains is a customer who registered with this email.
  if (typeof created === "string") throw new InvalidInput(created, "email");
}
