import { and, desc, gt, inArray, sql } from "drizzle-orm";
import { existsSync } from "node:fs";
import type { Database } from "../../db/client.ts";
import { emails } from "../../db/schema.ts";
import { outboxBeside, sentInDirectory, sentInMemory } from "../../server/mail/outbox.ts";
import { isSecurityTemplate } from "../../server/mail/redact.ts";

/**
 * Reading mail "as the user would": every message is kept in the `emails` table (sent or not), so a
 * test finds the newest one for an address and takes the link or code out of its text part. The
 * table keeps a security email with its links and codes taken out (decision 057), so the HTML and
 * text answered here are the message as sent, from the test outbox (server/mail/outbox.ts).
 */

export type EmailRow = typeof emails.$inferSelect;

/** The newest email to this address (compared without case), or undefined. */
export async function latestEmail(db: Database, to: string): Promise<EmailRow | undefined> {
  const [row] = await db.select().from(emails)
    .where(sql`lower(${emails.to}) = ${to.toLowerCase()}`)
    .orderBy(desc(emails.id))
    .limit(1);
  return row && await asSent(db, row);
}

const outboxes = new WeakMap<Database, string>();

/**
 * Servers on a remote database (Hrana) keep the mail as sent in the directory TEST_MAIL_OUTBOX
 * names: `db`, the test's own connection to that database, reads it from there.
 */
export function readOutboxFrom(db: Database, directory: string): void {
  outboxes.set(db, directory);
}

/**
 * The row with the HTML and text the customer received (the kept copy of a security email has its
 * links and codes taken out): sent by this process, or by a server on the same database file (an
 * end-to-end server writes its outbox beside the file). A server commits the row first and keeps
 * the message in its outbox just after, so a security email's message is waited for a moment: a
 * test polling the table from another process can see the row before the file (it did, over Hrana).
 */
export async function asSent<R extends Partial<EmailRow> & { id: number }>(db: Database, row: R): Promise<R> {
  const inMemory = sentInMemory(db, row.id);
  if (inMemory) return { ...row, html: inMemory.html, text: inMemory.text };
  // Only a server in another process keeps mail in a directory (made when it starts).
  const directory = outboxes.get(db) ?? await outboxBesideFile(db);
  if (!directory) return row;
  const deadline = Date.now() + 5_000;
  for (;;) {
    const message = sentInDirectory(directory, row.id);
    if (message) return { ...row, html: message.html, text: message.text };
    if (!row.template || !isSecurityTemplate(row.template) || Date.now() > deadline) return row;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The outbox a server on this database file keeps, if there is one. */
async function outboxBesideFile(db: Database): Promise<string | undefined> {
  const [main] = await db.all<{ file: string }>(sql`SELECT file FROM pragma_database_list WHERE name = 'main'`);
  const directory = main?.file ? outboxBeside(main.file) : undefined;
  return directory && existsSync(directory) ? directory : undefined;
}

/** The first http(s) link in a text part, or undefined. */
export function linkIn(text: string): string | undefined {
  return /https?:\/\/\S+/.exec(text)?.[0];
}

/** The first standalone 6-digit code in a text part, or undefined. */
export function codeIn(text: string): string | undefined {
  return /\b\d{6}\b/.exec(text)?.[0];
}

export interface WaitOptions {
  /**
   * Only an email of this template ("email-validation", "second-factor-code", "password-reset"...),
   * or of one of these templates.
   */
  template?: string | string[];
  /** Only an email whose text contains this. */
  containing?: string;
  /**
   * Only an email newer than this: a row seen before (or its id), or a moment (by createdAt).
   * Without it, the first matching email is answered, however old.
   */
  after?: EmailRow | number | Date | null;
  /** How long to wait, in ms (default 10 s). */
  timeoutMs?: number;
}

/** The id of the newest email in the table (0 when none): a mark to wait for what comes after. */
export async function lastEmailId(db: Database): Promise<number> {
  const [row] = await db.select({ id: emails.id }).from(emails).orderBy(desc(emails.id)).limit(1);
  return row?.id ?? 0;
}

/**
 * Polls until an email to `to` (compared without case) arrives that matches `template` and is
 * newer than `after`, and answers the newest such email. Throws after the timeout, listing what
 * the address did receive.
 */
export async function waitForEmail(db: Database, to: string, options: WaitOptions = {}): Promise<EmailRow> {
  const { template, containing, after = null, timeoutMs = 10_000 } = options;
  const conditions = [sql`lower(${emails.to}) = ${to.toLowerCase()}`];
  if (typeof template === "string") conditions.push(sql`${emails.template} = ${template}`);
  else if (template) conditions.push(inArray(emails.template, template));
  if (containing) conditions.push(sql`instr(${emails.text}, ${containing}) > 0`);
  if (typeof after === "number") conditions.push(gt(emails.id, after));
  else if (after instanceof Date) conditions.push(gt(emails.createdAt, after));
  else if (after) conditions.push(gt(emails.id, after.id));

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await db.select().from(emails).where(and(...conditions)).orderBy(desc(emails.id)).limit(1);
    // The message as the server sent it (a security email is kept redacted, decision 057).
    if (row) return await asSent(db, row);
    if (Date.now() > deadline) {
      const seen = await db.select({ id: emails.id, template: emails.template }).from(emails)
        .where(sql`lower(${emails.to}) = ${to.toLowerCase()}`);
      throw new Error(
        `No ${[template ?? "email"].flat().join(" or ")}${
          containing ? ` containing "${containing}"` : ""
        } for ${to} within ${timeoutMs} ms` +
          (after === null
            ? ""
            : ` (after ${
              after instanceof Date ? after.toISOString() : typeof after === "number" ? `#${after}` : `#${after.id}`
            })`) +
          `. That address has: ${seen.map((s) => `#${s.id} ${s.template}`).join(", ") || "nothing"}.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
