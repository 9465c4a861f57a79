import { eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { users } from "../../db/schema.ts";
import { newEmail, passwordProblem } from "../../lib/contracts/auth.ts";
import { audit } from "../audit.ts";
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
 * so that two setups at once create one. Returns the new id, or the problem with the address or the password.
 * With `by`, where the administrator was made ("setup", "deno task admin:create") is audited
 * (`admin.create`, by the new administrator: nobody in the console made them), in the same
 * transaction: one added at the server, past the four eyes of an invitation, is in the log too.
 */
export async function createAdministrator(
  db: Database,
  email: string,
  password: string,
  options: { onlyIfNone?: boolean; by?: "setup" | "deno task admin:create" } = {},
): Promise<number | "exists" | string> {
  // The address as registration and POST auth/forgot take it: `deno task admin:create` checks less,
  // and an administrator at an address the reset-link form refuses could never ask for one.
  const address = newEmail.safeParse(email);
  if (!address.success) return address.error.issues[0].message;
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
    if (options.by) {
      await audit(tx, {
        actor: created.id,
        subject: created.id,
        action: "admin.create",
        before: null,
        after: { email: username, by: options.by },
      }, new Date());
    }
    return created.id;
    // IMMEDIATE takes the write lock before the check, so the check and the insert are one step.
  }, { behavior: "immediate" });
}

/** POST setup: the first administrator, while there is none (SPEC.md section 2). */
export async function setUpPortal(db: Database, email: string, password: string): Promise<void> {
  const problem = passwordProblem(password);
  if (problem) throw new InvalidInput(problem, "password");
  const created = await createAdministrator(db, email, password, { onlyIfNone: true, by: "setup" });
  if (created === "exists") throw new Refused("Setup is already done.");
  // The password is acceptable: what remains is a customer who registered with this email.
  if (typeof created === "string") throw new InvalidInput(created, "email");
}
