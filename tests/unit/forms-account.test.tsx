// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { createElement, type FunctionComponent } from "react";
import { hydrateRoot } from "react-dom/client";
import { renderToString } from "react-dom/server";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import ForgotForm from "../../islands/ForgotForm.tsx";
import LoginForm from "../../islands/LoginForm.tsx";
import RegisterForm from "../../islands/RegisterForm.tsx";
import SecondFactorForm from "../../islands/SecondFactorForm.tsx";
import SetupForm from "../../islands/SetupForm.tsx";
import TotpSettings, { groupsOf4 } from "../../islands/TotpSettings.tsx";
import VerifyForm from "../../islands/VerifyForm.tsx";
import { IDEMPOTENCY_HEADER } from "../../lib/api-types.ts";
import { notifications } from "../../islands/lib/notification-store.ts";
import { userStore } from "../../islands/lib/user-store.ts";
import { alice, failure, fakeApi, resetIslands, stubNavigation } from "../helpers/fake-api.ts";

let assign: ReturnType<typeof stubNavigation>;
beforeEach(() => {
  assign = stubNavigation();
  userStore.clear();
  notifications.clear();
});
afterEach(() => {
  cleanup();
  resetIslands();
  history.replaceState(null, "", "/");
});

const type = (label: string | RegExp, value: string) =>
  fireEvent.change(screen.getByLabelText(label), { target: { value } });

