/**
 * Background jobs' status (issue 10, server/jobs/README.md): a customer reads their account's jobs
 * (a statement being made), an administrator reads every job (issue 11's console builds on these).
 * Another account's job is a 404, as is one that does not exist.
 */
import { z } from "zod";
import { JOB_STATUSES } from "../jobs.ts";
import { idText, pageOf, pageQuery, text, timestamp } from "./common.ts";
import { defineCall } from "./define.ts";
import { CONSOLE_GUARDS, CUSTOMER_GUARDS } from "./guards.ts";

const byId = z.object({ id: idText });

/** How far a job has got, as its progress bar shows it; null until the job says. */
export const jobProgress = z.object({
  done: z.number(),
  total: z.number(),
  message: z.string().nullable(),
}).nullable();

/** A job as its customer sees it. `result` is what the job answered when it succeeded. */
export const customerJob = z.object({
  id: z.number(),
  kind: z.string(),
  status: z.enum(JOB_STATUSES),
  progress: jobProgress,
  /** The job's answer, once succeeded (a statement's id, say); null before. */
  result: z.unknown(),
  /** Why it failed, once it has; null otherwise (a failure that will be retried is not shown). */
  error: z.string().nullable(),
  created_at: timestamp,
  started_at: timestamp.nullable(),
  finished_at: timestamp.nullable(),
});

export type CustomerJob = z.output<typeof customerJob>;

export const getAccountJob = defineCall({
  method: "GET",
  path: "/account/jobs/:id",
  summary: "One of the current account's background jobs (a statement being made): its status and progress.",
  guards: CUSTOMER_GUARDS,
  permission: "account.view",
  params: byId,
  answer: customerJob,
});

/** A job as the console sees it: everything, its last error included while it is being retried. */
export const consoleJob = customerJob.extend({
  payload: z.unknown(),
  attempts: z.number(),
  max_attempts: z.number(),
  run_after: timestamp,
  lease_owner: z.string().nullable(),
  lease_expires_at: timestamp.nullable(),
  account_id: z.number().nullable(),
  created_by: z.number().nullable(),
});

export type ConsoleJob = z.output<typeof consoleJob>;

export const listConsoleJobs = defineCall({
  method: "GET",
  path: "/console/jobs",
  summary: "Background jobs, newest first, by status and kind.",
  guards: CONSOLE_GUARDS,
  query: z.object({
    status: z.enum(JOB_STATUSES, { error: `status is one of ${JOB_STATUSES.join(", ")}.` }).optional(),
    kind: text({ label: "The job kind", max: 64, min: 0, wrong: "kind is a job kind, such as rates.ecb_feed." })
      .optional().transform((kind) => kind || undefined),
    ...pageQuery,
  }),
  answer: pageOf(consoleJob),
});

export const getConsoleJob = defineCall({
  method: "GET",
  path: "/console/jobs/:id",
  summary: "One background job with the steps it has recorded (what a resumed job will not do again).",
  guards: CONSOLE_GUARDS,
  params: byId,
  answer: consoleJob.extend({
    steps: z.array(z.object({
      key: z.string(),
      begun_at: timestamp,
      /** Null while the step's effect outside the database is in doubt (begun, not recorded as done). */
      done_at: timestamp.nullable(),
      result: z.unknown(),
    })),
  }),
});
