/**
 * What a background job's status can be (server/jobs/README.md): shared by the jobs table, the
 * calls that answer a job's status, and the pages that show it.
 */
export const JOB_STATUSES = ["queued", "running", "succeeded", "failed", "cancelled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** The statuses a job does not leave. */
export const FINISHED_JOB_STATUSES = ["succeeded", "failed", "cancelled"] as const satisfies readonly JobStatus[];
