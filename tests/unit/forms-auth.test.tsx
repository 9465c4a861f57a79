// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import ForgotForm from "../../islands/ForgotForm.tsx";
import LoginForm from "../../islands/LoginForm.tsx";
import RegisterForm from "../../islands/RegisterForm.tsx";
import SecondFactorForm from "../../islands/SecondFactorForm.tsx";
import VerifyForm from "../../islands/VerifyForm.tsx";
import { notifications } from "../../islands/lib/notification-store.ts";
import { userStore } from "../../islands/lib/user-store.ts";
import { alice, failure, fakeApi, resetIslands, stubNavigation, unreachableServer } from "../helpers/fake-api.ts";

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
  delete document.documentElement.dataset.hydrated;
});

const type = (label: string | RegExp, value: string) =>
  fireEvent.change(screen.getByLabelText(label), { target: { value } });
const titles = () => notifications.snapshot().visible.map((n) => `${n.color}: ${n.title}`);

describe("LoginForm", () => {
  test("posts the email and password to /api/auth/login and follows the redirect to /auth", async () => {
    const calls = fakeApi({ "POST auth/login": [200, { body: alice, redirect: "/auth" }] });
    render(<LoginForm />);
    type("Email", "alice@example.com");
    type("Password", "correct horse");
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith("/auth"));
    expect(calls).toHaveLength(1);
    expect(calls[0].body).toEqual({ email: "alice@example.com", password: "correct horse" });
    expect(userStore.get()).toEqual(alice);
    // Still pending while the page is replaced, so it cannot be sent twice; it keeps the keyboard's
    // focus (aria-disabled, not disabled).
    const pending = screen.getByRole("button", { name: "Signing in…" });
    expect(pending.getAttribute("aria-disabled")).toBe("true");
    fireEvent.click(pending);
    await waitFor(() => expect(calls).toHaveLength(1));
  });

  test("a 401 shows and toasts 'Invalid credentials', and on '/' does not reload", async () => {
    fakeApi({ "POST auth/login": failure(401, "Bad credentials") });
    render(<LoginForm />);
    type("Email", "alice@example.com");
    type("Password", "wrong password");
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByText("Invalid credentials")).toBeTruthy();
    expect(screen.getAllByRole("alert").some((a) => a.textContent === "Invalid credentials")).toBe(true);
    expect(titles()).toEqual(["error: Invalid credentials"]);
    expect(assign).not.toHaveBeenCalled();
    expect(screen.getByRole("button", { name: "Sign in" })).toHaveProperty("disabled", false);
    // Tried again, and refused again: still one toast, not a stack of them over the form.
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    await waitFor(() => expect(screen.getByRole("button", { name: "Sign in" })).toHaveProperty("disabled", false));
    expect(titles()).toEqual(["error: Invalid credentials"]);
  });

  test("a 429 shows the server's text", async () => {
    fakeApi({ "POST auth/login": failure(429, "Too many attempts. Try again in 15 minutes.") });
    render(<LoginForm />);
    type("Email", "alice@example.com");
    type("Password", "whatever1");
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByText("Too many attempts. Try again in 15 minutes.")).toBeTruthy();
    expect(titles()).toEqual([]);
  });

  test("a server that cannot be reached shows the fallback text", async () => {
    unreachableServer();
    render(<LoginForm />);
    type("Email", "alice@example.com");
    type("Password", "whatever1");
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByText("An error occurred. Please try again later")).toBeTruthy();
  });

  test("links to the forgotten-password and register pages", () => {
    render(<LoginForm />);
    expect(screen.getByRole("link", { name: "Forgotten password?" }).getAttribute("href")).toBe("/forgot");
    expect(screen.getByRole("link", { name: "Open an account" }).getAttribute("href")).toBe("/register");
    expect(screen.getByLabelText("Email").getAttribute("autocomplete")).toBe("username");
    expect(screen.getByLabelText("Password").getAttribute("autocomplete")).toBe("current-password");
  });
});

