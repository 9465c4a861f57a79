// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { createElement, type FunctionComponent } from "react";
import { hydrateRoot } from "react-dom/client";
import { renderToString } from "react-dom/server";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import AccountSelect from "../../islands/AccountSelect.tsx";
import AccountUsers, { type AccountUsersProps } from "../../islands/AccountUsers.tsx";
import InvitationRegister from "../../islands/InvitationRegister.tsx";
import LinkedAccounts from "../../islands/LinkedAccounts.tsx";
import type { AccountUser, Invitation, LinkedAccount } from "../../islands/accounts/calls.ts";
import { notifications } from "../../islands/lib/notification-store.ts";
import { IDEMPOTENCY_HEADER } from "../../lib/api-types.ts";
import { ACCOUNT_ROLES, ROLE_DESCRIPTIONS } from "../../lib/permissions.ts";
import { fakeApi, resetIslands } from "../helpers/fake-api.ts";

const settle = (ms = 0) => act(() => vi.advanceTimersByTimeAsync(ms));
const titles = () => notifications.snapshot().visible.map((n) => n.title);

const ROLES = ACCOUNT_ROLES.map((role) => ({ role, description: ROLE_DESCRIPTIONS[role] }));
const REF = "B12345674";

const user = (id: number, name: string, role: AccountUser["role"], you = false): AccountUser => ({
  id,
  email: `${name.split(" ")[0].toLowerCase()}@acme.test`,
  name,
  role,
  joined_at: "2026-11-20T10:00:00.000Z",
  you,
});

const GRACE = user(1, "Grace Hopper", "owner", true);
const ALAN = user(2, "Alan Admin", "admin");
const PRIYA = user(3, "Priya Payer", "payer");
const WAITING: Invitation = {
  id: 7,
  email: "vera@acme.test",
  role: "viewer",
  invited_by: "Grace Hopper",
  created_at: "2026-11-20T10:00:00.000Z",
  expires_at: "2026-11-27T10:00:00.000Z",
};

function props(overrides: Partial<AccountUsersProps> = {}): AccountUsersProps {
  return {
    accountRef: REF,
    users: [GRACE, ALAN, PRIYA],
    invitations: [WAITING],
    canManage: true,
    isOwner: true,
    roles: ROLES,
    ...overrides,
  };
}

const rowOf = (text: string) => screen.getAllByRole("row").find((r) => r.textContent?.includes(text))!;

beforeEach(() => {
  vi.useFakeTimers();
  notifications.clear();
});
afterEach(() => {
  cleanup();
  resetIslands();
  notifications.clear();
  vi.useRealTimers();
});

