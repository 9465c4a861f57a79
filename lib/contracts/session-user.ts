/**
 * The session user summary of SPEC.md section 3, field for field: what account/whoami and every
 * sign-in step answer, what every guard reads, and the islands' copy of the user.
 */
import { z } from "zod";

export const sessionUser = z.object({
  id: z.number(),
  username: z.string(),
  name: z.string(),
  level: z.enum(["Admin", "User"]),
  type: z.enum(["Personal", "Business"]),
  /** Whether a profile has been saved. */
  profile: z.boolean(),
  /** Whether the email address has been validated. */
  validated: z.boolean(),
  /** Whether this session passed the second factor. */
  secondFactor: z.boolean(),
  /** Whether the identity check is approved. */
  identity: z.boolean(),
  /** Whether an account has been opened. */
  account: z.boolean(),
  /** Never true for an administrator. */
  restricted: z.boolean(),
  account_ref: z.string().nullable(),
  /** Whether the fee overrides below apply (docs/decisions/025). */
  override_transfer_fee: z.boolean(),
  /** Currency → the priority transfer fee in that currency ({"GBP": "2.00"}); null when none. */
  override_priority_transfer_fee: z.record(z.string(), z.string()).nullable(),
  /** Currency → the regular transfer fee in that currency ({"GBP": "0.50"}); null when none. */
  override_regular_transfer_fee: z.record(z.string(), z.string()).nullable(),
  affiliate: z.string().nullable(),
});
