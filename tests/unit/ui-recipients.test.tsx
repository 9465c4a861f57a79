// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import Recipients from "../../islands/Recipients.tsx";
import type { RecipientPage, RecipientWithHistory, Requirement } from "../../islands/recipients/calls.ts";
import { detailSummary, ibanInGroups } from "../../islands/recipients/format.ts";
import { notifications } from "../../islands/lib/notification-store.ts";
import { IDEMPOTENCY_HEADER } from "../../lib/api-types.ts";
import { requirementsFor } from "../../lib/bank-details/requirements.ts";
import { fakeApi, resetIslands } from "../helpers/fake-api.ts";

/**
 * The recipients island (/account/recipients): the list, a recipient's card with its history, and
 * the form drawn from the requirements answer, checked while typing. The server is the shared fake
 * (its answers are shaped by lib/contracts/recipients.ts: the integration tests hold the real one
 * to the contract).
 */

const settle = (ms = 0) => act(() => vi.advanceTimersByTimeAsync(ms));
/** Waits for the lazily loaded form (a real dynamic import) to be on screen. */
const formNamed = (name: string) => vi.waitFor(() => screen.getByRole("form", { name }), { timeout: 5_000 });
const titles = () => notifications.snapshot().visible.map((n) => n.title);

const CURRENCIES = [
  { code: "EUR", name: "Euro" },
  { code: "GBP", name: "Pound Sterling" },
];

/** The requirements call's answer, from the table itself. */
function requirement(currency: string, country?: string): Requirement {
  const found = requirementsFor(currency, country);
  if (!found.ok) throw new Error(found.message);
  return found.requirement;
}

const JEAN: RecipientWithHistory = {
  id: 5,
  name: "Jean Dupont",
  type: "person",
  currency: "EUR",
  country: "DE",
  email: null,
  details: { iban: "DE89370400440532013000" },
  scheme: "sepa",
  scheme_name: "SEPA transfer",
  created_at: "2026-03-02T09:00:00.000Z",
  updated_at: "2026-03-02T09:05:00.000Z",
  details_changed_at: "2026-03-02T09:05:00.000Z",
  changes: [
    {
      id: 2,
      kind: "details",
      at: "2026-03-02T09:05:00.000Z",
      by: "Ada Lovelace",
      on_behalf_by: "ops@example.com",
      before: { details: { iban: "DE02120300000000202051" } },
      after: { details: { iban: "DE89370400440532013000" } },
    },
    {
      id: 1,
      kind: "created",
      at: "2026-03-02T09:00:00.000Z",
      by: "Ada Lovelace",
      on_behalf_by: null,
      before: null,
      after: { name: "Jean Dupont" },
    },
  ],
};

const { changes: _, ...JEAN_ROW } = JEAN;
const PAGE: RecipientPage = { items: [JEAN_ROW], page: 1, per_page: 20, total: 1 };
const EMPTY: RecipientPage = { items: [], page: 1, per_page: 20, total: 0 };

function island(props: Partial<Parameters<typeof Recipients>[0]> = {}) {
  return render(
    <Recipients
      accountRef="P12345678"
      recipients={PAGE}
      selected={null}
      currencies={CURRENCIES}
      canManage
      {...props}
    />,
  );
}

beforeEach(() => {
  vi.useFakeTimers();
  notifications.clear();
});
afterEach(() => {
  cleanup();
  resetIslands();
  notifications.clear();
  vi.useRealTimers();
  history.replaceState(null, "", "/");
});

describe("formatting", () => {
  test("an IBAN reads in groups of four; a list row shows the details that tell recipients apart", () => {
    expect(ibanInGroups("GB29NWBK60161331926819")).toBe("GB29 NWBK 6016 1331 9268 19");
    expect(detailSummary({ sort_code: "089999", account_number: "66374958" })).toBe("08-99-99 · 66374958");
    expect(detailSummary({ bsb: "062000", account_number: "12345678" })).toBe("062-000 · 12345678");
  });
});

