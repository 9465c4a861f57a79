/** The account users' and linked accounts' calls, typed by their contracts (lib/contracts/account-users.ts). */
import type * as users from "../../lib/contracts/account-users.ts";
import { type AnswerOf, call } from "../lib/api.ts";
import { read } from "../lib/query-client.tsx";
import { accountUserKeys, invitationKeys, linkedAccountKeys } from "../lib/query-keys.ts";

export const listAccountUsers = call<typeof users.listAccountUsers>("GET", "/account/users");
export const inviteAccountUser = call<typeof users.inviteAccountUser>("POST", "/account/users");
export const changeAccountUserRole = call<typeof users.changeAccountUserRole>("PUT", "/account/users/:id");
export const removeAccountUser = call<typeof users.removeAccountUser>("DELETE", "/account/users/:id");
export const listInvitations = call<typeof users.listInvitations>("GET", "/account/invitations");
export const revokeInvitation = call<typeof users.revokeInvitation>("DELETE", "/account/invitations/:id");
export const acceptInvitation = call<typeof users.acceptInvitation>("POST", "/account/users/accept");
export const registerThroughInvitation = call<typeof users.registerThroughInvitation>(
  "POST",
  "/invitations/register",
);
export const listLinkedAccounts = call<typeof users.listLinkedAccounts>("GET", "/account/linked");
export const selectAccount = call<typeof users.selectAccount>("POST", "/account/select");

export type AccountUser = AnswerOf<typeof users.listAccountUsers>[number];
export type Invitation = AnswerOf<typeof users.listInvitations>[number];
export type LinkedAccount = AnswerOf<typeof users.listLinkedAccounts>[number];
export type Role = AccountUser["role"];

/** A role and what it may do, as the page hands them over (lib/permissions.ts's words). */
export interface RoleChoice {
  role: Role;
  description: string;
}

export const accountUsersQuery = (accountRef: string) => read(accountUserKeys.of(accountRef), listAccountUsers);
export const invitationsQuery = (accountRef: string) => read(invitationKeys.of(accountRef), listInvitations);
export const linkedAccountsQuery = () => read(linkedAccountKeys.all, listLinkedAccounts);

/** "an approver", "a payer": a role in a sentence. */
export const aRole = (role: Role) => `${/^[aeiou]/.test(role) ? "an" : "a"} ${role}`;

/** A moment as the pages show it: the day, in UTC like every date of the portal. */
export const dayOf = (iso: string) => iso.slice(0, 10);
