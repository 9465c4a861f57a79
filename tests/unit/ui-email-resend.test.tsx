// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, test } from "vitest";
import EmailResend from "../../islands/EmailResend.tsx";
import { fakeApi, resetIslands } from "../helpers/fake-api.ts";

afterEach(() => {
  cleanup();
  resetIslands();
  delete document.documentElement.dataset.hydrated;
});

describe("an email's Send again, by keyboard", () => {
  test("Cancel or Escape leave the question with the focus back on the button, and nothing is sent", () => {
    const calls = fakeApi({});
    // The page's islands are hydrated (client.ts marks <html>).
    document.documentElement.dataset.hydrated = "";
    render(<EmailResend id={4} to="ada@example.test" />);
    const first = screen.getByRole("button", { name: "Send again to ada@example.test" });
    first.focus();
    fireEvent.click(first);
    const sure = screen.getByRole("button", { name: "Yes, send it again" });
    expect(document.activeElement).toBe(sure);
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Send again to ada@example.test" }));
    fireEvent.click(screen.getByRole("button", { name: "Send again to ada@example.test" }));
    fireEvent.keyDown(screen.getByRole("button", { name: "Yes, send it again" }), { key: "Escape" });
    expect(screen.queryByRole("button", { name: "Cancel" })).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Send again to ada@example.test" }));
    expect(calls).toEqual([]);
  });
});
