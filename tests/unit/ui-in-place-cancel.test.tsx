// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import ConsoleAdmins from "../../islands/ConsoleAdmins.tsx";
import ConsoleAlerts from "../../islands/ConsoleAlerts.tsx";
import ConsoleBulkEmail from "../../islands/ConsoleBulkEmail.tsx";
import ConsolePricingPlans from "../../islands/ConsolePricingPlans.tsx";
import ConsoleReceipts from "../../islands/ConsoleReceipts.tsx";
import ConsoleRestrict from "../../islands/ConsoleRestrict.tsx";
import ConsoleReview from "../../islands/ConsoleReview.tsx";
import ConsoleUsers from "../../islands/ConsoleUsers.tsx";
import type { Administrator } from "../../islands/admins/calls.ts";
import type { AlertPage } from "../../islands/alerts/calls.ts";
import type { BulkEmailWithRecipients } from "../../islands/bulkemails/calls.ts";
import type { ConsoleUser, PricingPlan, Receipt } from "../../islands/console/calls.ts";
import { fakeApi, resetIslands } from "../helpers/fake-api.ts";

/**
 * Decision 081: a question or short form opened in place by a button takes the keyboard (its first
 * field), and gives it back to that button when it is given up, by its Cancel or by Escape inside
 * it, instead of letting it fall to the page's body with the form (a keyboard user would start
 * again at the top of the page). One test per island, each opener tried with Cancel and with Escape.
 * (React, which runs these, focuses an `autoFocus` field itself; the browser's preact does not:
 * tests/e2e/keyboard.test.ts.)
 */

beforeEach(() => {
  // Nothing here is sent: any call the lists make stays unanswered.
  fakeApi(() => undefined);
});
afterEach(() => {
  cleanup();
  resetIslands();
});

const button = (name: string | RegExp) => screen.getByRole("button", { name });

/** The form's first field: where the keyboard goes as it opens. */
const firstField = (form: string | RegExp) =>
  screen.getByRole("form", { name: form }).querySelector<HTMLElement>("input, textarea, select")!;

/**
 * Opens the form with `opener`, gives it up with its Cancel, then opens it again and gives it up with
 * Escape pressed in its first field: each time the keyboard is first in the form (`takes`: its
 * first field unless said), then back on the opener.
 */
async function givesFocusBack(
  opener: () => HTMLElement,
  form: string | RegExp,
  opened = async () => {},
  takes = () => firstField(form),
) {
  fireEvent.click(opener());
  await opened();
  expect(document.activeElement, "opened").toBe(takes());
  fireEvent.click(within(screen.getByRole("form", { name: form })).getByRole("button", { name: "Cancel" }));
  expect(screen.queryByRole("form", { name: form }), "Cancel closes it").toBeNull();
  expect(document.activeElement, "after Cancel").toBe(opener());

  fireEvent.click(opener());
  await opened();
  expect(document.activeElement, "opened again").toBe(takes());
  fireEvent.keyDown(firstField(form), { key: "Escape" });
  expect(screen.queryByRole("form", { name: form }), "Escape closes it").toBeNull();
  expect(document.activeElement, "after Escape").toBe(opener());
}

test("console alerts: Resolve's note", async () => {
  const alerts: AlertPage = {
    items: [{
      id: 5,
      kind: "payout_failed",
      severity: "critical",
      subject: { payment_id: 9 },
      message: "Ada Lovelace's payment failed: Account closed",
      created_at: "2026-11-28T10:00:00.000Z",
      assigned_to: null,
      raised_by: null,
      resolved_at: null,
      resolved_by: null,
      resolution_note: null,
    }],
    page: 1,
    per_page: 50,
    total: 1,
  };
  render(
    <ConsoleAlerts
      alerts={alerts}
      admins={[{ id: 1, email: "me@example.com", active: true }]}
      me={1}
      threshold={1000}
    />,
  );
  await givesFocusBack(() => button("Resolve alert 5"), "Resolve alert 5");
});

test("a customer's restriction: its reason", async () => {
  render(
    <ConsoleRestrict
      customer={{ id: 3, name: "Ada Lovelace" }}
      restriction={{ restricted: false, reason: null, at: null, by: null }}
    />,
  );
  await givesFocusBack(() => button("Restrict the customer"), "Restrict Ada Lovelace");
  cleanup();
  render(
    <ConsoleRestrict
      customer={{ id: 3, name: "Ada Lovelace" }}
      restriction={{ restricted: true, reason: "Fraud check", at: null, by: null }}
    />,
  );
  await givesFocusBack(() => button("Lift the restriction"), "Lift the restriction of Ada Lovelace");
});

test("the compliance review: opening the account and rejecting the application", async () => {
  render(
    <ConsoleReview
      customer={{ id: 12, name: "Acme Ltd", username: "acme@example.com" }}
      canOpen
      canReject
      rejected={false}
    />,
  );
  await givesFocusBack(() => button("Open the account"), "Compliance review for Acme Ltd");
  await givesFocusBack(() => button("Reject the application"), "Reject the application of Acme Ltd");
});

