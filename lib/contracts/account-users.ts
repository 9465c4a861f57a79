/**
 * Account users and linked accounts (DESIGN.md section 4, issue 8 items 4 and 5; decision 028):
 * who belongs to the current account with which role, invitations by email, and the choice of the
 * account a session acts on when one login belongs to several.
 */
import { z } from "zod";
import { ACCOUNT_ROLES } from "../permissions.ts";
import { newPassword } from "./auth.ts";
import { idText, text, timestamp } from "./common.ts";
import { defineCall } from "./define.ts";
import { CUSTOMER_GUARDS } from "./guards.ts";

const role = z.enum(ACCOUNT_ROLES);
const roleInput = z.enum(ACCOUNT_ROLES, { error: "Choose a role: owner, admin, payer, approver or viewer." });
const accountType = z.enum(["Personal", "Business"]);

const emailInput = text({
  label: "The email address",
  max: 254,
  missing: "Enter the email address to invite.",
  wrong: "Enter the email address to invite.",
  tooLong: "Enter a valid email address.",
}).toLowerCase()
  .pipe(z.email({ error: "Enter a valid email address." }))
  .pipe(z.string().max(254, { error: "Enter a valid email address." }));

/** The emailed token of an invitation (the `token` of its link). */
const tokenInput = text({
  label: "The invitation's token",
  max: 200,
  missing: "The invitation link has no token.",
  wrong: "The invitation link has no token.",
  tooLong: "This invitation link is not valid.",
});

/** A member of the account. `id` is the person's user id. */
export const accountUser = z.object({
  id: z.number(),
  email: z.string(),
  name: z.string(),
  role,
  joined_at: timestamp,
  /** The person asking. */
  you: z.boolean(),
});

/** An invitation waiting to be accepted. */
export const invitation = z.object({
  id: z.number(),
  email: z.string(),
  role,
  invited_by: z.string(),
  created_at: timestamp,
  expires_at: timestamp,
});

/** One of the accounts a login belongs to. */
export const linkedAccount = z.object({
  account_ref: z.string(),
  name: z.string(),
  type: accountType,
  role,
  /** The account this session acts on. */
  current: z.boolean(),
});

const userParams = z.object({ id: idText });

export const listAccountUsers = defineCall({
  method: "GET",
  path: "/account/users",
  summary: "The users of the current account with their roles.",
  guards: CUSTOMER_GUARDS,
  permission: "account.view",
  answer: z.array(accountUser),
});

export const inviteAccountUser = defineCall({
  method: "POST",
  path: "/account/users",
  summary: "Invites someone by email to the current (business) account with a role; the link is emailed.",
  guards: CUSTOMER_GUARDS,
  movesMoney: false,
  permission: "users.manage",
  body: z.object({ email: emailInput, role: roleInput }),
  answer: invitation,
  status: 201,
});

export const changeAccountUserRole = defineCall({
  method: "PUT",
  path: "/account/users/:id",
  summary: "Changes a user's role on the current account.",
  guards: CUSTOMER_GUARDS,
  movesMoney: false,
  permission: "users.manage",
  params: userParams,
  body: z.object({ role: roleInput }),
  answer: accountUser,
});

export const removeAccountUser = defineCall({
  method: "DELETE",
  path: "/account/users/:id",
  summary: "Removes a user from the current account.",
  guards: CUSTOMER_GUARDS,
  movesMoney: false,
  permission: "users.manage",
  params: userParams,
  answer: z.object({ removed: z.literal(true) }),
});

export const listInvitations = defineCall({
  method: "GET",
  path: "/account/invitations",
  summary: "The current account's invitations not yet accepted, withdrawn or expired.",
  guards: CUSTOMER_GUARDS,
  permission: "users.manage",
  answer: z.array(invitation),
});

export const revokeInvitation = defineCall({
  method: "DELETE",
  path: "/account/invitations/:id",
  summary: "Withdraws an invitation: its link stops working.",
  guards: CUSTOMER_GUARDS,
  movesMoney: false,
  permission: "users.manage",
  params: userParams,
  answer: z.object({ revoked: z.literal(true) }),
});

export const acceptInvitation = defineCall({
  method: "POST",
  path: "/account/users/accept",
  summary: "The signed-in person accepts an invitation sent to their email address; the session moves to that account.",
  guards: ["loggedin", "is-verified", "secondfactor", "is-user"],
  movesMoney: false,
  body: z.object({ token: tokenInput }),
  answer: linkedAccount,
});

export const registerThroughInvitation = defineCall({
  method: "POST",
  path: "/invitations/register",
  summary:
    "A new person registers through an invitation: its email address counts as validated; a sign-in code is emailed next.",
  guards: [],
  body: z.object({ token: tokenInput, password: newPassword }),
  answer: z.object({ id: z.number(), username: z.string() }),
});

export const listLinkedAccounts = defineCall({
  method: "GET",
  path: "/account/linked",
  summary: "Every account the customer belongs to, with their role there and which one this session acts on.",
  guards: CUSTOMER_GUARDS,
  answer: z.array(linkedAccount),
});

export const selectAccount = defineCall({
  method: "POST",
  path: "/account/select",
  summary: "Chooses the account this session acts on (one the customer belongs to, else 404).",
  guards: CUSTOMER_GUARDS,
  movesMoney: false,
  body: z.object({
    account_ref: text({
      label: "The account",
      max: 20,
      missing: "Choose an account.",
      wrong: "Choose an account.",
      tooLong: "Choose an account.",
    }).toUpperCase(),
  }),
  answer: linkedAccount,
});
