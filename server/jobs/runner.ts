import type { Database } from "../../db/client.ts";
import { retryDelayMs } from "./backoff.ts";
import {
  type JobContext,
  type JobDefinition,
  type JobDeps,
  LeaseLost,
  PermanentJobFailure,
  RunnerStopping,
} from "./define.ts";
import {
  type ClaimedJob,
  claimNext,
  leaseOf,
  markFailed,
  markForRetry,
  markSucceeded,
  recordProgress,
  release,
  renewLease,
} from "./lease.ts";
import { JobSteps } from "./steps.ts";
import { onJobQueued } from "./wake.ts";
import { errorMessage, log } from "../log.ts";

export interface RunnerOptions {
  db: Database;
  // deno-lint-ignore no-explicit-any -- each definition has its own payload and result types.
  jobs: readonly JobDefinition<any, any>[];
  deps: JobDeps;
  /** Jobs run at once by this runner (JOB_CONCURRENCY, 2). */
  concurrency?: number;
  /** How long a claim holds without renewal; renewed every third of it while the job runs. */
  leaseMs?: number;
  /** How often the queue is looked at when nothing woke the runner (jobs queued by another process). */
  pollMs?: number;
  /** This runner's name in `lease_owner`; unique per process by default. */
  owner?: string;
  now?: () => number;
  random?: () => number;
}

export const DEFAULT_LEASE_MS = 30_000;
export const DEFAULT_POLL_MS = 1_000;

interface Running {
  job: ClaimedJob;
  controller: AbortController;
  done: Promise<void>;
}

/**
 * Runs background jobs from the jobs table (server/jobs/README.md, decision 032): claims due jobs
 * by lease, up to `concurrency` at a time, renews their leases while they run, and records how each
 * attempt ended: succeeded, to be retried after a backoff, or failed. `start()` keeps it going;
 * `drain()` runs what is due now and returns (tests, with their own clock); `stop()` ends it.
 */
export class JobRunner {
  readonly owner: string;
  readonly #db: Database;
  // deno-lint-ignore no-explicit-any -- as in RunnerOptions.
  readonly #definitions: Map<string, JobDefinition<any, any>>;
  readonly #deps: JobDeps;
  readonly #concurrency: number;
  readonly #leaseMs: number;
  readonly #pollMs: number;
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #running = new Map<number, Running>();
  #stopping = false;
  #loop: Promise<void> | null = null;
  #wakeUp: (() => void) | null = null;
  /** A wake-up that came while the runner was not waiting: the next wait is skipped. */
  #wokenMeanwhile = false;
  readonly #firstLook = Promise.withResolvers<void>();
  #unsubscribe: (() => void) | null = null;