test("the customers' list: Open account", async () => {
  const acme: ConsoleUser = {
    id: 8,
    username: "acme@example.com",
    name: "Acme Ltd",
    type: "Business",
    validated: true,
    profile: true,
    identity: true,
    account: false,
    account_ref: null,
    restricted: false,
    step: "review",
    rejection: null,
    created_at: "2026-02-03T10:00:00.000Z",
  };
  render(<ConsoleUsers first={{ items: [acme], page: 1, per_page: 20, total: 1 }} onBehalfId={null} />);
  await givesFocusBack(() => button("Open account for Acme Ltd"), "Compliance review for Acme Ltd");
});

test("receipts: each of a row's buttons gets the keyboard back from its own form", async () => {
  const unmatched: Receipt = {
    id: 1,
    amount: "50.00",
    currency: "EUR",
    payer_name: "J Smith",
    reference: "INVOICE 7",
    received_at: "2026-11-19",
    status: "unmatched",
    account_ref: null,
    recorded_by: { id: 1, email: "admin@example.com" },
    approved_by: null,
    duplicate_of: null,
    closed_by: null,
    reason: null,
    returns_payment_id: null,
    returns_payment_status: null,
  };
  render(<ConsoleReceipts receipts={[unmatched]} currencies={[{ code: "EUR", name: "Euro" }]} />);
  await givesFocusBack(() => button("Allocate 50.00 EUR from J Smith"), "Allocate the receipt from J Smith");
  await givesFocusBack(() => button("Reverse 50.00 EUR from J Smith"), "Reverse the receipt from J Smith");
  // From one form straight to the other: the one given up goes back to the button that opened it.
  fireEvent.click(button("Allocate 50.00 EUR from J Smith"));
  fireEvent.click(button("Reverse 50.00 EUR from J Smith"));
  expect(document.activeElement, "the keyboard follows into the other form").toBe(
    firstField("Reverse the receipt from J Smith"),
  );
  fireEvent.click(
    within(screen.getByRole("form", { name: "Reverse the receipt from J Smith" })).getByRole("button", {
      name: "Cancel",
    }),
  );
  expect(document.activeElement).toBe(button("Reverse 50.00 EUR from J Smith"));
});

describe("pricing plans", () => {
  const fees = { EUR: { regular: "1.00", priority: "10.00" } };
  const standard: PricingPlan = {
    id: 1,
    name: "Standard",
    is_default: true,
    tier_currency: "EUR",
    tiers: [{ up_to: null, bps: 50 }],
    fees,
    accounts: [],
  };
  /** The editor's module loads on first use. */
  const editorLoaded = () =>
    act(async () => {
      await import("../../islands/console/plan-editor.tsx");
    });

  test("Assign's account reference, and the editor back to New plan or to the plan's Edit", async () => {
    render(<ConsolePricingPlans plans={[standard]} currencies={[{ code: "EUR", name: "Euro" }]} />);
    await givesFocusBack(() => button("Assign Standard to an account"), "Assign Standard to an account");
    // The editor, longer, takes the keyboard to its heading, which names it.
    const heading = (name: string) => () => screen.getByRole("heading", { name });
    await givesFocusBack(() => button("Edit Standard"), "Edit Standard", editorLoaded, heading("Edit Standard"));
    await givesFocusBack(() => button("New plan"), "New pricing plan", editorLoaded, heading("New pricing plan"));
  });
});

test("an administrator's invitation: Refuse's reason", async () => {
  const admin = (id: number, email: string, status: Administrator["status"], invitedBy: string | null) => ({
    id,
    email,
    name: email,
    status,
    second_factor: "emailed-code" as const,
    last_sign_in_at: null,
    invited_at: null,
    invited_by: invitedBy,
    disabled_at: null,
  });
  render(
    <ConsoleAdmins
      administrators={[
        admin(1, "me@example.com", "active", null),
        admin(9, "new@example.com", "waiting", "other@example.com"),
      ]}
      youId={1}
    />,
  );
  await givesFocusBack(() => button("Refuse new@example.com"), "Refuse new@example.com");
});

test("a bulk email's draft: Edit", async () => {
  const draft: BulkEmailWithRecipients = {
    id: 7,
    subject: "News for {{first_name}}",
    body: "Hello {{name}}",
    segment: { country: "GB" },
    segment_text: "Customers in GB",
    status: "draft",
    created_at: "2026-11-27T10:00:00.000Z",
    created_by: "admin@example.com",
    sent_at: null,
    sent_by: null,
    finished_at: null,
    rate_per_second: null,
    counts: { total: 0, pending: 0, sending: 0, sent: 0, failed: 0, in_doubt: 0, unsubscribed: 0 },
    progress: null,
    error: null,
    recipients: { items: [], page: 1, per_page: 50, total: 0 },
    segment_size: 12,
  };
  render(<ConsoleBulkEmail email={draft} mergeFields={{}} partners={[]} />);
  await givesFocusBack(() => button("Edit"), "Edit the draft");
});
