// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, test } from "vitest";
import ConsoleAdmins from "../../islands/ConsoleAdmins.tsx";
import type { Administrator } from "../../islands/admins/calls.ts";
import { fakeApi, resetIslands } from "../helpers/fake-api.ts";

const admin = (id: number, name: string): Administrator => ({
  id,
  email: `${name.split(" ")[0].toLowerCase()}@portal.test`,
  name,
  status: "active",
  second_factor: "emailed-code",
  last_sign_in_at: null,
  invited_at: null,
  invited_by: null,
  disabled_at: null,
});

afterEach(() => {
  cleanup();
  resetIslands();
});

describe("disabling an administrator by keyboard", () => {
  test("Disable takes the focus to 'Yes, disable'; Cancel or Escape bring it back to Disable, and nothing is sent", () => {
    const calls = fakeApi({});
    render(<ConsoleAdmins administrators={[admin(1, "Ada Desk"), admin(2, "Bob Desk")]} youId={1} />);
    const disable = () => screen.getByRole("button", { name: "Disable Bob Desk" });
    fireEvent.click(disable());
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Yes, disable" }));
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(document.activeElement).toBe(disable());
    fireEvent.click(disable());
    fireEvent.keyDown(screen.getByRole("button", { name: "Yes, disable" }), { key: "Escape" });
    expect(screen.queryByRole("button", { name: "Yes, disable" })).toBeNull();
    expect(document.activeElement).toBe(disable());
    expect(calls).toEqual([]);
  });
});