  constructor(options: RunnerOptions) {
    this.#db = options.db;
    this.#definitions = new Map(options.jobs.map((job) => [job.kind, job]));
    if (this.#definitions.size !== options.jobs.length) throw new Error("Two job definitions have the same kind.");
    this.#deps = options.deps;
    this.#concurrency = options.concurrency ?? 2;
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    this.owner = options.owner ?? `runner-${crypto.randomUUID()}`;
    this.#now = options.now ?? (() => Date.now());
    this.#random = options.random ?? Math.random;
  }

  /** The ids of the jobs this runner is running now. */
  get runningJobs(): number[] {
    return [...this.#running.keys()];
  }

  /**
   * Keeps claiming jobs until stop(): at each poll, and at once when a job is queued in this
   * process. Resolves once it has looked at the queue the first time.
   */
  start(): Promise<void> {
    if (this.#loop) return this.#firstLook.promise;
    this.#unsubscribe = onJobQueued(() => this.#wake());
    this.#loop = this.#keepRunning();
    return this.#firstLook.promise;
  }

  /**
   * Runs every job that is due now (and those their runs make due) until none is left, then
   * resolves. For tests and tools, which move their own clock.
   */
  async drain(): Promise<void> {
    while (!this.#stopping) {
      await this.#fill();
      if (this.#running.size === 0) return;
      await Promise.race([...this.#running.values()].map((running) => running.done));
    }
  }

  /**
   * Stops: claims nothing more, aborts the running handlers' signals, waits up to `graceMs` for
   * them, and gives back the leases of those that stopped, so another runner (or this process's
   * next start) resumes them at once. A handler still running after `graceMs` keeps its lease until
   * it expires: giving it back while the handler may still act would let two runners act at once.
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.#stopping = true;
    this.#unsubscribe?.();
    this.#wake();
    for (const running of this.#running.values()) running.controller.abort(new RunnerStopping());
    const all = Promise.all([...this.#running.values()].map((running) => running.done));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([all, late]);
    clearTimeout(timer);
    if (this.#running.size > 0) {
      log.warn(`jobs: stopped with jobs ${this.runningJobs.join(", ")} still running: their leases will expire`);
    }
    await this.#loop;
  }

  #wake(): void {
    if (this.#wakeUp) this.#wakeUp();
    else this.#wokenMeanwhile = true;
  }

  async #keepRunning(): Promise<void> {
    while (!this.#stopping) {
      this.#wokenMeanwhile = false;
      try {
        await this.#fill();
      } catch (error) {
        log.error("jobs: claiming failed; trying again at the next poll", { error });
      }
      this.#firstLook.resolve();
      if (this.#stopping) return;
      if (this.#wokenMeanwhile) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(finish, this.#pollMs);
        function finish() {
          clearTimeout(timer);
          resolve();
        }
        this.#wakeUp = finish;
      });
      this.#wakeUp = null;
    }
  }

  /** Claims due jobs while this runner has room for them. */
  async #fill(): Promise<void> {
    while (!this.#stopping && this.#running.size < this.#concurrency) {
      const job = await claimNext(this.#db, {
        owner: this.owner,
        kinds: [...this.#definitions.keys()],
        now: new Date(this.#now()),
        leaseMs: this.#leaseMs,
        running: this.runningJobs,
      });
      if (!job) return;
      const controller = new AbortController();
      const running: Running = { job, controller, done: Promise.resolve() };
      running.done = this.#run(job, controller).catch((error) => {
        log.error(`jobs: recording the end of job ${job.id} (${job.kind}) failed`, {
          job_id: job.id,
          kind: job.kind,
          error,
        });
      }).finally(() => {
        this.#running.delete(job.id);
        this.#wake();
      });
      this.#running.set(job.id, running);
    }
  }

  async #run(job: ClaimedJob, controller: AbortController): Promise<void> {
    const definition = this.#definitions.get(job.kind)!;
    const now = () => new Date(this.#now());
    const lease = leaseOf(job);
    // A job claimed again after more attempts than it may have: its runners died while running it
    // (a job that kills its process, say). It is not started once more.
    if (job.attempts > job.maxAttempts) {
      const error = `Stopped after ${job.maxAttempts} attempts that ended without finishing ` +
        `(the process running it stopped).${job.error ? ` The last error: ${job.error}` : ""}`;
      log.error(`jobs: job ${job.id} (${job.kind}) failed: ${error}`, { job_id: job.id, kind: job.kind });
      await markFailed(this.#db, lease, error, now());
      return;
    }
    const payload = definition.payload.safeParse(job.payload);
    if (!payload.success) {
      await markFailed(this.#db, lease, `Its payload is not valid: ${payload.error.message}`, now());
      return;
    }

    // Once the handler has ended, a renewal that comes back refused is the job's own end being recorded.
    let ended = false;
    const heartbeat = setInterval(() => {
      renewLease(this.#db, lease, new Date(this.#now() + this.#leaseMs)).then((held) => {
        if (held || ended || controller.signal.aborted) return;
        log.warn(`jobs: job ${job.id} (${job.kind}) is no longer leased to this runner: its handler is aborted`, {
          job_id: job.id,
          kind: job.kind,
        });
        controller.abort(new LeaseLost(job.id));
      }).catch((error) => log.warn(`jobs: renewing the lease of job ${job.id} failed`, { job_id: job.id, error }));
    }, Math.max(Math.floor(this.#leaseMs / 3), 1));

    const steps = new JobSteps(this.#db, lease, this.#leaseMs, now);
    const ctx: JobContext = {
      jobId: job.id,
      attempt: job.attempts,
      db: this.#db,
      deps: this.#deps,
      now,
      signal: controller.signal,
      step: (key, fn) => steps.step(key, fn),
      effect: (key, fn) => steps.effect(key, fn),
      progress: (done, total, message) => recordProgress(this.#db, lease, { done, total, message: message ?? null }),
    };

    let outcome: { ok: true; result: unknown } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, result: await definition.run(payload.data, ctx) };
    } catch (error) {
      outcome = { ok: false, error };
    }
    ended = true;
    clearInterval(heartbeat);
    if (outcome.ok) await markSucceeded(this.#db, lease, outcome.result, now());
    else await this.#failed(job, definition, controller.signal, outcome.error);
  }

  // deno-lint-ignore no-explicit-any -- as in RunnerOptions.
  async #failed(job: ClaimedJob, definition: JobDefinition<any, any>, signal: AbortSignal, error: unknown) {
    const now = new Date(this.#now());
    const lease = leaseOf(job);
    if (error instanceof LeaseLost || signal.reason instanceof LeaseLost) {
      log.warn(`jobs: job ${job.id} (${job.kind}) was taken over by another runner: this attempt is not recorded`, {
        job_id: job.id,
        kind: job.kind,
      });
      return;
    }
    if (signal.reason instanceof RunnerStopping) {
      await release(this.#db, lease, now);
      return;
    }
    // Kept on the job and shown in the console: never the values of a refused query (errorMessage).
    const message = errorMessage(error);
    if (error instanceof PermanentJobFailure || job.attempts >= job.maxAttempts) {
      log.error(`jobs: job ${job.id} (${job.kind}) failed after ${job.attempts} attempt(s): ${message}`, {
        job_id: job.id,
        kind: job.kind,
      });
      await markFailed(this.#db, lease, message, now);
      return;
    }
    const delay = retryDelayMs(job.attempts, definition.retry, this.#random);
    log.warn(`jobs: job ${job.id} (${job.kind}) attempt ${job.attempts} failed, retried in ${delay} ms: ${message}`, {
      job_id: job.id,
      kind: job.kind,
    });
    await markForRetry(this.#db, lease, message, new Date(now.getTime() + delay));
  }
}
