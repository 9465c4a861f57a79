/**
 * Wakes this process's runners when a job is queued here, so that a job asked for by a request
 * starts at once instead of at the next poll. Jobs queued by another process are found by polling.
 */
const listeners = new Set<() => void>();

/** Calls `listener` after each job queued in this process; answers the function that stops it. */
export function onJobQueued(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Tells the runners; after the current task, so that a job queued in a transaction is committed first. */
export function jobQueued(): void {
  setTimeout(() => {
    for (const listener of listeners) listener();
  }, 0);
}
