/**
 * Whether a portal process has a database file open: each portal (main.ts) holds a SHARED lock on
 * `<file>-portal` for as long as it runs, and `deno task restore` asks for an EXCLUSIVE one, which
 * the kernel grants only once no portal holds the file (decision 041). Beside decision 013's
 * `<file>-writer`, which a portal holds only while it writes, so that it says nothing about an idle
 * portal. The kernel drops the lock when a process dies, even by SIGKILL.
 */

/** The presence file of a database file. */
export const presencePath = (databasePath: string) => `${databasePath}-portal`;

/** Marks this process as using the database file until it exits (or `release` is called). */
export async function holdPresence(databasePath: string): Promise<{ release(): void }> {
  const file = await Deno.open(presencePath(databasePath), { read: true, write: true, create: true });
  await file.lock(false);
  return {
    release() {
      try {
        file.close();
      } catch { /* already closed */ }
    },
  };
}

/**
 * Takes the file for this process alone, if no portal holds it within `waitMs`: answers the lock
 * to release, or null when a portal is running. (Deno cannot ask for a lock without waiting; a
 * request still waiting after `waitMs` means a holder, and the caller exits, which drops it.)
 */
export async function takeAlone(databasePath: string, waitMs = 1_000): Promise<{ release(): void } | null> {
  const file = await Deno.open(presencePath(databasePath), { read: true, write: true, create: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const taken = await Promise.race([
    file.lock(true).then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), waitMs))),
  ]);
  clearTimeout(timer);
  if (!taken) {
    file.close();
    return null;
  }
  return {
    release() {
      try {
        file.close();
      } catch { /* already closed */ }
    },
  };
}
