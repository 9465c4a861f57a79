/** The console's administrators' calls, typed by their contracts (lib/contracts/console-admins.ts). */
import type * as admins from "../../lib/contracts/console-admins.ts";
import { type AnswerOf, call } from "../lib/api.ts";
import { read } from "../lib/query-client.tsx";
import { administratorKeys } from "../lib/query-keys.ts";

export const listAdministrators = call<typeof admins.listAdministrators>("GET", "/console/admins");
export const inviteAdministrator = call<typeof admins.inviteAdministrator>("POST", "/console/admins");
export const approveInvitation = call<typeof admins.approveInvitation>("POST", "/console/admins/:id/approve");
export const refuseInvitation = call<typeof admins.refuseInvitation>("POST", "/console/admins/:id/refuse");
export const disableAdministrator = call<typeof admins.disableAdministrator>("DELETE", "/console/admins/:id");

export type Administrator = AnswerOf<typeof admins.inviteAdministrator>;

export const administratorsQuery = () => read(administratorKeys.all, listAdministrators);

/** "27 Nov 2026, 12:10 UTC": the console's staff work in UTC, as the audit trail does. */
export const momentOf = (iso: string | null) => iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : "Never";
