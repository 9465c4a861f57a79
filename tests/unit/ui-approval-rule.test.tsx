// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import ApprovalRule, { type ApprovalRuleProps } from "../../islands/ApprovalRule.tsx";
import type { ApprovalRule as Rule } from "../../islands/payments/calls.ts";
import { notifications } from "../../islands/lib/notification-store.ts";
import { IDEMPOTENCY_HEADER } from "../../lib/api-types.ts";
import { fakeApi, resetIslands } from "../helpers/fake-api.ts";

const settle = (ms = 0) => act(() => vi.advanceTimersByTimeAsync(ms));
const titles = () => notifications.snapshot().visible.map((n) => n.title);

const REF = "B12345674";
const CURRENCIES = [
  { code: "GBP", name: "Pound Sterling" },
  { code: "EUR", name: "Euro" },
  { code: "USD", name: "US Dollar" },
];
const NO_RULE: Rule = { mode: "none", thresholds: {}, new_recipient: false, updated_by: null, updated_at: null };
const OLGA = { id: 1, name: "Olga Owner", email: "olga@acme.test" };

function props(overrides: Partial<ApprovalRuleProps> = {}): ApprovalRuleProps {
  return { accountRef: REF, rule: NO_RULE, canManage: true, currencies: CURRENCIES, ...overrides };
}

const form = () => screen.getByRole("form", { name: "Approval rule" });

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