describe("the list and a recipient's card", () => {
  test("opens a recipient: its IBAN in groups of four, when and by whom the bank details changed, its history", async () => {
    const calls = fakeApi({ "GET account/recipients/5": [200, { body: JEAN }] });
    island();
    expect(screen.getByRole("cell", { name: "DE89 3704 0044 0532 0130 00" })).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Open Jean Dupont" }));
    await settle();
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(["GET account/recipients/5"]);
    const card = screen.getByRole("region", { name: "Jean Dupont" });
    expect(within(card).getByText("Bank details changed on 2 Mar 2026, 09:05 UTC")).toBeTruthy();
    expect(within(card).getByText(/^Changed by Ada Lovelace \(through our staff: ops@example.com\)\./)).toBeTruthy();
    const bank = within(card).getByRole("region", { name: "Bank details · SEPA transfer" });
    expect(bank.querySelector('[data-detail="iban"]')!.textContent).toBe("DE89 3704 0044 0532 0130 00");
    const history = within(card).getByRole("region", { name: "History" });
    expect(within(history).getAllByRole("listitem").map((li) => li.textContent)).toEqual([
      expect.stringMatching(/^Bank details changed on 2 Mar 2026, 09:05 UTC by Ada Lovelace \(through our staff/),
      "Added on 2 Mar 2026, 09:00 UTC by Ada Lovelace",
    ]);
    expect([...history.querySelectorAll("del")].map((del) => del.textContent)).toEqual(["DE02 1203 0000 0000 2020 51"]);
    expect(new URL(location.href).searchParams.get("recipient")).toBe("5");
  });

  test("a viewer sees the list and a recipient, but no way to add, change or delete one", () => {
    fakeApi();
    island({ canManage: false, selected: JEAN });
    expect(screen.getByRole("region", { name: "Jean Dupont" })).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Change" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Delete" })).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Back to the list" }));
    expect(screen.getByRole("rowheader", { name: /Jean Dupont/ })).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Add a recipient" })).toBeNull();
  });

  test("by keyboard: Delete takes the focus to the question; Keep it or Escape bring it back to Delete", () => {
    const calls = fakeApi({});
    island({ selected: JEAN });
    const remove = () => screen.getByRole("button", { name: "Delete" });
    fireEvent.click(remove());
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Yes, delete Jean Dupont" }));
    fireEvent.click(screen.getByRole("button", { name: "Keep it" }));
    expect(document.activeElement).toBe(remove());
    fireEvent.click(remove());
    fireEvent.keyDown(screen.getByRole("button", { name: "Yes, delete Jean Dupont" }), { key: "Escape" });
    expect(screen.queryByRole("button", { name: "Yes, delete Jean Dupont" })).toBeNull();
    expect(document.activeElement).toBe(remove());
    expect(calls).toEqual([]);
  });

  test("the delete question says what becomes of the payments to them, waiting, approved and sent", () => {
    fakeApi({});
    island({ selected: JEAN });
    fireEvent.click(screen.getByRole("button", { name: "Delete" }));
    const question = screen.getByRole("group", { name: /^Delete Jean Dupont\?/ }).textContent!.replace(/\s+/g, " ");
    expect(question).toContain("A payment to them still waiting for approval can then only be rejected");
    expect(question).toContain("one already approved is still sent unless you cancel it on its page");
    expect(question).toContain("payments already sent keep the details they were paid to");
  });

  test("deleting asks first; only the confirmation sends DELETE, and the list comes back", async () => {
    const calls = fakeApi({
      "DELETE account/recipients/5": [200, { body: { id: 5, deleted: true } }],
      "GET account/recipients": [200, { body: EMPTY }],
    });
    island({ selected: JEAN });
    fireEvent.click(screen.getByRole("button", { name: "Delete" }));
    expect(calls).toEqual([]);
    fireEvent.click(screen.getByRole("button", { name: "Keep it" }));
    expect(screen.queryByRole("button", { name: "Yes, delete Jean Dupont" })).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Delete" }));
    fireEvent.click(screen.getByRole("button", { name: "Yes, delete Jean Dupont" }));
    await settle();
    expect(calls[0]).toMatchObject({ method: "DELETE", path: "account/recipients/5" });
    expect(calls[0].headers.get(IDEMPOTENCY_HEADER)).toBeTruthy();
    expect(titles()).toEqual(["Jean Dupont deleted"]);
    // The list is asked again: the deleted recipient is gone from it.
    await vi.waitFor(() => screen.getByRole("cell", { name: "No recipients yet." }), { timeout: 5_000 });
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      "DELETE account/recipients/5",
      "GET account/recipients",
    ]);
  });
});

