/**
 * The console's administrators (decision 044): the list, an invitation by email, a second
 * administrator's approval or refusal of it, and disabling one. Administrators only; 404 to anyone
 * else (decision 004).
 */
import { z } from "zod";
import { idText, text, timestamp } from "./common.ts";
import { defineCall } from "./define.ts";
import { CONSOLE_GUARDS } from "./guards.ts";

/**
 * One administrator as the list shows them. `status`: active (has a password), invited (the link
 * is emailed; they have not chosen a password yet), waiting (the invitation waits for a second
 * administrator's approval: no link yet), disabled (cannot sign in; also a refused or withdrawn
 * invitation). `second_factor`: how they pass it at sign-in, the
 * authenticator app or a code emailed at each sign-in.
 */
export const administratorRow = z.object({
  id: z.number(),
  email: z.string(),
  name: z.string(),
  status: z.enum(["active", "invited", "waiting", "disabled"]),
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
    "Invites an administrator: emails a single-use link, valid 72 hours, to choose a password, at once when the inviter is the only active administrator, otherwise once a second administrator approves; again for someone invited, a new link. 409 for a customer's or an administrator's email.",
  guards: CONSOLE_GUARDS,
  body: z.object({
    email: text({ label: "The email address", max: 254, missing: INVITEE_EMAIL, wrong: INVITEE_EMAIL })
      .toLowerCase().pipe(z.email({ error: INVITEE_EMAIL })),
    name: text({ label: "The name", max: 100, missing: INVITEE_NAME, wrong: INVITEE_NAME, tooLong: INVITEE_NAME }),
  }),
  answer: administratorRow,
  status: 201,
});

export const approveInvitation = defineCall({
  method: "POST",
  path: "/console/admins/:id/approve",
  summary:
    "A second administrator approves a waiting invitation: its link is emailed now. 409 for the inviter, and for an invitation not waiting.",
  guards: CONSOLE_GUARDS,
  params: z.object({ id: idText }),
  answer: administratorRow,
});

const REFUSAL_REASON = "Write why the invitation is refused (at most 500 characters): it is kept for the file.";

export const refuseInvitation = defineCall({
  method: "POST",
  path: "/console/admins/:id/refuse",
  summary:
    "A second administrator refuses a waiting invitation with a reason: no link is sent and the address is not invited again. 409 for the inviter, and for an invitation not waiting.",
  guards: CONSOLE_GUARDS,
  params: z.object({ id: idText }),
  body: z.object({
    reason: text({
      label: "The reason",
      max: 500,
      missing: REFUSAL_REASON,
      wrong: REFUSAL_REASON,
      tooLong: REFUSAL_REASON,
    }),
  }),
  answer: administratorRow,
});

export const disableAdministrator = defineCall({
  method: "DELETE",
  path: "/console/admins/:id",
  summary:
    "Disables an administrator (for a waiting invitation, its inviter withdraws it): their sessions end at once and they cannot sign in. 409 for the last active administrator, and for oneself.",
  guards: CONSOLE_GUARDS,
  params: z.object({ id: idText }),
  answer: administratorRow,
});