describe("SetupForm", () => {
  test("once done, only says so and links home", () => {
    render(<SetupForm done />);
    expect(screen.getByText(/Setup is done: an administrator exists/)).toBeTruthy();
    expect(screen.getByRole("link", { name: "home page" }).getAttribute("href")).toBe("/");
    expect(screen.queryByRole("button")).toBeNull();
  });

  test("posts the administrator's email and password, then goes where the server says", async () => {
    const calls = fakeApi({ "POST setup": [200, { body: { ok: true }, redirect: "/" }] });
    render(<SetupForm done={false} />);
    type("Administrator's email", "admin@example.com");
    type("Password", "admin password");
    type("Password again", "admin password");
    fireEvent.click(screen.getByRole("button", { name: "Create the administrator" }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith("/"));
    expect(calls[0].body).toEqual({ email: "admin@example.com", password: "admin password" });
  });

  test("a 403 shows the server's text", async () => {
    fakeApi({ "POST setup": failure(403, "Setup is already done.") });
    render(<SetupForm done={false} />);
    type("Administrator's email", "admin@example.com");
    type("Password", "admin password");
    type("Password again", "admin password");
    fireEvent.click(screen.getByRole("button", { name: "Create the administrator" }));
    expect(await screen.findByText("Setup is already done.")).toBeTruthy();
  });
});

describe("TotpSettings", () => {
  const SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
  const URI = `otpauth://totp/Portal:alice%40example.com?secret=${SECRET}&issuer=Portal`;

  test("groups the key in fours", () => {
    expect(groupsOf4(SECRET)).toBe("JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP");
    expect(groupsOf4("ABCDE")).toBe("ABCD E");
  });

  test("set up: shows the key and the otpauth link, copies the key, then a code turns it on", async () => {
    const writeText = vi.fn(() => Promise.resolve());
    vi.stubGlobal("navigator", { ...navigator, clipboard: { writeText } });
    const calls = fakeApi({
      "POST account/totp/setup": [200, { body: { secret: SECRET, uri: URI } }],
      "POST account/totp/enable": [200, { body: alice }],
    });
    render(<TotpSettings enabled={false} email="alice@example.com" />);
    fireEvent.click(screen.getByRole("button", { name: "Set up an authenticator app" }));
    // Who is there is asked first (decision 023).
    type("Your password", "correct horse battery");
    fireEvent.click(screen.getByRole("button", { name: "Continue" }));
    expect(await screen.findByText(groupsOf4(SECRET))).toBeTruthy();
    expect(calls.find((c) => c.url === "/api/account/totp/setup")!.body).toEqual({ password: "correct horse battery" });
    expect(screen.getByRole("link", { name: "open in your authenticator app" }).getAttribute("href")).toBe(URI);
    expect(screen.getByText(URI)).toBeTruthy();

    fireEvent.click(screen.getByRole("button", { name: "Copy key" }));
    expect(await screen.findByRole("button", { name: "Copied" })).toBeTruthy();
    expect(writeText).toHaveBeenCalledWith(SECRET);

    type("Code from the app", "654321");
    fireEvent.click(screen.getByRole("button", { name: "Turn on" }));
    expect(await screen.findByText("Authenticator app is on.", { selector: "[role=status]" })).toBeTruthy();
    const enable = calls.find((c) => c.url === "/api/account/totp/enable")!;
    // Only the code: the server remembers the key it gave (decision 072).
    expect(enable.body).toEqual({ code: "654321" });
    expect(enable.headers.get(IDEMPOTENCY_HEADER)).toMatch(/^[0-9a-f-]{36}$/);
    expect(screen.getByRole("button", { name: "Turn off" })).toBeTruthy();
    expect(userStore.get()).toEqual(alice);
  });

  test("a retry of the same code carries the same Idempotency-Key; another code a new one", async () => {
    let n = 0;
    const calls = fakeApi({
      "POST account/totp/setup": [200, { body: { secret: SECRET, uri: URI } }],
      "POST account/totp/enable": () => (++n < 3 ? failure(503, "Try again later.") : [200, { body: alice }]),
    });
    render(<TotpSettings enabled={false} email="alice@example.com" />);
    fireEvent.click(screen.getByRole("button", { name: "Set up an authenticator app" }));
    type("Your password", "correct horse battery");
    fireEvent.click(screen.getByRole("button", { name: "Continue" }));
    await screen.findByText(groupsOf4(SECRET));
    type("Code from the app", "111111");
    fireEvent.click(screen.getByRole("button", { name: "Turn on" }));
    await screen.findByText("Try again later.");
    fireEvent.click(screen.getByRole("button", { name: "Turn on" }));
    await waitFor(() => expect(calls.filter((c) => c.url.endsWith("enable"))).toHaveLength(2));
    await screen.findByRole("button", { name: "Turn on" });
    type("Code from the app", "222222");
    fireEvent.click(screen.getByRole("button", { name: "Turn on" }));
    await screen.findByRole("button", { name: "Turn off" });
    const keys = calls.filter((c) => c.url.endsWith("enable")).map((c) => c.headers.get(IDEMPOTENCY_HEADER));
    expect(keys[0]).toBe(keys[1]);
    expect(keys[2]).not.toBe(keys[1]);
  });

  test("when on, Turn off asks for the password or a code, then sends DELETE account/totp with it", async () => {
    const calls = fakeApi({ "DELETE account/totp": [200, { body: alice }] });
    render(<TotpSettings enabled email="alice@example.com" />);
    expect(screen.getByText("Authenticator app is on.")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Turn off" }));
    expect(calls).toHaveLength(0);
    type(/^Or a code from the app/, "123456");
    fireEvent.click(screen.getByRole("button", { name: "Turn off the app" }));
    expect(await screen.findByRole("button", { name: "Set up an authenticator app" })).toBeTruthy();
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(["DELETE /api/account/totp"]);
    expect(calls[0].body).toEqual({ code: "123456" });
    expect(screen.getByRole("status").textContent).toBe("Authenticator app is off.");
  });

  test("Turn off with both fields empty says that one is needed, at the password, and sends nothing", async () => {
    const calls = fakeApi({ "DELETE account/totp": [200, { body: alice }] });
    render(<TotpSettings enabled email="alice@example.com" />);
    fireEvent.click(screen.getByRole("button", { name: "Turn off" }));
    fireEvent.click(screen.getByRole("button", { name: "Turn off the app" }));
    const said = await screen.findAllByText("Enter your password or a code from your authenticator app.");
    expect(said.length).toBeGreaterThan(0);
    expect(screen.getByLabelText(/^Your password/).getAttribute("aria-invalid")).toBe("true");
    expect(calls).toHaveLength(0);
  });

  test("a wrong password is shown under the field, and nothing changes", async () => {
    fakeApi({
      "DELETE account/totp": failure(422, "That password is not right.", {
        fields: { password: "That password is not right." },
      }),
    });
    render(<TotpSettings enabled email="alice@example.com" />);
    fireEvent.click(screen.getByRole("button", { name: "Turn off" }));
    type(/^Your password/, "not it at all");
    fireEvent.click(screen.getByRole("button", { name: "Turn off the app" }));
    expect((await screen.findAllByText("That password is not right.")).length).toBeGreaterThan(0);
    expect(screen.getByRole("button", { name: "Turn off the app" })).toBeTruthy();
  });
});

describe("hydration", () => {
  // Rendered on the server deep in a page, hydrated as a root of its own: the ids, texts and
  // attributes must come out the same, or React reports a mismatch.
  // deno-lint-ignore no-explicit-any
  const islands: [string, FunctionComponent<any>, Record<string, unknown>][] = [
    ["LoginForm", LoginForm, {}],
    ["SecondFactorForm", SecondFactorForm, { method: "totp", email: "alice@example.com" }],
    ["RegisterForm", RegisterForm, { referralCode: "FRIEND42", attribution: { utm_source: "x" } }],
    ["VerifyForm", VerifyForm, { token: null, email: "alice@example.com", signedIn: true }],
    ["ForgotForm (request)", ForgotForm, {}],
    ["ForgotForm (reset)", ForgotForm, { token: "t", username: "alice@example.com" }],
    ["SetupForm", SetupForm, { done: false }],
    ["TotpSettings", TotpSettings, { enabled: false, email: "alice@example.com" }],
  ];

  test.each(islands)("%s hydrates without a mismatch, its buttons enabled only then", async (_name, Island, props) => {
    const page = renderToString(
      <main>
        <section>
          <div data-island="i3">{createElement(Island, props)}</div>
        </section>
      </main>,
    );
    const host = document.createElement("div");
    host.innerHTML = page;
    document.body.append(host);
    const element = host.querySelector<HTMLElement>("[data-island]")!;
    const buttons = () =>
      [...element.querySelectorAll("button")].filter((b) => b.type === "submit" || !b.textContent?.includes("Cancel"));
    expect(buttons().length).toBeGreaterThan(0);
    expect(buttons().every((b) => b.disabled)).toBe(true);

    const problems: unknown[] = [];
    // deno-lint-ignore require-await -- act() wants an async callback to flush the hydration
    const root = await act(async () =>
      hydrateRoot(element, createElement(Island, props), { onRecoverableError: (e) => problems.push(e) })
    );
    expect(problems).toEqual([]);
    expect(buttons().every((b) => !b.disabled)).toBe(true);
    act(() => root.unmount());
    host.remove();
  });
});