describe("SecondFactorForm", () => {
  test("posts the code to /api/challenge and follows the redirect", async () => {
    const calls = fakeApi({
      "POST challenge": [200, { body: { ...alice, secondFactor: true }, redirect: "/auth" }],
    });
    render(<SecondFactorForm method="email" email="alice@example.com" />);
    expect(screen.getByText(/valid for 10 minutes/)).toBeTruthy();
    const code = screen.getByLabelText("Code");
    expect(code.getAttribute("inputmode")).toBe("numeric");
    expect(code.getAttribute("autocomplete")).toBe("one-time-code");
    expect(code.getAttribute("pattern")).toBe("[0-9]{6}");
    type("Code", "123456");
    fireEvent.click(screen.getByRole("button", { name: "Continue" }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith("/auth"));
    expect(calls[0].body).toEqual({ token: "123456" });
  });

  test("a wrong code is refused under the field with the tries left: no trip home, the user is kept", async () => {
    history.replaceState(null, "", "/second-factor");
    userStore.set(alice as never);
    const refusal = "That code is not right. 4 tries left.";
    fakeApi({ "POST challenge": failure(422, refusal, { fields: { token: refusal } }) });
    render(<SecondFactorForm method="email" email="alice@example.com" />);
    type("Code", "000000");
    fireEvent.click(screen.getByRole("button", { name: "Continue" }));
    // Said once, under the field, which is marked invalid (not also in the form's alert).
    expect(await screen.findAllByText(refusal)).toHaveLength(1);
    expect(screen.getByLabelText("Code").getAttribute("aria-invalid")).toBe("true");
    expect(assign).not.toHaveBeenCalled();
    expect(userStore.get()).not.toBeNull();
    expect(titles()).toEqual([]);
  });

  test("a 401 (the session is gone) shows 'Bad credentials'", async () => {
    fakeApi({ "POST challenge": failure(401, "Bad credentials") });
    render(<SecondFactorForm method="email" email="alice@example.com" />);
    type("Code", "000000");
    fireEvent.click(screen.getByRole("button", { name: "Continue" }));
    expect(await screen.findByText("Bad credentials")).toBeTruthy();
    expect(titles()).toEqual(["error: Bad credentials"]);
  });

  test("a 401 away from '/' also clears the user and goes home (SPEC.md section 4)", async () => {
    history.replaceState(null, "", "/second-factor");
    userStore.set(alice as never);
    fakeApi({ "POST challenge": failure(401, "Bad credentials") });
    render(<SecondFactorForm method="email" email="alice@example.com" />);
    type("Code", "000000");
    fireEvent.click(screen.getByRole("button", { name: "Continue" }));
    expect(await screen.findByText("Bad credentials")).toBeTruthy();
    expect(assign).toHaveBeenCalledWith("/");
    expect(userStore.get()).toBeNull();
  });

  test("an authenticator user can have a code emailed instead", async () => {
    const calls = fakeApi({ "POST challenge/resend": [200, { body: { sent: true } }] });
    render(<SecondFactorForm method="totp" email="alice@example.com" />);
    expect(screen.getByText("Enter the 6-digit code from your authenticator app.")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Email me a code instead" }));
    expect(await screen.findByText("A new code is on its way to alice@example.com.")).toBeTruthy();
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(["POST /api/challenge/resend"]);
    expect(screen.getByText(/valid for 10 minutes/)).toBeTruthy();
    expect(screen.getByRole("button", { name: "Send me a new code by email" })).toBeTruthy();
  });

  test("a pasted code keeps its digits only", () => {
    render(<SecondFactorForm method="email" email="alice@example.com" />);
    const code = screen.getByLabelText("Code") as HTMLInputElement;
    fireEvent.input(code, { target: { value: "123 456" } });
    expect(code.value).toBe("123456");
  });
});

describe("RegisterForm", () => {
  test("sends the type, the referral code from its props and the attribution", async () => {
    const calls = fakeApi({
      "POST auth/register": [200, { body: { email: "boss@example.com" }, redirect: "/verify" }],
    });
    const attribution = { utm_source: "newsletter", landing_path: "/register" };
    render(<RegisterForm referralCode="FRIEND42" attribution={attribution} />);
    expect((screen.getByLabelText(/Referral code/) as HTMLInputElement).value).toBe("FRIEND42");
    fireEvent.click(screen.getByLabelText(/Business/));
    type("Email", "boss@example.com");
    type("Password", "a long password");
    fireEvent.click(screen.getByRole("button", { name: "Open an account" }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith("/verify"));
    expect(calls[0].body).toEqual({
      email: "boss@example.com",
      password: "a long password",
      type: "Business",
      referral_code: "FRIEND42",
      attribution,
    });
    // Registering signs nobody in: the emailed link does (decision 023).
    expect(userStore.get()).toBeNull();
  });

  test.for([
    ["another site's page", "https://partner.example/blog?id=1", "https://partner.example/blog?id=1"],
    ["a page of our own site", `${location.origin}/calculator`, undefined],
    ["nowhere (typed or bookmarked)", "", undefined],
  ])(
    "a visitor who came from %s: the referrer sent is the browser's, another site's only",
    async ([_from, referrer, sent]) => {
      // The page is the same for every visitor (decision 069): where they came from is the browser's to say.
      Object.defineProperty(document, "referrer", { value: referrer, configurable: true });
      try {
        const calls = fakeApi({
          "POST auth/register": [200, { body: { email: "ann@example.com" }, redirect: "/verify" }],
        });
        render(<RegisterForm attribution={{ landing_path: "/register?utm_source=x", utm_source: "x" }} />);
        type("Email", "ann@example.com");
        type("Password", "a long password");
        fireEvent.click(screen.getByRole("button", { name: "Open an account" }));
        await waitFor(() => expect(calls).toHaveLength(1));
        expect((calls[0].body as { attribution: unknown }).attribution).toEqual({
          landing_path: "/register?utm_source=x",
          utm_source: "x",
          ...(sent ? { referrer: sent } : {}),
        });
      } finally {
        delete (document as { referrer?: string }).referrer;
      }
    },
  );

  test("a referrer longer than 500 characters is cut to 500, as the attribution keeps it", async () => {
    const long = `https://partner.example/${"a".repeat(600)}`;
    Object.defineProperty(document, "referrer", { value: long, configurable: true });
    try {
      const calls = fakeApi({
        "POST auth/register": [200, { body: { email: "ann@example.com" }, redirect: "/verify" }],
      });
      render(<RegisterForm attribution={{}} />);
      type("Email", "ann@example.com");
      type("Password", "a long password");
      fireEvent.click(screen.getByRole("button", { name: "Open an account" }));
      await waitFor(() => expect(calls).toHaveLength(1));
      expect((calls[0].body as { attribution: unknown }).attribution).toEqual({ referrer: long.slice(0, 500) });
    } finally {
      delete (document as { referrer?: string }).referrer;
    }
  });

  test("Personal is the default, and an empty referral code is not sent", async () => {
    const calls = fakeApi({ "POST auth/register": [200, { body: { email: "ann@example.com" }, redirect: "/verify" }] });
    render(<RegisterForm attribution={{}} />);
    type("Email", "ann@example.com");
    type("Password", "a long password");
    fireEvent.click(screen.getByRole("button", { name: "Open an account" }));
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0].body).toEqual({ email: "ann@example.com", password: "a long password", type: "Personal" });
  });

  test("a 422 shows each problem under its field, and focuses the first", async () => {
    fakeApi({
      "POST auth/register": failure(422, "Please correct the form.", {
        fields: { email: "This email address is already registered.", referral_code: "Unknown referral code." },
      }),
    });
    render(<RegisterForm referralCode="NOPE" attribution={{}} />);
    type("Email", "taken@example.com");
    type("Password", "a long password");
    fireEvent.click(screen.getByRole("button", { name: "Open an account" }));
    expect(await screen.findByText("Please correct the form.")).toBeTruthy();
    const email = screen.getByLabelText("Email");
    const referral = screen.getByLabelText(/Referral code/);
    const password = screen.getByLabelText("Password");
    expect(email.getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById(email.getAttribute("aria-describedby")!)?.textContent).toBe(
      "This email address is already registered.",
    );
    expect(referral.getAttribute("aria-describedby")).toContain("register-referral-error");
    expect(document.getElementById("register-referral-error")?.textContent).toBe("Unknown referral code.");
    expect(password.getAttribute("aria-invalid")).toBeNull();
    expect(document.activeElement).toBe(email);
  });

  test("a problem about a field the form does not show still appears in the alert", async () => {
    fakeApi({
      "POST auth/register": failure(422, "Please correct the form.", {
        fields: { "attribution.utm_source": "Too long." },
      }),
    });
    render(<RegisterForm attribution={{ utm_source: "x".repeat(300) }} />);
    type("Email", "ann@example.com");
    type("Password", "a long password");
    fireEvent.click(screen.getByRole("button", { name: "Open an account" }));
    expect(await screen.findByText("Too long.")).toBeTruthy();
  });

  test("the browser holds the password to 8 to 128 characters; the server's word shows under it", async () => {
    const calls = fakeApi({
      "POST auth/register": failure(422, "Password must be at least 8 characters.", {
        fields: { password: "Password must be at least 8 characters." },
      }),
    });
    render(<RegisterForm attribution={{}} />);
    const password = screen.getByLabelText("Password");
    expect(password.getAttribute("minlength")).toBe("8");
    expect(password.getAttribute("maxlength")).toBe("128");
    expect(document.getElementById(password.getAttribute("aria-describedby")!)?.textContent).toBe(
      "8 to 128 characters.",
    );
    type("Email", "ann@example.com");
    type("Password", "short");
    fireEvent.click(screen.getByRole("button", { name: "Open an account" }));
    expect(calls).toHaveLength(0);
    // One the browser lets through (the server counts characters, the browser UTF-16 units).
    type("Password", "long enough");
    fireEvent.click(screen.getByRole("button", { name: "Open an account" }));
    await waitFor(() => expect(password.getAttribute("aria-invalid")).toBe("true"));
    expect(password.getAttribute("aria-describedby")).toBe("register-password-hint register-password-error");
    expect(screen.getAllByText("Password must be at least 8 characters.")).toHaveLength(1);
  });
});

describe("VerifyForm", () => {
  test("submits the link's token at once, showing progress, and follows the redirect", async () => {
    const calls = fakeApi(); // every call stays open until the test answers it
    render(<VerifyForm token="tok-123" signedIn={false} />);
    expect(screen.getByRole("status").textContent).toContain("Checking your link");
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0].url).toBe("/api/validation/validate");
    expect(calls[0].body).toEqual({ token: "tok-123" });
    // deno-lint-ignore require-await -- act() wants an async callback to flush the answer
    await act(async () => {
      calls[0].respond(200, { body: { ...alice, validated: true }, redirect: "/register-personal" });
    });
    await waitFor(() => expect(assign).toHaveBeenCalledWith("/register-personal"));
    expect(screen.getByRole("status").textContent).toContain("Email address confirmed");
  });

  test("opened where nobody is signed in (a phone): the answer is null, nobody is remembered, and it goes to sign in", async () => {
    fakeApi({ "POST validation/validate": [200, { body: null, redirect: "/" }] });
    render(<VerifyForm token="tok-123" signedIn={false} />);
    await waitFor(() => expect(assign).toHaveBeenCalledWith("/"));
    expect(screen.getByRole("status").textContent).toContain("Email address confirmed");
    expect(userStore.get()).toBeNull();
  });

  test("an expired link is refused on the page with the tries left, and a new link can be asked for", async () => {
    const refusal = "This link has expired or was already used: ask for a new one. 4 tries left.";
    const calls = fakeApi({
      "POST validation/validate": failure(422, refusal, { fields: { token: refusal } }),
      "POST validation/resend": [200, { body: { sent: true } }],
    });
    render(<VerifyForm token="old" email="alice@example.com" signedIn />);
    expect(await screen.findAllByText(refusal)).toHaveLength(1);
    expect(assign).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole("button", { name: "Send a new link" }));
    expect(await screen.findByText("A new link is on its way to alice@example.com.")).toBeTruthy();
    expect(calls.map((c) => c.url)).toEqual(["/api/validation/validate", "/api/validation/resend"]);
  });

  test("without a token: a pasted link gives its token; signed out, it says to sign in first", async () => {
    const calls = fakeApi({
      "POST validation/validate": [200, { body: alice, redirect: "/register-business" }],
    });
    render(<VerifyForm signedIn={false} />);
    expect(calls).toHaveLength(0);
    expect(screen.getByRole("link", { name: "Sign in" }).getAttribute("href")).toBe("/");
    expect(screen.queryByRole("button", { name: "Send a new link" })).toBeNull();
    type(/Code from the email/, "https://portal.example/verify?token=abc-DEF_123");
    fireEvent.click(screen.getByRole("button", { name: "Confirm my email address" }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith("/register-business"));
    expect(calls[0].body).toEqual({ token: "abc-DEF_123" });
  });
});

