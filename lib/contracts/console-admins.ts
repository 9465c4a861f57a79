/**
 * The console's administrators (decision 044): the list, an invitation by email, and disabling
 * one. Administrators only; 404 to anyone else (decision 004).
 */
import { z } from "zod";
import { idText, text, timestamp } from "./common.ts";
import { defineCall } from "./define.ts";
import { CONSOLE_GUARDS } from "./guards.ts";

/**
 * One administrator as the list shows them. `status`: active (has a password), invited (has not
 * chosen one yet), disabled (cannot sign in). `second_factor`: how they pass it at sign-in, the
 * authenticator app or a code emailed at each sign-in.
 */
export const administratorRow = z.object({
  id: z.number(),
  email: z.string(),
  name: z.string(),
  status: z.enum(["active", "invited", "disabled"]),
  second_factor: z.enum(["authenticator-app", "emailed-code"]),
  last_sign_in_at: timestamp.nullable(),
  invited_at: timestamp.nullable(),
  invited_by: z.string().nullable(),
  disabled_at: timestamp.nullable(),
});

const INVITEE_EMAIL = "Enter the email address of the administrator to invite.";
const INVITEE_NAME = "Enter the name of the administrator to invite (at most 100 characters).";

export const listAdministrators = defineCall({
  method: "GET",
  path: "/console/admins",
  summary: "Every administrator with their status, second factor and last sign-in.",
  guards: CONSOLE_GUARDS,
  answer: z.array(administratorRow),
});

export const inviteAdministrator = defineCall({
  method: "POST",
  path: "/console/admins",
  summary:
    "Invites an administrator: emails a single-use link, valid 72 hours, to choose a password; again for someone invited, a new link. 409 for a customer's or an administrator's email.",
  guards: CONSOLE_GUARDS,
  body: z.object({
    email: text({ label: "The email address", max: 254, missing: INVITEE_EMAIL, wrong: INVITEE_EMAIL })
      .toLowerCase().pipe(z.email({ error: INVITEE_EMAIL })),
    name: text({ label: "The name", max: 100, missing: INVITEE_NAME, wrong: INVITEE_NAME, tooLong: INVITEE_NAME }),
  }),
  answer: administratorRow,
  status: 201,
});

export const disableAdministrator = defineCall({
  method: "DELETE",
  path: "/console/admins/:id",
  summary:
    "Disables an administrator: their sessions end at once and they cannot sign in. 409 for the last active administrator, and for oneself.",
  guards: CONSOLE_GUARDS,
  params: z.object({ id: idText }),
  answer: administratorRow,
});
