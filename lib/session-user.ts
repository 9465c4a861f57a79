import type { z } from "zod";
import type { sessionUser } from "./contracts/session-user.ts";

/**
 * The session user summary of SPEC.md section 3 (its schema is lib/contracts/session-user.ts). In
 * lib/ because both sides use it.
 */
export type SessionUser = z.output<typeof sessionUser>;