describe("ForgotForm", () => {
  const MESSAGE =
    "If an account exists for alice@example.com, we have sent a link to reset the password. It is valid for one hour.";

  test.each(
    [
      ["sent", [200, { body: { sent: true } }]],
      ["a 404", failure(404, "No such account")],
      ["a 422", failure(422, "Invalid email", { fields: { username: "Invalid email" } })],
    ] as const,
  )("shows the same message after %s", async (_name, answer) => {
    const calls = fakeApi({ "POST auth/forgot": answer as never });
    render(<ForgotForm />);
    type("Email", "alice@example.com");
    fireEvent.click(screen.getByRole("button", { name: "Send me a link" }));
    expect(await screen.findByText(MESSAGE)).toBeTruthy();
    expect(calls[0].body).toEqual({ username: "alice@example.com" });
    expect(screen.queryByText("No such account")).toBeNull();
    expect(screen.queryByText("Invalid email")).toBeNull();
  });

  test("from the link: the new password twice goes to auth/forgot/reset, then a success toast", async () => {
    const calls = fakeApi({ "POST auth/forgot/reset": [200, { body: { ok: true }, redirect: "/" }] });
    render(<ForgotForm token="reset-tok" username="alice@example.com" />);
    type("New password", "brand new pass");
    type("New password again", "brand new pass");
    fireEvent.click(screen.getByRole("button", { name: "Change my password" }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith("/"));
    expect(calls[0].body).toEqual({ username: "alice@example.com", token: "reset-tok", password: "brand new pass" });
    expect(titles()).toEqual(["success: Password changed. Sign in with your new password."]);
  });

  test("passwords that differ are not sent", () => {
    const calls = fakeApi({});
    render(<ForgotForm token="reset-tok" username="alice@example.com" />);
    type("New password", "brand new pass");
    type("New password again", "brand new pasS");
    fireEvent.click(screen.getByRole("button", { name: "Change my password" }));
    expect(screen.getByText("The two passwords are not the same.")).toBeTruthy();
    expect(screen.getByLabelText("New password again").getAttribute("aria-invalid")).toBe("true");
    expect(calls).toHaveLength(0);
  });

  test("a link refused on submit says it is used or expired and offers a new one for the same address", async () => {
    // The page's islands are hydrated (client.ts marks <html>) long before the answer comes: the
    // offer's button is usable as it appears. Unmarked, it would be disabled for its first commit,
    // which shows the text already: a click sent then, as a loaded machine may order it, was lost.
    document.documentElement.dataset.hydrated = "";
    const calls = fakeApi({
      "POST auth/forgot/reset": failure(422, "This link has expired or was already used.", {
        fields: { token: "This link has expired or was already used." },
      }),
      "POST auth/forgot": [200, { body: { sent: true } }],
    });
    render(<ForgotForm token="used" username="alice@example.com" />);
    type("New password", "brand new pass");
    type("New password again", "brand new pass");
    fireEvent.click(screen.getByRole("button", { name: "Change my password" }));
    expect(await screen.findByText("This link has expired or was already used.")).toBeTruthy();
    expect(screen.queryByText("Bad credentials")).toBeNull();
    expect(screen.getByLabelText("Email")).toHaveProperty("value", "alice@example.com");
    // Typed again, as the other tests of this form do; tests/e2e/first-hour.test.ts sends the prefilled one.
    type("Email", "alice@example.com");
    fireEvent.click(screen.getByRole("button", { name: "Send me a new link" }));
    expect(await screen.findByText(MESSAGE)).toBeTruthy();
    expect(calls.map((c) => c.url)).toEqual(["/api/auth/forgot/reset", "/api/auth/forgot"]);
  });

  test("opened from a link the page found used or expired: the offer of a new one at once", () => {
    render(<ForgotForm username="alice@example.com" expired />);
    expect(screen.getByText("This link has expired or was already used.")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Send me a new link" })).toBeTruthy();
    expect(screen.queryByLabelText("New password")).toBeNull();
  });

  test("a 422 on the password shows under the new password", async () => {
    fakeApi({
      "POST auth/forgot/reset": failure(422, "Please correct the form.", {
        fields: { password: "Password is too common." },
      }),
    });
    render(<ForgotForm token="t" username="alice@example.com" />);
    type("New password", "password123");
    type("New password again", "password123");
    fireEvent.click(screen.getByRole("button", { name: "Change my password" }));
    expect(await screen.findByText("Password is too common.")).toBeTruthy();
    const input = screen.getByLabelText("New password");
    expect(input.getAttribute("aria-describedby")).toContain("reset-password-error");
    expect(document.activeElement).toBe(input);
  });
});
