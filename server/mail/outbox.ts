import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The messages as they were sent, for tests and benchmarks only (decision 057). The `emails` table
 * keeps a security email with its links and codes taken out, so a test that signs in "as the user
 * would" reads the link or code from what the customer received: kept here, in the test process's
 * memory (per database) and, for a server on a database file (an end-to-end server in another
 * process), as files in the directory `{database file}.outbox` beside it or in TEST_MAIL_OUTBOX.
 * Outside tests only TEST_MAIL_OUTBOX builds one (the benchmarks, on a developer's machine):
 * `deploymentCheck` refuses it anywhere else, so no deployment keeps a live secret.
 */
export interface SentMessage {
  to: string;
  subject: string;
  template: string;
  html: string;
  text: string;
}

export interface Outbox {
  /** The message sent (or that would have been) as the `emails` row `id`. */
  keep(id: number, message: SentMessage): void;
}

const inMemory = new WeakMap<object, Map<number, SentMessage>>();

/** An outbox in this process, one per database object (each test has its own). */
export function testOutbox(database: object, directory?: string): Outbox {
  // Made at once: a test in another process then knows to wait for a message not yet written.
  if (directory) mkdirSync(directory, { recursive: true });
  return {
    keep(id, message) {
      let kept = inMemory.get(database);
      if (!kept) inMemory.set(database, kept = new Map());
      kept.set(id, message);
      if (directory) {
        // Written aside and renamed: a reader in another process never sees half a message.
        const file = join(directory, `${id}.json`);
        writeFileSync(`${file}.part`, JSON.stringify(message));
        renameSync(`${file}.part`, file);
      }
    },
  };
}

/** The message sent as email `id` on this database, if this process sent it. */
export function sentInMemory(database: object, id: number): SentMessage | undefined {
  return inMemory.get(database)?.get(id);
}

/** Where a server on this database file keeps the mail it sent, in tests. */
export const outboxBeside = (databaseFile: string) => `${databaseFile}.outbox`;

/** The message a server sent as email `id`, from the outbox beside its database file. */
export function sentInDirectory(directory: string, id: number): SentMessage | undefined {
  try {
    return JSON.parse(readFileSync(join(directory, `${id}.json`), "utf8"));
  } catch {
    return undefined;
  }
}
