import { type AccountRole, may } from "../../lib/permissions.ts";
import { Conflict, Refused } from "../errors.ts";

/**
 * Who may change whose role (decision 028), checked in this order so that the most telling reason
 * is the one given:
 * 1. the account's last owner is never removed or demoted: it would be left with nobody who can
 *    make owners;
 * 2. only an owner makes, demotes or removes an owner (an admin manages everyone else);
 * 3. nobody changes their own role or removes themselves: another owner or admin does it, so a
 *    second person sees every change of rights.
 * `to` is the new role, or null for a removal. Throws the refusal; answers nothing when allowed.
 */
export function checkRoleChange(change: {
  actor: { userId: number; role: AccountRole };
  target: { userId: number; role: AccountRole };
  to: AccountRole | null;
  owners: number;
}): void {
  const { actor, target, to, owners } = change;
  const removing = to === null;
  if (target.role === "owner" && to !== "owner" && owners <= 1) {
    throw new Conflict(
      removing
        ? "The account's last owner cannot be removed: make someone else an owner first."
        : "The account's last owner cannot be demoted: make someone else an owner first.",
    );
  }
  if ((target.role === "owner" || to === "owner") && actor.role !== "owner") {
    throw new Refused("Only an owner can make, demote or remove an owner.");
  }
  if (target.userId === actor.userId) {
    throw new Refused(
      removing
        ? "You cannot remove yourself: ask another owner or admin."
        : "You cannot change your own role: ask another owner or admin.",
    );
  }
}

/** Only an owner invites an owner. */
export function checkInvitedRole(actorRole: AccountRole, role: AccountRole): void {
  if (role === "owner" && actorRole !== "owner") throw new Refused("Only an owner can invite an owner.");
}

/**
 * An administrator acting on behalf does not give anyone the right to approve payments (owner,
 * admin or approver), by invitation or by a role change: approval is between the customer's own
 * people (decision 030), and staff who could add an approver of their choosing could approve by
 * another way (decision 073, amended). Other roles they may give, as they may prepare payments.
 */
export function checkRoleGivenOnBehalf(actor: { onBehalfAdminId: number | null }, role: AccountRole): void {
  if (actor.onBehalfAdminId !== null && may(role, "payments.approve")) {
    throw new Refused(
      "Administrators acting on behalf of a customer cannot give anyone a role that approves payments: " +
        "the customer's owners and admins do that themselves.",
    );
  }
}