describe("AccountUsers", () => {
  test("an owner is offered every action but on their own row, and every role to give", async () => {
    fakeApi();
    render(<AccountUsers {...props()} />);
    await settle();
    expect(within(rowOf("Grace Hopper")).queryAllByRole("button")).toHaveLength(0);
    expect(within(rowOf("Alan Admin")).getByRole("button", { name: "Change the role of Alan Admin" })).toBeTruthy();
    expect(within(rowOf("Priya Payer")).getByRole("button", { name: "Remove Priya Payer" })).toBeTruthy();
    const invite = screen.getByRole("form", { name: "Invite someone" });
    const options = within(invite).getAllByRole("option").map((o) => o.textContent);
    expect(options).toEqual(["owner", "admin", "payer", "approver", "viewer"]);
    expect(screen.getByRole("button", { name: "Withdraw the invitation to vera@acme.test" })).toBeTruthy();
  });

  test("an admin cannot touch an owner, nor give the owner role", async () => {
    fakeApi();
    render(
      <AccountUsers
        {...props({
          users: [user(1, "Grace Hopper", "owner"), user(2, "Alan Admin", "admin", true), PRIYA],
          isOwner: false,
        })}
      />,
    );
    await settle();
    expect(within(rowOf("Grace Hopper")).queryAllByRole("button")).toHaveLength(0);
    expect(within(rowOf("Priya Payer")).getAllByRole("button")).toHaveLength(2);
    const options = within(screen.getByRole("form", { name: "Invite someone" })).getAllByRole("option");
    expect(options.map((o) => o.textContent)).not.toContain("owner");
  });

  test("someone who does not manage users sees the list and nothing to change", async () => {
    const calls = fakeApi();
    render(<AccountUsers {...props({ canManage: false, isOwner: false, invitations: [] })} />);
    await settle();
    expect(screen.getAllByRole("row")).toHaveLength(4);
    expect(screen.queryAllByRole("button")).toHaveLength(0);
    expect(screen.queryByRole("form", { name: "Invite someone" })).toBeNull();
    // The invitations are an owner's or admin's: never asked for.
    expect(calls.filter((c) => c.path === "account/invitations")).toHaveLength(0);
  });

  test("inviting sends POST account/users with an Idempotency-Key and adds the invitation to the list", async () => {
    const sent: Invitation = { ...WAITING, id: 8, email: "new@acme.test", role: "approver" };
    const calls = fakeApi({
      "POST account/users": [201, { body: sent }],
      "GET account/invitations": [200, { body: [WAITING, sent] }],
    });
    render(<AccountUsers {...props()} />);
    await settle();
    const form = screen.getByRole("form", { name: "Invite someone" });
    fireEvent.change(within(form).getByLabelText("Email"), { target: { value: "new@acme.test" } });
    fireEvent.change(within(form).getByLabelText("Role"), { target: { value: "approver" } });
    fireEvent.click(within(form).getByRole("button", { name: "Send the invitation" }));
    await settle(500);
    const post = calls.find((c) => c.method === "POST")!;
    expect(post).toMatchObject({ path: "account/users", body: { email: "new@acme.test", role: "approver" } });
    expect(post.headers.get(IDEMPOTENCY_HEADER)).toBeTruthy();
    expect(rowOf("new@acme.test").textContent).toContain("approver");
    expect(titles()).toEqual(["Invitation sent"]);
    expect((within(form).getByLabelText("Email") as HTMLInputElement).value).toBe("");
  });

  test("a refusal of the server shows in the form that asked: the last owner", async () => {
    const lastOwner = "The account's last owner cannot be demoted: make someone else an owner first.";
    const owners = [user(1, "Grace Hopper", "owner"), user(2, "Olga Owner", "owner", true)];
    fakeApi({ "PUT account/users/1": [409, { error: lastOwner, message: "Conflict" }] });
    render(<AccountUsers {...props({ users: owners })} />);
    await settle();
    fireEvent.click(screen.getByRole("button", { name: "Change the role of Grace Hopper" }));
    const form = screen.getByRole("form", { name: "Change the role of Grace Hopper" });
    fireEvent.change(within(form).getByLabelText("Role"), { target: { value: "admin" } });
    fireEvent.click(within(form).getByRole("button", { name: "Save role" }));
    await settle();
    expect(within(form).getByRole("alert").textContent).toContain(lastOwner);
    expect(rowOf("Grace Hopper").textContent).toContain("owner");
  });

  test("by keyboard: Cancel, Keep or Escape closes the form below a user and puts the focus back on its button", async () => {
    const calls = fakeApi({});
    render(<AccountUsers {...props()} />);
    await settle();
    const change = () => screen.getByRole("button", { name: "Change the role of Priya Payer" });
    fireEvent.click(change());
    fireEvent.click(
      within(screen.getByRole("form", { name: "Change the role of Priya Payer" })).getByRole("button", {
        name: "Cancel",
      }),
    );
    expect(screen.queryByRole("form", { name: "Change the role of Priya Payer" })).toBeNull();
    expect(document.activeElement).toBe(change());

    const remove = () => screen.getByRole("button", { name: "Remove Priya Payer" });
    fireEvent.click(remove());
    fireEvent.click(screen.getByRole("button", { name: "Keep" }));
    expect(document.activeElement).toBe(remove());
    fireEvent.click(remove());
    fireEvent.keyDown(screen.getByRole("button", { name: "Keep" }), { key: "Escape" });
    expect(screen.queryByRole("form", { name: "Remove Priya Payer" })).toBeNull();
    expect(document.activeElement).toBe(remove());
    expect(calls).toEqual([]);
  });

  test("changing a role puts the server's answer in the row", async () => {
    const calls = fakeApi({ "PUT account/users/3": [200, { body: { ...PRIYA, role: "approver" } }] });
    render(<AccountUsers {...props()} />);
    await settle();
    fireEvent.click(screen.getByRole("button", { name: "Change the role of Priya Payer" }));
    const form = screen.getByRole("form", { name: "Change the role of Priya Payer" });
    fireEvent.change(within(form).getByLabelText("Role"), { target: { value: "approver" } });
    fireEvent.click(within(form).getByRole("button", { name: "Save role" }));
    await settle();
    expect(calls[0]).toMatchObject({ method: "PUT", path: "account/users/3", body: { role: "approver" } });
    expect(screen.queryByRole("form", { name: "Change the role of Priya Payer" })).toBeNull();
    expect(rowOf("Priya Payer").textContent).toContain("approver");
    expect(titles()).toEqual(["Role changed"]);
  });

  test("removing asks first, then DELETE account/users/{id} takes the row away", async () => {
    const calls = fakeApi({
      "DELETE account/users/3": [200, { body: { removed: true } }],
      "GET account/users": [200, { body: [GRACE, ALAN] }],
    });
    render(<AccountUsers {...props()} />);
    await settle();
    fireEvent.click(screen.getByRole("button", { name: "Remove Priya Payer" }));
    expect(calls).toHaveLength(0);
    const question = screen.getByRole("form", { name: "Remove Priya Payer" });
    fireEvent.click(within(question).getByRole("button", { name: "Remove Priya Payer" }));
    await settle();
    expect(calls[0]).toMatchObject({ method: "DELETE", path: "account/users/3" });
    expect(screen.queryByText("priya@acme.test")).toBeNull();
    expect(titles()).toEqual(["User removed"]);
  });
});

