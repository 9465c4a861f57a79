/** Whether the portal can serve: for load balancers and deployment checks. */
import { z } from "zod";
import { defineCall } from "./define.ts";

const count = z.number().int().nonnegative();

export const health = defineCall({
  method: "GET",
  path: "/health",
  summary: "Ok once the database answers and holds every committed migration (503 before), with the database's " +
    "round-trip time and the job queue's depth.",
  guards: [],
  answer: z.object({
    ok: z.literal(true),
    /** One trivial query's time there and back, milliseconds: the database's latency as this process sees it. */
    database: z.object({ round_trip_ms: z.number().nonnegative() }),
    /** Background jobs waiting, running, and given up on (decision 032). */
    jobs: z.object({ queued: count, running: count, failed: count }),
  }),
});