describe("where the keyboard goes", () => {
  const focused = () => document.activeElement;
  const heading = (name: string) => screen.getByRole("heading", { name });

  test("each view that replaces the button pressed takes the focus to its heading, and back to the list to the row left", async () => {
    fakeApi({ "GET account/recipients/5": [200, { body: JEAN }] });
    island({ selected: JEAN });
    // The page opened on the recipient: the focus stays where the browser put it.
    expect(focused()).toBe(document.body);

    fireEvent.click(screen.getByRole("button", { name: "Change" }));
    await vi.waitFor(() => expect(focused()).toBe(heading("Change Jean Dupont")), { timeout: 5_000 });
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    await settle();
    expect(focused()).toBe(heading("Jean Dupont"));
    expect(heading("Jean Dupont").tabIndex).toBe(-1);

    fireEvent.click(screen.getByRole("button", { name: "Back to the list" }));
    await settle();
    expect(focused()).toBe(screen.getByRole("button", { name: "Open Jean Dupont" }));
    fireEvent.click(screen.getByRole("button", { name: "Open Jean Dupont" }));
    await settle();
    expect(focused()).toBe(heading("Jean Dupont"));

    fireEvent.click(screen.getByRole("button", { name: "Back to the list" }));
    await settle();
    fireEvent.click(screen.getByRole("button", { name: "Add a recipient" }));
    await vi.waitFor(() => expect(focused()).toBe(heading("Add a recipient")), { timeout: 5_000 });
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    await settle();
    expect(focused()).toBe(screen.getByRole("button", { name: "Add a recipient" }));
  });

  test("once a recipient is deleted, the focus is on 'Add a recipient', not lost", async () => {
    fakeApi({
      "DELETE account/recipients/5": [200, { body: { id: 5, deleted: true } }],
      "GET account/recipients": [200, { body: EMPTY }],
    });
    island({ selected: JEAN });
    fireEvent.click(screen.getByRole("button", { name: "Delete" }));
    fireEvent.click(screen.getByRole("button", { name: "Yes, delete Jean Dupont" }));
    await settle();
    await vi.waitFor(() => expect(focused()).toBe(screen.getByRole("button", { name: "Add a recipient" })));
  });
});

