// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, test } from "vitest";
import type { BulkEmailWithRecipients } from "../../islands/bulkemails/calls.ts";
import ConsoleBulkEmail from "../../islands/ConsoleBulkEmail.tsx";
import { fakeApi, resetIslands } from "../helpers/fake-api.ts";

afterEach(() => {
  cleanup();
  resetIslands();
  delete document.documentElement.dataset.hydrated;
});

const draft = (segmentSize: number): BulkEmailWithRecipients => ({
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
  segment_size: segmentSize,
});

describe("ConsoleBulkEmail", () => {
  test.each([
    [1, "1 customer"],
    [12, "12 customers"],
  ])("a draft whose segment holds %i names it '%s' before and in the confirmation of its send", (size, words) => {
    // The preview is left unanswered: what is checked here is the draft's own text.
    fakeApi(() => undefined);
    render(<ConsoleBulkEmail email={draft(size)} mergeFields={{}} partners={[]} />);
    expect(screen.getByText(`(${words} now)`, { exact: false })).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: `Send to ${words}` }));
    expect(screen.getByRole("status").textContent).toBe(`It goes to ${words} now and cannot be taken back.`);
  });

  test("by keyboard: Send and Delete draft take the focus to their question; Cancel or Escape bring it back", () => {
    const calls = fakeApi(() => undefined);
    // The page's islands are hydrated (client.ts marks <html>): the questions' buttons are usable at once.
    document.documentElement.dataset.hydrated = "";
    render(<ConsoleBulkEmail email={draft(12)} mergeFields={{}} partners={[]} />);
    const send = () => screen.getByRole("button", { name: "Send to 12 customers" });
    fireEvent.click(send());
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Yes, send it now" }));
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(document.activeElement).toBe(send());
    fireEvent.click(send());
    fireEvent.keyDown(screen.getByRole("button", { name: "Yes, send it now" }), { key: "Escape" });
    expect(document.activeElement).toBe(send());

    const remove = () => screen.getByRole("button", { name: "Delete draft" });
    fireEvent.click(remove());
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Yes, delete it" }));
    fireEvent.keyDown(screen.getByRole("button", { name: "Yes, delete it" }), { key: "Escape" });
    expect(document.activeElement).toBe(remove());
    expect(calls.filter((c) => c.method !== "GET")).toEqual([]);
  });
});
