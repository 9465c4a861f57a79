import type { z } from "zod";
import type { Database } from "../../db/client.ts";
import type { Tx } from "../../db/sql.ts";
import type { Config } from "../config.ts";
import type { Services } from "../services.ts";

/**
 * Lets the process's other work (requests, other jobs) run before a job goes on. A job runs in the
 * server's one process, and the local database answers without waiting for anything: a loop of
 * database work never gives the event loop a turn, so a migration of 10,000 customers kept every
 * page and call (even /api/health) waiting for minutes. A long loop calls this once per item. A
 * timer, not setImmediate: only a timer's turn let waiting requests in (tried on the running server).
 */
export function letOtherWorkIn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** What a job's handler may use besides the database: the app's configuration and services. */
export interface JobDeps {
  config: Config;
  services: Services;
}

/** What an effect outside the database is told when it runs (server/jobs/README.md). */
export interface EffectCall {
  /** Stable across attempts for this job and step key: give it to a receiver that deduplicates by key. */
  idempotencyKey: string;
  /**
   * True when an earlier attempt began this effect and stopped before it was recorded as done: it
   * may or may not have happened. A receiver that deduplicates by key may be called again; for one
   * that does not (SMTP), the handler decides, usually to not repeat it and to record it as in doubt.
   */
  inDoubt: boolean;
}

/** What a handler gets besides its payload. */
export interface JobContext {
  jobId: number;
  /** 1 for the first attempt. */
  attempt: number;
  db: Database;
  deps: JobDeps;
  /** The runner's clock. */
  now(): Date;
  /** Aborted when the runner stops (shutdown) or loses the job's lease: stop soon, and throw. */
  signal: AbortSignal;
  /**
   * Runs `fn` once per key over every attempt of this job: its database effects and the record of
   * the step commit in one transaction (`fn` must write through `tx`). A resumed job gets the
   * recorded result instead (JSON, as `fn` returned it).
   */
  step<T>(key: string, fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Makes an effect outside the database (a mail, a call to a bank) at most once per key unless the
   * handler repeats an in-doubt one: recorded as begun before `fn` runs and as done after.
   */
  effect<T>(key: string, fn: (call: EffectCall) => Promise<T>): Promise<T>;
  /** What the customer's or administrator's progress bar shows. */
  progress(done: number, total: number, message?: string): Promise<void>;
}

export interface RetryPolicy {
  /** The delay after the first failure; each further failure doubles it, up to `capMs`. */
  baseMs: number;
  capMs: number;
}

export interface JobDefinition<P = unknown, R = unknown> {
  kind: string;
  payload: z.ZodType<P>;
  /** Attempts before the job stops as failed (the first one included). */
  maxAttempts: number;
  retry: RetryPolicy;
  run(payload: P, ctx: JobContext): Promise<R>;
}

export const DEFAULT_MAX_ATTEMPTS = 5;
export const DEFAULT_RETRY: RetryPolicy = { baseMs: 10_000, capMs: 60 * 60 * 1000 };

/**
 * Declares a kind of job: its payload's schema (checked when it is queued and when it runs), its
 * handler, and how often it is tried. The composition root (app.ts) gives the runner the list.
 */
export function defineJob<S extends z.ZodType, R>(
  kind: string,
  options: {
    payload: S;
    run: (payload: z.output<S>, ctx: JobContext) => Promise<R>;
    maxAttempts?: number;
    retry?: Partial<RetryPolicy>;
  },
): JobDefinition<z.output<S>, R> {
  return {
    kind,
    payload: options.payload as z.ZodType<z.output<S>>,
    maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    retry: { ...DEFAULT_RETRY, ...options.retry },
    run: options.run,
  };
}

/** A failure that trying again cannot cure (a payload that is wrong, a thing that no longer exists): the job fails at once. */
export class PermanentJobFailure extends Error {
  override name = "PermanentJobFailure";
}

/** Thrown into a handler that lost its job's lease: another runner has the job now. */
export class LeaseLost extends Error {
  override name = "LeaseLost";
  constructor(jobId: number) {
    super(`Job ${jobId} is no longer leased to this runner: another runner took it over.`);
  }
}

/** The abort reason of a handler's signal when its runner stops. */
export class RunnerStopping extends Error {
  override name = "RunnerStopping";
  constructor() {
    super("The runner is stopping: the job is released for another runner to resume.");
  }
}
