/** Whether the portal can serve: for load balancers and deployment checks. */
import { z } from "zod";
import { defineCall } from "./define.ts";

export const health = defineCall({
  method: "GET",
  path: "/health",
  summary: "Ok once the database answers and holds every committed migration; 503 before.",
  guards: [],
  answer: z.object({ ok: z.literal(true) }),
});
