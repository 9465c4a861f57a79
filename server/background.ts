/**
 * Work a request starts but does not wait for: it runs once the answer is on its way. For what must
 * not change how long an answer takes (an email that goes only when an account exists, decision
 * 023). It lives in this process: a task lost with the process (an email not sent) is one the
 * person asks for again; nothing here may be work whose loss would lose money or a record (that is
 * a background job: server/jobs/).
 */

import { log } from "./log.ts";

const pending = new Set<Promise<void>>();

/** Runs `task` after the current request has answered; a failure is logged with `what` it was. */
export function afterAnswer(what: string, task: () => Promise<void>): void {
  const run: Promise<void> = new Promise<void>((resolve) => setTimeout(resolve, 0))
    .then(task)
    .catch((error) => log.error(`${what}: failed after the answer was sent`, { error }))
    .finally(() => pending.delete(run));
  pending.add(run);
}

/** Resolves once every task started so far (and any they start) has finished: for tests and shutdown. */
export async function settled(): Promise<void> {
  while (pending.size > 0) await Promise.all([...pending]);
}