describe("adding a recipient", () => {
  const routes = {
    "GET account/recipients/requirements": (call: { query: Record<string, string> }) =>
      [200, { body: requirement(call.query.currency, call.query.country) }] as [number, unknown],
  };

  test("the form is drawn from the requirements; a detail is checked while typed, once complete or left", async () => {
    const calls = fakeApi(routes);
    island({ recipients: EMPTY });
    fireEvent.click(screen.getByRole("button", { name: "Add a recipient" }));
    const form = await formNamed("Add a recipient");
    await settle();
    expect(calls.at(-1)?.query).toEqual({ currency: "GBP" });
    expect(within(form).getByLabelText("Sort code")).toBeTruthy();
    expect((within(form).getByLabelText("Country of their bank") as HTMLSelectElement).value).toBe("GB");

    fireEvent.change(within(form).getByLabelText("Currency they receive"), { target: { value: "EUR" } });
    await settle();
    expect(calls.at(-1)?.query).toEqual({ currency: "EUR" });
    const iban = within(form).getByLabelText("IBAN") as HTMLInputElement;
    // Halfway: not called wrong yet.
    fireEvent.change(iban, { target: { value: "DE89 3704" } });
    expect(iban.getAttribute("aria-invalid")).toBeNull();
    // Complete and wrong: said at once.
    fireEvent.change(iban, { target: { value: "DE89 3704 0044 0532 0130 01" } });
    expect(iban.getAttribute("aria-invalid")).toBe("true");
    expect(within(form).getByText("This IBAN is not valid: look for a mistyped or swapped character.")).toBeTruthy();
    fireEvent.change(iban, { target: { value: "DE89 3704 0044 0532 0130 00" } });
    expect(iban.getAttribute("aria-invalid")).toBeNull();
    // Left short: said when the customer moves on.
    fireEvent.change(iban, { target: { value: "DE89" } });
    fireEvent.blur(iban);
    expect(within(form).getByText("Enter the 22-character IBAN: it starts with DE.")).toBeTruthy();
    expect(calls.filter((c) => c.method !== "GET")).toEqual([]);
  });

  test("sending with a problem sends nothing and marks the field; the server's refusal lands under its field", async () => {
    const calls = fakeApi({
      ...routes,
      "POST account/recipients": [
        422,
        {
          error: "The sort code and account number do not match: check both.",
          message: "Unprocessable Entity",
          fields: { "details.account_number": "The sort code and account number do not match: check both." },
        },
      ],
    });
    island({ recipients: EMPTY });
    fireEvent.click(screen.getByRole("button", { name: "Add a recipient" }));
    const form = await formNamed("Add a recipient");
    await settle();
    fireEvent.change(within(form).getByLabelText("Full name or business name"), { target: { value: "Jean Dupont" } });
    fireEvent.click(within(form).getByRole("button", { name: "Save the recipient" }));
    await settle();
    expect(calls.filter((c) => c.method === "POST")).toEqual([]);
    expect(within(form).getByLabelText("Sort code").getAttribute("aria-invalid")).toBe("true");
    expect(within(form).getByText("Enter the sort code.")).toBeTruthy();

    fireEvent.change(within(form).getByLabelText("Sort code"), { target: { value: "08-99-99" } });
    fireEvent.change(within(form).getByLabelText("Account number"), { target: { value: "66374959" } });
    fireEvent.click(within(form).getByRole("button", { name: "Save the recipient" }));
    await settle();
    const post = calls.find((c) => c.method === "POST");
    expect(post?.body).toEqual({
      name: "Jean Dupont",
      type: "person",
      currency: "GBP",
      country: "GB",
      email: "",
      details: { sort_code: "08-99-99", account_number: "66374959" },
    });
    const account = within(form).getByLabelText("Account number");
    expect(account.getAttribute("aria-invalid")).toBe("true");
    expect(within(form).getAllByText("The sort code and account number do not match: check both.").length)
      .toBeGreaterThan(0);
  });

  test("a saved recipient opens, and the list is fetched again", async () => {
    const saved: RecipientWithHistory = {
      ...JEAN,
      id: 9,
      currency: "GBP",
      country: "GB",
      details: { sort_code: "089999", account_number: "66374958" },
      scheme: "faster_payments",
      scheme_name: "UK bank transfer (Faster Payments)",
      changes: [JEAN.changes[1]],
    };
    const calls = fakeApi({
      ...routes,
      "POST account/recipients": [201, { body: saved }],
      "GET account/recipients": [200, { body: { ...PAGE, items: [saved] } }],
    });
    island({ recipients: EMPTY });
    fireEvent.click(screen.getByRole("button", { name: "Add a recipient" }));
    const form = await formNamed("Add a recipient");
    await settle();
    fireEvent.change(within(form).getByLabelText("Full name or business name"), { target: { value: "Jean Dupont" } });
    fireEvent.change(within(form).getByLabelText("Sort code"), { target: { value: "089999" } });
    fireEvent.change(within(form).getByLabelText("Account number"), { target: { value: "66374958" } });
    fireEvent.click(within(form).getByRole("button", { name: "Save the recipient" }));
    await settle();
    const card = screen.getByRole("region", { name: "Jean Dupont" });
    expect(within(card).getByText("08-99-99")).toBeTruthy();
    expect(titles()).toEqual(["Jean Dupont saved"]);
    expect(new URL(location.href).searchParams.get("recipient")).toBe("9");
    fireEvent.click(within(card).getByRole("button", { name: "Back to the list" }));
    await settle(200);
    expect(calls.filter((c) => c.method === "GET" && c.path === "account/recipients")).toHaveLength(1);
    expect(screen.getByRole("rowheader", { name: /Jean Dupont/ })).toBeTruthy();
  });
});
