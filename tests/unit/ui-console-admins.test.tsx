// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import ConsoleAdmins from "../../islands/ConsoleAdmins.tsx";
import type { Administrator } from "../../islands/admins/calls.ts";
import { NOBODY_TO_APPROVE } from "../../islands/admins/invite-form.tsx";
import { notifications } from "../../islands/lib/notification-store.ts";
import { fakeApi, resetIslands } from "../helpers/fake-api.ts";

beforeEach(() => notifications.clear());
afterEach(() => {
  cleanup();
  resetIslands();
});

const admin = (id: number, email: string, status: Administrator["status"]): Administrator => ({
  id,
  email,
  name: email,
  status,
  second_factor: "emailed-code",
  last_sign_in_at: null,
  invited_at: null,
  invited_by: null,
  disabled_at: status === "disabled" ? "2026-11-27T10:00:00.000Z" : null,
});

const waiting = { ...admin(9, "new@example.com", "waiting"), invited_by: "me@example.com" };

async function invite(administrators: Administrator[]) {
  fakeApi({ "POST console/admins": [201, { body: waiting }] });
  render(<ConsoleAdmins administrators={administrators} youId={1} />);
  fireEvent.change(screen.getByLabelText("Email"), { target: { value: "new@example.com" } });
  fireEvent.change(screen.getByLabelText("Name"), { target: { value: "New Admin" } });
  fireEvent.click(screen.getByRole("button", { name: "Send the invitation" }));
  await waitFor(() => expect(notifications.snapshot().visible).toHaveLength(1));
  return notifications.snapshot().visible[0];
}

describe("inviting an administrator (decision 044)", () => {
  test("an invitation waiting while a colleague is active: that colleague approves it", async () => {
    const shown = await invite([admin(1, "me@example.com", "active"), admin(2, "you@example.com", "active")]);
    expect(shown.title).toBe("Invitation waiting for approval");
    expect(shown.description).toContain("Another administrator approves it");
  });

  test("left alone after the only colleague was disabled: the waiting invitation says who can approve it", async () => {
    const shown = await invite([admin(1, "me@example.com", "active"), admin(2, "gone@example.com", "disabled")]);
    expect(shown.title).toBe("Invitation waiting for approval");
    expect(shown.description).toBe(NOBODY_TO_APPROVE);
    expect(shown.color).toBe("warning");
  });
});
