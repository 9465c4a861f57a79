// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { renderToString } from "react-dom/server";
import { afterEach, beforeEach, describe, expect, type Mock, test, vi } from "vitest";
import ConsoleUsers from "../../islands/ConsoleUsers.tsx";
import OnBehalfBanner from "../../islands/OnBehalfBanner.tsx";
import { QueryObserver } from "@tanstack/react-query";
import type { ConsoleUser } from "../../islands/console/calls.ts";
import { call } from "../../islands/lib/api.ts";
import { notifications } from "../../islands/lib/notification-store.ts";
import { onBehalfStore } from "../../islands/lib/on-behalf.ts";
import { pageQueryClient, read } from "../../islands/lib/query-client.tsx";
import { pendingPaymentKeys } from "../../islands/lib/query-keys.ts";
import { type Answer, fakeApi, type FakeCall, resetIslands } from "../helpers/fake-api.ts";
import { ON_BEHALF_CLEAR_DELAY_MS } from "../../lib/constants.ts";

/** The fake server, answering by method, path and body; calls are seen as method, path with query, body. */
function server(route: (method: string, path: string, body: unknown) => [number, unknown?]) {
  return fakeApi((call) => route(call.method, call.path, call.body) as Answer);
}
const seen = (calls: FakeCall[]) =>
  calls.map((c) => ({ method: c.method, path: c.url.replace(/^\/api\//, ""), body: c.body }));

/** A pending-payments list on the page (the island is not built yet): its query, observed. */
function pendingPaymentsShown() {
  const list = call<{ method: "GET"; path: "/account/pendingpayments/all"; answer: unknown[] }>(
    "GET",
    "/account/pendingpayments/all",
  );
  const observer = new QueryObserver(pageQueryClient(), {
    ...read(pendingPaymentKeys.all, list),
    initialData: [] as unknown[],
  });
  return observer.subscribe(() => {});
}

const settle = (ms = 0) => act(() => vi.advanceTimersByTimeAsync(ms));

const ADA = { id: 7, name: "Ada Lovelace", username: "ada@example.com", cc_contact: "ada@example.com" };
/** What account/onbehalf answers: the customer's SessionUser plus cc_contact. */
const ADA_SESSION = {
  ...ADA,
  level: "User",
  type: "Personal",
  profile: true,
  validated: true,
  secondFactor: false,
  identity: true,
  account: true,
  restricted: false,
  account_ref: "ACC-0007",
};

let assign: Mock<(url: string | URL) => void>;
beforeEach(() => {
  vi.useFakeTimers();
  onBehalfStore.clear();
  assign = vi.fn<(url: string | URL) => void>();
  vi.spyOn(location, "assign").mockImplementation(assign);
});
afterEach(() => {
  cleanup();
  resetIslands();
  onBehalfStore.clear();
  notifications.clear();
  vi.useRealTimers();
});

describe("OnBehalfBanner", () => {
  test("says whom the administrator acts for, checks the mode on mount and keeps it in the onbehalf cookie", async () => {
    const calls = server(() => [200, { body: ADA_SESSION }]);
    render(<OnBehalfBanner customer={ADA} />);
    expect(screen.getByText("You are acting on behalf of Ada Lovelace (ada@example.com)")).toBeTruthy();
    await settle();
    expect(seen(calls)).toEqual([{ method: "GET", path: "account/onbehalf", body: undefined }]);
    expect(onBehalfStore.get()).toEqual(ADA);
    expect(document.cookie).toContain("onbehalf=");
  });

  test("'Stop acting on behalf' shows 'Leaving…' for 1.5 s, then DELETEs, reloads pending payments and goes to /console/users", async () => {
    const calls = server((method, path) =>
      method === "DELETE"
        ? [200, { body: { ok: true } }]
        : [200, { body: path === "account/onbehalf" ? ADA_SESSION : ["payment 3"] }]
    );
    const stopWatching = pendingPaymentsShown();
    render(<OnBehalfBanner customer={ADA} />);
    await settle();

    fireEvent.click(screen.getByRole("button", { name: "Stop acting on behalf" }));
    expect(screen.getByRole("button", { name: "Leaving…" })).toHaveProperty("disabled", true);
    await settle(ON_BEHALF_CLEAR_DELAY_MS - 1);
    expect(seen(calls).filter((c) => c.method === "DELETE")).toEqual([]);
    expect(ON_BEHALF_CLEAR_DELAY_MS).toBe(1500);

    await settle(1);
    expect(seen(calls).filter((c) => c.method === "DELETE")).toEqual([{
      method: "DELETE",
      path: "account/onbehalf",
      body: undefined,
    }]);
    expect(onBehalfStore.get()).toBeNull();
    expect(document.cookie).not.toContain("onbehalf=");
    expect(assign).toHaveBeenCalledWith("/console/users");
    // SPEC.md section 4: the pending payments are reloaded.
    await settle();
    expect(seen(calls).filter((c) => c.path === "account/pendingpayments/all")).toHaveLength(1);
    stopWatching();
  });

  test("navigateTo null stays on the page and hides the banner", async () => {
    server((method) => (method === "DELETE" ? [200, { body: { ok: true } }] : [200, { body: ADA_SESSION }]));
    render(<OnBehalfBanner customer={ADA} navigateTo={null} />);
    await settle();
    fireEvent.click(screen.getByRole("button", { name: "Stop acting on behalf" }));
    await settle(ON_BEHALF_CLEAR_DELAY_MS);
    expect(onBehalfStore.get()).toBeNull(); // the DELETE went through
    await settle(1); // TanStack Query tells React on a zero-delay timer of its own, 1 ms on this clock
    expect(assign).not.toHaveBeenCalled();
    expect(screen.queryByText(/You are acting on behalf/)).toBeNull();
  });

  test("a 404 from account/onbehalf clears the mode on the client and hides the banner", async () => {
    onBehalfStore.set(ADA);
    server(() => [404, { error: "Not acting on behalf of anyone.", message: "Not Found" }]);
    render(<OnBehalfBanner customer={ADA} />);
    expect(screen.getByText(/You are acting on behalf of Ada Lovelace/)).toBeTruthy();
    await settle();
    expect(screen.queryByText(/You are acting on behalf/)).toBeNull();
    expect(onBehalfStore.get()).toBeNull();
  });

  test("a 401 on clear shows 'Bad credentials'; the mode stays", async () => {
    server((method) =>
      method === "DELETE" ? [401, { error: "Please sign in.", message: "Unauthorized" }] : [200, { body: ADA_SESSION }]
    );
    render(<OnBehalfBanner customer={ADA} />);
    await settle();
    fireEvent.click(screen.getByRole("button", { name: "Stop acting on behalf" }));
    await settle(ON_BEHALF_CLEAR_DELAY_MS);
    expect(screen.getByRole("alert").textContent).toBe("Bad credentials");
    expect(screen.getByRole("button", { name: "Stop acting on behalf" })).toHaveProperty("disabled", false);
    expect(onBehalfStore.get()).toEqual(ADA);
  });

  test("without a customer it renders nothing and asks nothing", async () => {
    const calls = server(() => [200, { body: ADA_SESSION }]);
    const { container } = render(<OnBehalfBanner customer={null} />);
    await settle();
    expect(container.innerHTML).toBe("");
    expect(seen(calls)).toEqual([]);
  });

  test("renders on the server and hydrates without a warning", async () => {
    server(() => [200, { body: ADA_SESSION }]);
    const element = <OnBehalfBanner customer={ADA} />;
    const container = document.createElement("div");
    container.innerHTML = renderToString(element);
    document.body.append(container);
    render(element, { container, hydrate: true });
    await settle();
    expect(screen.getByText(/You are acting on behalf of Ada Lovelace/)).toBeTruthy();
    container.remove();
  });
});

const USERS: ConsoleUser[] = [
  {
    id: 7,
    username: "ada@example.com",
    name: "Ada Lovelace",
    type: "Personal",
    validated: true,
    profile: true,
    identity: true,
    account: true,
    account_ref: "ACC-0007",
    restricted: false,
    step: "review",
    rejection: null,
    created_at: "2026-01-02T10:00:00.000Z",
  },
  {
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
  },
  {
    id: 9,
    username: "new@example.com",
    name: "",
    type: "Personal",
    validated: false,
    profile: false,
    identity: false,
    account: false,
    account_ref: null,
    restricted: false,
    step: "review",
    rejection: null,
    created_at: "2026-03-04T10:00:00.000Z",
  },
];

const FIRST = { items: USERS, page: 1, per_page: 20, total: USERS.length };

const rowOf = (name: string | RegExp) => screen.getByRole("rowheader", { name }).closest("tr")!;

describe("ConsoleUsers", () => {
  test("lists the customers with their onboarding badges and account reference, and how many there are", () => {
    render(<ConsoleUsers first={FIRST} onBehalfId={null} />);
    expect(screen.getAllByRole("row")).toHaveLength(4);
    const ada = within(rowOf(/Ada Lovelace/));
    expect(ada.getByText("ACC-0007")).toBeTruthy();
    expect(ada.getByText("Account open").textContent).toContain("Account open");
    expect(within(rowOf(/Acme Ltd/)).getByText("Account open").parentElement!.textContent).toContain("not yet");
    // Open account only where identity is approved and there is no account yet.
    expect(screen.getAllByRole("button", { name: /^Open account for/ }).map((b) => b.getAttribute("aria-label")))
      .toEqual(["Open account for Acme Ltd"]);

    expect(screen.getByRole("status").textContent).toBe("3 customers");
    expect(screen.queryByRole("navigation", { name: "Pages of customers" })).toBeNull();
  });

  test("Enter asks the server: GET console/users?q=, and the list says how many match", async () => {
    const calls = server(() => [200, { body: { items: [USERS[1]], page: 1, per_page: 20, total: 1 } }]);
    render(<ConsoleUsers first={FIRST} onBehalfId={null} />);
    fireEvent.change(screen.getByLabelText("Search customers"), { target: { value: "acme" } });
    fireEvent.submit(screen.getByRole("search"));
    await settle();
    expect(seen(calls)).toEqual([{ method: "GET", path: "console/users?q=acme", body: undefined }]);
    expect(screen.getAllByRole("row")).toHaveLength(2);
    expect(screen.getByRole("status").textContent).toBe("1 customer matches");
  });

  test("a list longer than a page has pages: Next asks for page 2", async () => {
    const calls = server(() => [200, { body: { items: [USERS[2]], page: 2, per_page: 2, total: 3 } }]);
    render(<ConsoleUsers first={{ items: USERS.slice(0, 2), page: 1, per_page: 2, total: 3 }} onBehalfId={null} />);
    expect(screen.getByRole("status").textContent).toBe("3 customers; showing 1–2");
    const pages = within(screen.getByRole("navigation", { name: "Pages of customers" }));
    expect(pages.getByText("Page 1 of 2")).toBeTruthy();
    fireEvent.click(pages.getByRole("button", { name: "Next" }));
    await settle();
    expect(seen(calls)).toEqual([{ method: "GET", path: "console/users?page=2", body: undefined }]);
    expect(screen.getByRole("status").textContent).toBe("3 customers; showing 3–3");
    expect(pages.getByText("Page 2 of 2")).toBeTruthy();
  });

  test("'Act on behalf' posts on_behalf_of, keeps the mode, then loads /account", async () => {
    const calls = server(() => [200, { body: ADA_SESSION }]);
    render(<ConsoleUsers first={FIRST} onBehalfId={null} />);
    fireEvent.click(screen.getByRole("button", { name: "Act on behalf of Ada Lovelace" }));
    await settle();
    expect(seen(calls)).toEqual([{ method: "POST", path: "account/onbehalf", body: { on_behalf_of: 7 } }]);
    expect(onBehalfStore.get()).toEqual(ADA);
    expect(assign).toHaveBeenCalledWith("/account");
  });

  test("a 401 on 'Act on behalf' shows 'Bad credentials'", async () => {
    server(() => [401, { error: "Please sign in.", message: "Unauthorized" }]);
    render(<ConsoleUsers first={FIRST} onBehalfId={null} />);
    fireEvent.click(screen.getByRole("button", { name: "Act on behalf of Acme Ltd" }));
    await settle();
    expect(screen.getByRole("alert").textContent).toBe("Bad credentials");
    expect(onBehalfStore.get()).toBeNull();
  });

  test("the row of the customer acted for is marked", () => {
    render(<ConsoleUsers first={FIRST} onBehalfId={7} />);
    expect(within(rowOf(/Ada Lovelace/)).getByText("(acting on behalf)")).toBeTruthy();
  });

  test("'Open account' posts the compliance review; a 422 shows the server's text exactly; success updates the row", async () => {
    let opened = false;
    const calls = server((_method, _path, body) => {
      const compliance = (body as { compliance: { done: boolean; amount: string; date: string } }).compliance;
      if (compliance.done && !compliance.amount) {
        return [422, {
          error: "Amount is required when setting compliance.",
          message: "Unprocessable Entity",
          fields: {
            "compliance.amount": "Amount is required when setting compliance.",
            "compliance.date": "Date is required when when setting compliance.",
          },
        }];
      }
      opened = true;
      return [200, { body: { ...USERS[1], id: 8, account: true, account_ref: "ACC-0008" } }];
    });
    render(<ConsoleUsers first={FIRST} onBehalfId={null} />);
    fireEvent.click(screen.getByRole("button", { name: "Open account for Acme Ltd" }));
    const form = within(screen.getByRole("form", { name: "Compliance review for Acme Ltd" }));
    fireEvent.click(form.getByLabelText("Compliance review done"));
    fireEvent.click(form.getByRole("button", { name: "Open the account" }));
    await settle();

    expect(seen(calls)).toEqual([{
      method: "POST",
      path: "console/users/8/open-account",
      body: { compliance: { done: true, amount: "", date: "" } },
    }]);
    // Each problem once, under its field: the answer's error is the amount's, not repeated in the alert.
    expect(form.getByRole("alert").textContent).toBe("");
    expect(form.getAllByText("Amount is required when setting compliance.")).toHaveLength(1);
    expect(form.getByText("Date is required when when setting compliance.")).toBeTruthy();
    expect(form.getByLabelText("Approved annual volume").getAttribute("aria-invalid")).toBe("true");

    fireEvent.change(form.getByLabelText("Approved annual volume"), { target: { value: "50000" } });
    fireEvent.change(form.getByLabelText("Review date"), { target: { value: "2026-05-01" } });
    fireEvent.click(form.getByRole("button", { name: "Open the account" }));
    await settle();
    expect(opened).toBe(true);
    expect(calls[1].body).toEqual({ compliance: { done: true, amount: "50000", date: "2026-05-01" } });

    expect(screen.queryByRole("form")).toBeNull();
    const acme = within(rowOf(/Acme Ltd/));
    expect(acme.getByText("ACC-0008")).toBeTruthy();
    expect(acme.getByText("Account open").parentElement!.textContent).toContain("done");
    expect(screen.queryByRole("button", { name: "Open account for Acme Ltd" })).toBeNull();
    expect(notifications.snapshot().visible.map((n) => [n.title, n.description, n.color])).toEqual([
      ["Account opened", "Acme Ltd's account ACC-0008 is open.", "success"],
    ]);
  });

  test("a rejected application says so, and its 'Open account' is the review that overrides the rejection", async () => {
    const rejected: ConsoleUser = {
      ...USERS[1],
      step: "rejected",
      rejection: { at: "2026-11-20T09:30:00.000Z", reason: "not_verified" },
    };
    const calls = server((method) =>
      method === "POST" ? [200, { body: { ...ADA_SESSION, id: 8, account_ref: "ACC-0008" } }] : undefined as never
    );
    render(<ConsoleUsers first={{ ...FIRST, items: [rejected] }} onBehalfId={null} />);
    const acme = within(rowOf(/Acme Ltd/));
    expect(acme.getByText(/Rejected on 2026-11-20/).textContent).toBe(
      "✕Rejected on 2026-11-20 (Could not be verified)",
    );
    expect(acme.queryByText("Account open")).toBeNull();
    const open = acme.getByRole("button", { name: "Open account for Acme Ltd" });
    expect(open.textContent).toBe("Open account (overrides the rejection)");
    fireEvent.click(open);
    const form = within(screen.getByRole("form", { name: "Compliance review for Acme Ltd" }));
    fireEvent.click(form.getByLabelText("Compliance review done"));
    fireEvent.change(form.getByLabelText("Approved annual volume"), { target: { value: "50000" } });
    fireEvent.change(form.getByLabelText("Review date"), { target: { value: "2026-11-21" } });
    fireEvent.click(form.getByRole("button", { name: "Open the account" }));
    await settle();
    expect(seen(calls)[0]).toEqual({
      method: "POST",
      path: "console/users/8/open-account",
      body: { compliance: { done: true, amount: "50000", date: "2026-11-21" }, overrides_rejection: true },
    });
    // The row changes at once (the list is read again behind it).
    expect(acme.queryByText(/Rejected on/)).toBeNull();
    expect(acme.getByText("Account open").parentElement!.textContent).toContain("done");
  });

  test("renders on the server and hydrates without a warning", async () => {
    const element = <ConsoleUsers first={FIRST} onBehalfId={7} />;
    const container = document.createElement("div");
    container.innerHTML = renderToString(element);
    document.body.append(container);
    render(element, { container, hydrate: true });
    await settle();
    expect(screen.getAllByRole("row")).toHaveLength(4);
    container.remove();
  });
});
