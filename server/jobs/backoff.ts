import type { RetryPolicy } from "./define.ts";

/**
 * How long a job waits after its `attempt`-th failure: the policy's base, doubled per failure up to
 * its cap, then drawn at random between half of that and all of it ("equal jitter"), so that jobs
 * that failed together (a provider down) do not all come back at the same moment, and none comes
 * back much sooner than its backoff says.
 */
export function retryDelayMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(attempt - 1, 0));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
