import { describe, expect, test } from "vitest";
import {
  ACCOUNT_ROLES,
  type AccountRole,
  may,
  type Permission,
  PERMISSIONS,
  permissionsOf,
} from "../../lib/permissions.ts";
import { checkRoleChange } from "../../server/accounts/role-rules.ts";
import { Conflict, Refused } from "../../server/errors.ts";

/** DESIGN.md section 4 and docs/decisions/027: viewers see, payers prepare, approvers approve, owners and admins manage. */
const TABLE: Record<AccountRole, Permission[]> = {
  owner: [
    "account.view",
    "money.convert",
    "recipients.manage",
    "payments.prepare",
    "payments.approve",
    "approvals.manage",
    "users.manage",
  ],
  admin: [
    "account.view",
    "money.convert",
    "recipients.manage",
    "payments.prepare",
    "payments.approve",
    "approvals.manage",
    "users.manage",
  ],
  payer: ["account.view", "money.convert", "recipients.manage", "payments.prepare"],
  approver: ["account.view", "payments.approve"],
  viewer: ["account.view"],
};

describe("what each role may do", () => {
  test.each(ACCOUNT_ROLES)("%s", (role) => {
    expect(permissionsOf(role).sort()).toEqual([...TABLE[role]].sort());
  });

  test("nobody without a role may do anything", () => {
    for (const permission of Object.keys(PERMISSIONS) as Permission[]) {
      expect(may(null, permission)).toBe(false);
      expect(may(undefined, permission)).toBe(false);
    }
  });
});

describe("who may change whose role", () => {
  const owner = { userId: 1, role: "owner" as const };
  const admin = { userId: 2, role: "admin" as const };
  const payer = { userId: 3, role: "payer" as const };
  const secondOwner = { userId: 4, role: "owner" as const };

  const refusal = (change: Parameters<typeof checkRoleChange>[0]) => {
    try {
      checkRoleChange(change);
      return null;
    } catch (error) {
      return error;
    }
  };

  test("an owner or an admin changes a payer's role or removes them", () => {
    expect(refusal({ actor: owner, target: payer, to: "approver", owners: 1 })).toBeNull();
    expect(refusal({ actor: admin, target: payer, to: "viewer", owners: 1 })).toBeNull();
    expect(refusal({ actor: admin, target: payer, to: null, owners: 1 })).toBeNull();
  });

  test("only an owner makes, demotes or removes an owner", () => {
    expect(refusal({ actor: admin, target: payer, to: "owner", owners: 1 })).toBeInstanceOf(Refused);
    expect(refusal({ actor: admin, target: secondOwner, to: "admin", owners: 2 })).toBeInstanceOf(Refused);
    expect(refusal({ actor: admin, target: secondOwner, to: null, owners: 2 })).toBeInstanceOf(Refused);
    expect(refusal({ actor: owner, target: payer, to: "owner", owners: 1 })).toBeNull();
    expect(refusal({ actor: owner, target: secondOwner, to: "admin", owners: 2 })).toBeNull();
  });

  test("the last owner is never demoted or removed, whoever asks", () => {
    for (const actor of [owner, admin]) {
      expect(refusal({ actor, target: owner, to: "admin", owners: 1 })).toBeInstanceOf(Conflict);
      expect(refusal({ actor, target: owner, to: null, owners: 1 })).toBeInstanceOf(Conflict);
    }
  });

  test("nobody changes their own role or removes themselves", () => {
    expect(refusal({ actor: admin, target: admin, to: "viewer", owners: 1 })).toBeInstanceOf(Refused);
    expect(refusal({ actor: admin, target: admin, to: null, owners: 1 })).toBeInstanceOf(Refused);
    expect(refusal({ actor: owner, target: owner, to: "admin", owners: 2 })).toBeInstanceOf(Refused);
  });
});
