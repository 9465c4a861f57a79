/**
 * Support changes a customer's saved profile on /console/users/{id} (decision 078): the customer's
 * own save is refused once the identity check approved them (decision 071).
 */
import { z } from "zod";
import { idText, text, timestamp } from "./common.ts";
import { defineCall } from "./define.ts";
import { CONSOLE_GUARDS } from "./guards.ts";

export const REASON = "Write why the profile is changed (at most 500 characters): it is kept for the file.";

/**
 * The fields to change, by their key in the profile (SPEC.md section 3; lib/profile-edit.ts).
 * Which keys exist and their rules depend on the customer's type and on today's date, so the
 * server checks them (server/profile/schema.ts: a 422 naming each failing field as
 * `changes.{field}`); the contract only requires an object.
 */
const changes = z.custom<Record<string, unknown>>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  { error: "Send the fields to change as an object." },
);

export const changeCustomerProfile = defineCall({
  method: "PUT",
  path: "/console/users/:id/profile",
  summary: "Changes the fields given of the customer's saved profile, with a reason for the file, under the " +
    "customer's own rules; the customer is emailed which details changed. 422 when nothing changes, " +
    "409 before the customer saved a profile.",
  guards: CONSOLE_GUARDS,
  params: z.object({ id: idText }),
  body: z.object({
    changes,
    // Required, but checked by the server with the changes (server/profile/support-change.ts), so
    // that one refusal names everything wrong at once.
    reason: text({ label: "The reason", max: 500, missing: REASON, wrong: REASON, tooLong: REASON }).optional(),
  }),
  // A profile's longest answers (decision 024), as the customer's own save allows.
  bodyLimit: 64 * 1024,
  answer: z.object({
    /** The fields changed, by their key, in the form's order. */
    changed: z.array(z.string()),
    updated_at: timestamp,
  }),
});