describe("choosing an account", () => {
  const ACCOUNTS: LinkedAccount[] = [
    { account_ref: REF, name: "Acme Trading Ltd", type: "Business", role: "payer", current: false },
    { account_ref: "P76543210", name: "Ada Lovelace", type: "Personal", role: "owner", current: true },
  ];

  test("AccountSelect sends POST account/select with the account chosen; the current one has no button", async () => {
    const calls = fakeApi({
      "POST account/select": [200, { body: { ...ACCOUNTS[0], current: true }, redirect: "/account" }],
    });
    const assign = vi.fn();
    vi.stubGlobal("location", { ...location, assign, pathname: "/account-select" });
    render(<AccountSelect accounts={ACCOUNTS} />);
    await settle();
    expect(screen.getAllByRole("button")).toHaveLength(1);
    expect(within(screen.getAllByRole("listitem")[1]).getByText("Current account")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: `Work on this account: Acme Trading Ltd (${REF})` }));
    await settle();
    expect(calls[0]).toMatchObject({ method: "POST", path: "account/select", body: { account_ref: REF } });
    expect(assign).toHaveBeenCalledWith("/account");
  });

  test("LinkedAccounts says so when the account cannot be chosen", async () => {
    fakeApi({
      "POST account/select": [404, { error: "You have no account with this reference.", message: "Not Found" }],
    });
    render(<LinkedAccounts accounts={ACCOUNTS} />);
    await settle();
    fireEvent.click(screen.getByRole("button", { name: `Switch to this account: Acme Trading Ltd (${REF})` }));
    await settle();
    expect(screen.getByRole("alert").textContent).toContain("You have no account with this reference.");
  });
});

describe("InvitationRegister", () => {
  test("two different passwords are refused before anything is sent", async () => {
    const calls = fakeApi();
    render(<InvitationRegister token="tok" email="new@acme.test" />);
    await settle();
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "correct horse 1" } });
    fireEvent.change(screen.getByLabelText("Password again"), { target: { value: "correct horse 2" } });
    fireEvent.click(screen.getByRole("button", { name: "Create my login" }));
    await settle();
    expect(calls).toHaveLength(0);
    expect(screen.getByText("The two passwords are not the same.")).toBeTruthy();
  });

  test("sends the token and the password", async () => {
    const calls = fakeApi({
      "POST invitations/register": [200, { body: { id: 5, username: "new@acme.test" }, redirect: "/second-factor" }],
    });
    vi.stubGlobal("location", { ...location, assign: vi.fn(), pathname: "/invite" });
    render(<InvitationRegister token="tok" email="new@acme.test" />);
    await settle();
    expect((screen.getByLabelText("Email") as HTMLInputElement).readOnly).toBe(true);
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "correct horse 1" } });
    fireEvent.change(screen.getByLabelText("Password again"), { target: { value: "correct horse 1" } });
    fireEvent.click(screen.getByRole("button", { name: "Create my login" }));
    await settle();
    expect(calls[0]).toMatchObject({
      path: "invitations/register",
      body: { token: "tok", password: "correct horse 1" },
    });
  });
});

describe("hydration", () => {
  async function hydrates<P extends object>(component: FunctionComponent<P>, p: P) {
    const root = document.createElement("div");
    root.innerHTML = renderToString(createElement(component, p));
    document.body.append(root);
    act(() => {
      hydrateRoot(root, createElement(component, p));
    });
    await settle();
    root.remove();
  }

  test("the account islands hydrate their server HTML without fetching", async () => {
    const calls = fakeApi();
    await hydrates(AccountUsers, props());
    await hydrates(LinkedAccounts, {
      accounts: [{ account_ref: REF, name: "Acme", type: "Business", role: "viewer", current: true }],
    });
    expect(calls).toHaveLength(0);
  });
});