describe("ApprovalRule", () => {
  test("a member who may not manage it reads the rule and gets no form", async () => {
    const rule: Rule = {
      mode: "above",
      thresholds: { GBP: "100.00", EUR: "120.00" },
      new_recipient: true,
      updated_by: OLGA,
      updated_at: "2026-11-20T10:00:00.000Z",
    };
    fakeApi({ "GET account/approvals": [200, { body: rule }] });
    render(<ApprovalRule {...props({ rule, canManage: false })} />);
    await settle();
    const text = document.body.textContent!;
    expect(text).toContain("A payment of 100.00 GBP or 120.00 EUR or more needs a second person's approval");
    expect(text).toContain("The first payment to a new recipient");
    expect(text).toContain("Set by Olga Owner on 20 Nov 2026.");
    expect(screen.queryByRole("form")).toBeNull();
    expect(screen.queryAllByRole("button")).toHaveLength(0);
  });

  test("an owner sets payments of 100.00 GBP or more: PUT account/approvals with an Idempotency-Key", async () => {
    const saved: Rule = {
      mode: "above",
      thresholds: { GBP: "100.00" },
      new_recipient: true,
      updated_by: OLGA,
      updated_at: "2026-11-27T10:00:00.000Z",
    };
    const calls = fakeApi({
      "PUT account/approvals": [200, { body: saved }],
      "GET account/approvals": [200, { body: saved }],
    });
    render(<ApprovalRule {...props()} />);
    await settle();
    expect(document.body.textContent).toContain("No payment needs approval");
    // The amounts are asked for only when the rule looks at amounts.
    expect(within(form()).queryByLabelText("Amount in GBP")).toBeNull();
    fireEvent.click(within(form()).getByLabelText("Payments of an amount or more need approval"));
    fireEvent.change(within(form()).getByLabelText("Amount in GBP"), { target: { value: "100" } });
    fireEvent.click(within(form()).getByLabelText(/first payment to a new recipient/));
    fireEvent.click(within(form()).getByRole("button", { name: "Save the rule" }));
    await settle(500);
    const put = calls.find((c) => c.method === "PUT")!;
    expect(put).toMatchObject({
      path: "account/approvals",
      body: { mode: "above", thresholds: { GBP: "100" }, new_recipient: true },
    });
    expect(put.headers.get(IDEMPOTENCY_HEADER)).toBeTruthy();
    expect(titles()).toEqual(["Approval rule saved"]);
    expect(document.body.textContent).toContain("A payment of 100.00 GBP or more needs");
    // The amount as the server wrote it.
    expect((within(form()).getByLabelText("Amount in GBP") as HTMLInputElement).value).toBe("100.00");
  });

  test("rows of currencies: added, given twice refused before sending, removed", async () => {
    const calls = fakeApi();
    render(<ApprovalRule {...props()} />);
    await settle();
    fireEvent.click(within(form()).getByLabelText("Payments of an amount or more need approval"));
    fireEvent.click(within(form()).getByRole("button", { name: "Add a currency" }));
    // The new row takes a currency not used yet, and the focus.
    expect((within(form()).getByLabelText("Currency 2") as HTMLSelectElement).value).toBe("EUR");
    expect(document.activeElement).toBe(within(form()).getByLabelText("Currency 2"));
    fireEvent.change(within(form()).getByLabelText("Currency 2"), { target: { value: "GBP" } });
    fireEvent.change(within(form()).getAllByLabelText("Amount in GBP")[0], { target: { value: "100" } });
    fireEvent.change(within(form()).getAllByLabelText("Amount in GBP")[1], { target: { value: "200" } });
    // Clicked as in a browser, which moves the focus to the button (left in "Currency 2", the problem
    // would also be said in the form's alert for screen readers: alert.tsx).
    within(form()).getByRole("button", { name: "Save the rule" }).focus();
    fireEvent.click(within(form()).getByRole("button", { name: "Save the rule" }));
    await settle();
    expect(within(form()).getByText("GBP is given twice: one amount per currency.")).toBeTruthy();
    expect(calls.filter((c) => c.method === "PUT")).toHaveLength(0);
    fireEvent.click(within(form()).getAllByRole("button", { name: "Remove the GBP amount" })[1]);
    expect(within(form()).getAllByLabelText("Amount in GBP")).toHaveLength(1);
    expect(document.activeElement).toBe(within(form()).getByLabelText("Amount in GBP"));
    expect(within(form()).queryByText("GBP is given twice: one amount per currency.")).toBeNull();
  });

  test("the server's refusals show next to their field, in its words, and nothing changes", async () => {
    const wrong = "The GBP threshold: GBP has 2 decimal places at most.";
    const nobody = "Nobody else on this account could approve the payments of Paula Payer. Invite an approver first.";
    fakeApi({
      "PUT account/approvals": (call) =>
        (call.body as { mode: string }).mode === "all"
          ? [422, { error: nobody, message: "Unprocessable Entity", fields: { mode: nobody } }]
          : [422, { error: wrong, message: "Unprocessable Entity", fields: { "thresholds.GBP": wrong } }],
    });
    render(<ApprovalRule {...props()} />);
    await settle();
    fireEvent.click(within(form()).getByLabelText("Payments of an amount or more need approval"));
    const amount = within(form()).getByLabelText("Amount in GBP");
    fireEvent.change(amount, { target: { value: "1.005" } });
    fireEvent.click(within(form()).getByRole("button", { name: "Save the rule" }));
    await settle();
    expect(amount.getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById(amount.getAttribute("aria-describedby")!.split(" ").at(-1)!)!.textContent)
      .toBe(wrong);

    fireEvent.click(within(form()).getByLabelText("Every payment needs approval"));
    fireEvent.click(within(form()).getByRole("button", { name: "Save the rule" }));
    await settle();
    expect(document.getElementById("approval-mode-error")!.textContent).toBe(nobody);
    expect(document.body.textContent).toContain("No payment needs approval");
    expect(titles()).toEqual([]);
  });

  test("sent again after a refusal (an approver invited meanwhile), the same rule is asked anew, not replayed", async () => {
    const nobody =
      "You are the only user of this account, so nobody could approve your payments. Invite an approver first.";
    const saved: Rule = { ...NO_RULE, mode: "all", updated_by: OLGA, updated_at: "2026-11-27T10:00:00.000Z" };
    let puts = 0;
    const calls = fakeApi({
      "PUT account/approvals": () =>
        ++puts === 1
          ? [422, { error: nobody, message: "Unprocessable Entity", fields: { mode: nobody } }]
          : [200, { body: saved }],
      "GET account/approvals": [200, { body: saved }],
    });
    render(<ApprovalRule {...props()} />);
    await settle();
    fireEvent.click(within(form()).getByLabelText("Every payment needs approval"));
    fireEvent.click(within(form()).getByRole("button", { name: "Save the rule" }));
    await settle();
    expect(document.getElementById("approval-mode-error")!.textContent).toBe(nobody);
    fireEvent.click(within(form()).getByRole("button", { name: "Save the rule" }));
    await settle(500);
    const keys = calls.filter((c) => c.method === "PUT").map((c) => c.headers.get(IDEMPOTENCY_HEADER));
    expect(keys).toHaveLength(2);
    expect(keys[1]).not.toBe(keys[0]);
    expect(titles()).toEqual(["Approval rule saved"]);
    expect(document.getElementById("approval-mode-error")).toBeNull();
  });
});
