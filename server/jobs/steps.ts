import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { jobSteps } from "../../db/schema-jobs.ts";
import type { Tx } from "../../db/sql.ts";
import { type EffectCall, LeaseLost } from "./define.ts";
import { type Lease, renewLease } from "./lease.ts";

/**
 * A job's steps (decision 032): what makes a resumed job skip the effects it already made. Each
 * write here first renews the job's lease in the same transaction, so a runner that lost the job
 * (it froze past its lease and another took over) records nothing and makes no new effect.
 */
export class JobSteps {
  constructor(
    private readonly db: Database,
    private readonly lease: Lease,
    private readonly leaseMs: number,
    private readonly now: () => Date,
  ) {}

  private get jobId(): number {
    return this.lease.jobId;
  }

  async #recorded(key: string) {
    const [row] = await this.db.select().from(jobSteps).where(
      and(eq(jobSteps.jobId, this.jobId), eq(jobSteps.stepKey, key)),
    );
    return row ?? null;
  }

  async #holdLease(tx: Tx): Promise<void> {
    const until = new Date(this.now().getTime() + this.leaseMs);
    if (!(await renewLease(tx, this.lease, until))) throw new LeaseLost(this.jobId);
  }

  /** A database step: its effects and its record commit together, or neither does. */
  async step<T>(key: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
    const found = await this.#recorded(key);
    if (found?.doneAt) return found.result as T;
    return await this.db.transaction(async (tx) => {
      await this.#holdLease(tx);
      const result = await fn(tx);
      const at = this.now();
      await tx.insert(jobSteps).values({
        jobId: this.jobId,
        stepKey: key,
        begunAt: at,
        doneAt: at,
        result: result ?? null,
      });
      return result;
    });
  }

  /**
   * An effect outside the database: recorded as begun (with the lease held) before `fn` runs, and
   * as done after. A step found begun but not done is in doubt: `fn` is told, and decides.
   */
  async effect<T>(key: string, fn: (call: EffectCall) => Promise<T>): Promise<T> {
    const found = await this.#recorded(key);
    if (found?.doneAt) return found.result as T;
    await this.db.transaction(async (tx) => {
      await this.#holdLease(tx);
      if (!found) await tx.insert(jobSteps).values({ jobId: this.jobId, stepKey: key, begunAt: this.now() });
    });
    const result = await fn({ idempotencyKey: `job-${this.jobId}-${key}`, inDoubt: found !== null });
    // Recorded even if the lease was lost meanwhile: the effect happened, and whoever holds the job
    // now must not make it again.
    await this.db.update(jobSteps).set({ doneAt: this.now(), result: result ?? null }).where(
      and(eq(jobSteps.jobId, this.jobId), eq(jobSteps.stepKey, key), isNull(jobSteps.doneAt)),
    );
    return result;
  }
}
