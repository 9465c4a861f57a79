// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import ConsoleReview from "../../islands/ConsoleReview.tsx";
import { REJECTION_REASON_TEXT } from "../../lib/compliance.ts";
import { fakeApi, resetIslands } from "../helpers/fake-api.ts";

const settle = (ms = 0) => act(() => vi.advanceTimersByTimeAsync(ms));
const CUSTOMER = { id: 12, name: "Acme Ltd", username: "acme@example.com" };

let reload: ReturnType<typeof vi.fn>;
beforeEach(() => {
  vi.useFakeTimers();
  reload = vi.fn();
  vi.stubGlobal("location", { ...location, reload });
});
afterEach(() => {
  cleanup();
  resetIslands();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

/**
 * A click on a submit button, which moves the keyboard onto it as a browser does (fireEvent alone
 * leaves it in the field the form opened with, where a problem is also said by the form's alert).
 */
function clickSubmit(button: HTMLElement) {
  button.focus();
  fireEvent.click(button);
}

describe("ConsoleReview", () => {
  test("rejects with a reason the customer is told and a note for the file, then shows the page again", async () => {
    const calls = fakeApi(() => [200, { body: { done: false, amount: null, date: null, rejection: null } }]);
    render(<ConsoleReview customer={CUSTOMER} canOpen canReject rejected={false} />);
    fireEvent.click(screen.getByRole("button", { name: "Reject the application" }));
    const form = within(screen.getByRole("form", { name: "Reject the application of Acme Ltd" }));
    // Sent by its button, which a click focuses (the form opened with the keyboard in its first field).
    clickSubmit(form.getByRole("button", { name: "Reject the application" }));
    await settle();
    expect(calls).toHaveLength(0);
    expect(form.getByText("Choose what the customer is told.")).toBeTruthy();
    fireEvent.change(form.getByLabelText("What the customer is told"), { target: { value: "not_verified" } });
    expect(form.getByText(REJECTION_REASON_TEXT.not_verified.customer)).toBeTruthy();
    fireEvent.change(form.getByLabelText(/Note for the file/), { target: { value: " Dissolved in 2024 " } });
    fireEvent.click(form.getByRole("button", { name: "Reject the application" }));
    await settle();
    expect(calls[0]).toMatchObject({
      method: "POST",
      path: "console/users/12/reject",
      body: { reason: "not_verified", note: "Dissolved in 2024" },
    });
    expect(reload).toHaveBeenCalled();
  });

  test("a rejected customer is opened only by a review that overrides the rejection", async () => {
    const calls = fakeApi(() => [200, { body: { id: 12 } }]);
    render(<ConsoleReview customer={CUSTOMER} canOpen canReject rejected />);
    expect(screen.queryByRole("button", { name: "Reject the application" })).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Open the account (overrides the rejection)" }));
    const form = within(screen.getByRole("form", { name: "Compliance review for Acme Ltd" }));
    fireEvent.click(form.getByLabelText("Compliance review done"));
    fireEvent.change(form.getByLabelText("Approved annual volume"), { target: { value: "100000" } });
    fireEvent.change(form.getByLabelText("Review date"), { target: { value: "2026-11-25" } });
    fireEvent.click(form.getByRole("button", { name: "Open the account" }));
    await settle();
    expect(calls[0]).toMatchObject({
      path: "console/users/12/open-account",
      body: { compliance: { done: true, amount: "100000", date: "2026-11-25" }, overrides_rejection: true },
    });
  });

  test("a refusal that names one field is read once, under that field, not also in the form's alert", async () => {
    const problem = "Complete the compliance review before opening the account.";
    fakeApi(() => [422, { error: problem, message: "Unprocessable Entity", fields: { "compliance.done": problem } }]);
    render(<ConsoleReview customer={CUSTOMER} canOpen canReject rejected={false} />);
    fireEvent.click(screen.getByRole("button", { name: "Open the account" }));
    const form = within(screen.getByRole("form", { name: "Compliance review for Acme Ltd" }));
    clickSubmit(form.getByRole("button", { name: "Open the account" }));
    await settle();
    expect(form.getAllByText(problem)).toHaveLength(1);
    expect(form.getByLabelText("Compliance review done").getAttribute("aria-invalid")).toBe("true");
  });

  test("nothing to decide: renders nothing", () => {
    const { container } = render(
      <ConsoleReview customer={CUSTOMER} canOpen={false} canReject={false} rejected={false} />,
    );
    expect(container.textContent).toBe("");
  });
});
