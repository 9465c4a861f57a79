import { Cron } from "croner";
import type { Database } from "../../db/client.ts";
import type { JobDefinition } from "./define.ts";
import { enqueue } from "./queue.ts";
import { log } from "../log.ts";

/**
 * Scheduled work (decision 032): croner says when; the jobs table does the work. At each slot of
 * a schedule (a cron pattern, read in UTC), every process that runs the scheduler queues the
 * schedule's job with the unique key `schedule:<name>@<slot>`, so the job exists once per slot
 * however many processes (or restarts) asked. The job then runs like any other: one runner, retries,
 * resumable steps.
 */
export interface ScheduleDefinition<P = unknown> {
  /** Names the schedule in the job's unique key; keep it when the pattern changes. */
  name: string;
  /** A cron pattern of five fields (minutes and up), in UTC: "0 * * * *" is hourly. */
  pattern: string;
  job: Pick<JobDefinition<P>, "kind" | "payload" | "maxAttempts">;
  /** The job's payload for a slot. */
  payload: (slot: Date) => P;
  /**
   * At start, queue the latest slot that has passed if no process queued it: work missed while
   * every process was down is done once, and a first start does it at once.
   */
  catchUp: boolean;
}

/** Declares a schedule; the composition root (app.ts) gives the scheduler the list. */
export function defineSchedule<P>(
  name: string,
  options: {
    pattern: string;
    job: Pick<JobDefinition<P>, "kind" | "payload" | "maxAttempts">;
    payload: (slot: Date) => P;
    catchUp?: boolean;
  },
): ScheduleDefinition<P> {
  // A wrong pattern fails at start, not at its first slot.
  new Cron(options.pattern, { timezone: "UTC", paused: true, mode: "5-part" });
  return { ...options, name, catchUp: options.catchUp ?? true };
}

/** The slot of `schedule` at or just before `at`: the time it was due. */
export function slotAt(schedule: Pick<ScheduleDefinition, "pattern">, at: Date): Date | null {
  const cron = new Cron(schedule.pattern, { timezone: "UTC", paused: true, mode: "5-part" });
  // previousRuns answers the runs strictly before its reference, to the second: a slot that fires a
  // little late (the event loop was busy) is still its own.
  return cron.previousRuns(1, new Date(at.getTime() + 1_000))[0] ?? null;
}

/** Queues `schedule`'s job for `slot`, once over every process. */
export async function enqueueSlot<P>(
  db: Database,
  schedule: ScheduleDefinition<P>,
  slot: Date,
): Promise<{ id: number; created: boolean }> {
  return await enqueue(db, schedule.job, schedule.payload(slot), {
    uniqueKey: `schedule:${schedule.name}@${slot.toISOString()}`,
    runAfter: slot,
    now: slot,
  });
}

/** Runs the schedules of this process until stop(). */
export class Scheduler {
  readonly #db: Database;
  // deno-lint-ignore no-explicit-any -- each schedule has its own payload type.
  readonly #schedules: readonly ScheduleDefinition<any>[];
  #crons: Cron[] = [];
  readonly #queuing = new Set<Promise<void>>();

  // deno-lint-ignore no-explicit-any -- as above.
  constructor(db: Database, schedules: readonly ScheduleDefinition<any>[]) {
    this.#db = db;
    this.#schedules = schedules;
  }

  /** Catches up the missed slots, then queues each schedule's job at its slots. */
  async start(now = new Date()): Promise<void> {
    for (const schedule of this.#schedules) {
      const missed = schedule.catchUp ? slotAt(schedule, now) : null;
      if (missed) await this.#enqueue(schedule, missed);
      this.#crons.push(
        new Cron(schedule.pattern, { timezone: "UTC", mode: "5-part", unref: true }, () => {
          const slot = slotAt(schedule, new Date());
          if (!slot) return;
          const queuing = this.#enqueue(schedule, slot).finally(() => this.#queuing.delete(queuing));
          this.#queuing.add(queuing);
        }),
      );
    }
  }

  /** Resolves once the jobs the schedules are queuing now are queued. */
  async settled(): Promise<void> {
    await Promise.all([...this.#queuing]);
  }

  /** Stops the schedules; resolves once the jobs they were queuing are queued. */
  async stop(): Promise<void> {
    for (const cron of this.#crons) cron.stop();
    this.#crons = [];
    await this.settled();
  }

  // deno-lint-ignore no-explicit-any -- as above.
  async #enqueue(schedule: ScheduleDefinition<any>, slot: Date): Promise<void> {
    try {
      await enqueueSlot(this.#db, schedule, slot);
    } catch (error) {
      log.error(`jobs: queuing the ${schedule.name} job of ${slot.toISOString()} failed`, { error });
    }
  }
}
