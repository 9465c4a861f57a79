// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { renderToString } from "react-dom/server";
import { afterEach, beforeEach, describe, expect, type Mock, test, vi } from "vitest";
import IdentityCheck, { STILL_IN_PROGRESS } from "../../islands/IdentityCheck.tsx";
import { loadSumsubSdk, SUMSUB_SDK_URL } from "../../islands/onboarding/sumsub-sdk.ts";
import { type Answer, fakeApi, resetIslands } from "../helpers/fake-api.ts";

/** The fake server, answering by method and path; its calls are seen as method, path, body. */
function server(route: (method: string, path: string, body: unknown) => [number, unknown?]) {
  const calls = fakeApi((call) => route(call.method, call.path, call.body) as Answer);
  return {
    get seen() {
      return calls.map((c) => ({ method: c.method, path: c.path, body: c.body }));
    },
  };
}

const settle = (ms = 0) => act(() => vi.advanceTimersByTimeAsync(ms));

const RETRY_COMMENT = "Sandbox: the document photo was unreadable. Please try again.";
const USER = { id: 3, username: "ada@example.com", name: "Ada Lovelace", identity: true };

let assign: Mock<(url: string | URL) => void>;
beforeEach(() => {
  vi.useFakeTimers();
  assign = vi.fn<(url: string | URL) => void>();
  vi.spyOn(location, "assign").mockImplementation(assign);
});
afterEach(() => {
  cleanup();
  resetIslands();
  vi.useRealTimers();
  document.head.querySelectorAll("script").forEach((s) => s.remove());
});

const click = (name: string) => fireEvent.click(screen.getByRole("button", { name }));

describe("sandbox provider", () => {
  test("is clearly marked as a sandbox", () => {
    server(() => [200, { body: {} }]);
    render(<IdentityCheck provider="sandbox" status="none" />);
    expect(
      screen.getByRole("heading", {
        name: "Sandbox identity provider — for development and testing only; no real check is made",
      }),
    ).toBeTruthy();
    expect(screen.getAllByRole("button").map((b) => b.textContent)).toEqual([
      "Approve (GREEN)",
      "Approve another person's document (GREEN)",
      "Ask to retry (RED / RETRY)",
      "Reject (RED / FINAL)",
    ]);
  });

  test("'Ask to retry' posts RED / RETRY, then confirms, and shows the provider's comment to try again", async () => {
    const calls = server((_method, path) => {
      if (path === "sumsub/sandbox") return [200, { body: { status: "retry" } }];
      return [422, { error: RETRY_COMMENT, message: "Unprocessable Entity" }];
    });
    render(<IdentityCheck provider="sandbox" status="none" />);
    click("Ask to retry (RED / RETRY)");
    // While the answer is sent, the other answers do nothing (aria-disabled: the keyboard's focus stays on the one pressed).
    expect(screen.getByRole("button", { name: "Approve (GREEN)" }).getAttribute("aria-disabled")).toBe("true");
    click("Approve (GREEN)");
    await settle();
    expect(calls.seen[0]).toEqual({
      method: "POST",
      path: "sumsub/sandbox",
      body: { answer: "RED", reject_type: "RETRY" },
    });
    // Once the answer is recorded, the result is asked for.
    expect(calls.seen.map((c) => `${c.method} ${c.path}`)).toEqual(["POST sumsub/sandbox", "GET sumsub/confirm"]);
    expect(screen.getByText(`What to fix: ${RETRY_COMMENT}`)).toBeTruthy();
    // The user can try again.
    expect(screen.getByRole("button", { name: "Approve (GREEN)" })).toHaveProperty("disabled", false);
    expect(assign).not.toHaveBeenCalled();
  });

  test("'Approve' posts GREEN; the approved confirmation follows the redirect to /auth", async () => {
    const calls = server((_method, path) =>
      path === "sumsub/sandbox" ? [200, { body: { status: "approved" } }] : [200, { body: USER, redirect: "/auth" }]
    );
    render(<IdentityCheck provider="sandbox" status="retry" comment={RETRY_COMMENT} />);
    click("Approve (GREEN)");
    await settle();
    expect(calls.seen.map((c) => c.body)).toEqual([{ answer: "GREEN" }, undefined]);
    expect(assign).toHaveBeenCalledWith("/auth");
    expect(screen.getByText("Your identity is verified. Taking you to the next step…")).toBeTruthy();
  });

  test("'Reject' posts RED / FINAL; a 403 shows that the identity could not be verified", async () => {
    const calls = server((_method, path) =>
      path === "sumsub/sandbox"
        ? [200, { body: { status: "rejected" } }]
        : [403, { error: "Sandbox: the identity check was refused. This decision is final.", message: "Forbidden" }]
    );
    render(<IdentityCheck provider="sandbox" status="none" />);
    click("Reject (RED / FINAL)");
    await settle();
    expect(calls.seen[0].body).toEqual({ answer: "RED", reject_type: "FINAL" });
    expect(screen.getByText("We could not verify your identity")).toBeTruthy();
    expect(screen.getByText("Sandbox: the identity check was refused. This decision is final.")).toBeTruthy();
    expect(screen.getByText(/write to us/)).toBeTruthy();
    // Final: nothing more to press.
    expect(screen.queryAllByRole("button")).toEqual([]);
  });

  test("a 409 says the check is still in progress", async () => {
    server((
      _method,
      path,
    ) => (path === "sumsub/sandbox"
      ? [200, { body: { status: "pending" } }]
      : [409, { error: "Still checking.", message: "Conflict" }])
    );
    render(<IdentityCheck provider="sandbox" status="none" />);
    click("Approve (GREEN)");
    await settle();
    expect(screen.getByText(STILL_IN_PROGRESS)).toBeTruthy();
    expect(screen.getByText(/We are checking your documents/)).toBeTruthy();
  });

  test("a failed answer shows the server's text, or the fallback", async () => {
    server(() => [500]);
    render(<IdentityCheck provider="sandbox" status="none" />);
    click("Approve (GREEN)");
    await settle();
    expect(screen.getByRole("alert").textContent).toBe("An error occurred. Please try again later");
    expect(screen.getByRole("button", { name: "Approve (GREEN)" })).toHaveProperty("disabled", false);
  });
});

describe("statuses from the server", () => {
  test("retry shows what to fix", () => {
    render(<IdentityCheck provider="sandbox" status="retry" comment="The photo is blurred." />);
    expect(screen.getByText("What to fix: The photo is blurred.")).toBeTruthy();
  });

  test("rejected says to write to support, with the address, and offers nothing to press", () => {
    render(<IdentityCheck provider="sumsub" status="rejected" comment={null} supportEmail="help@portal.example" />);
    expect(screen.getByText("We could not verify your identity")).toBeTruthy();
    expect(screen.getByText(/If you think this is a mistake, write to us at/)).toBeTruthy();
    expect(screen.getByRole("link", { name: "help@portal.example" }).getAttribute("href")).toBe(
      "mailto:help@portal.example",
    );
    expect(screen.queryAllByRole("button")).toEqual([]);
  });

  test("pending says the documents are being checked, with a button to check the result", async () => {
    const calls = server(() => [200, { body: USER, redirect: "/auth" }]);
    render(<IdentityCheck provider="sandbox" status="pending" />);
    expect(screen.getByText(/We are checking your documents/)).toBeTruthy();
    click("Check my result");
    await settle();
    expect(calls.seen).toEqual([{ method: "GET", path: "sumsub/confirm", body: undefined }]);
    expect(assign).toHaveBeenCalledWith("/auth");
  });

  test("renders on the server and hydrates without a warning", async () => {
    const element = <IdentityCheck provider="sandbox" status="retry" comment="Blurred." />;
    const container = document.createElement("div");
    container.innerHTML = renderToString(element);
    document.body.append(container);
    render(element, { container, hydrate: true });
    await settle();
    expect(screen.getByText("What to fix: Blurred.")).toBeTruthy();
    container.remove();
  });
});

describe("Sumsub provider", () => {
  function fakeSdk() {
    const handlers = new Map<string, (payload: unknown) => void>();
    const launch = vi.fn();
    const builder = {
      withConf: vi.fn(() => builder),
      on: vi.fn((event: string, handler: (payload: unknown) => void) => {
        handlers.set(event, handler);
        return builder;
      }),
      build: () => ({ launch }),
    };
    const init = vi.fn((_token: string, _refresh: () => Promise<string>) => builder);
    vi.stubGlobal("snsWebSdk", { init });
    return { init, launch, handlers, builder };
  }

  test("gets a token, launches the WebSDK in its container, and confirms once the review completes", async () => {
    const sdk = fakeSdk();
    let tokens = 0;
    const calls = server((_method, path) =>
      path === "sumsub/token"
        ? [200, { body: { kind: "sumsub", accessToken: `token-${++tokens}` } }]
        : [422, { error: "Upload the back of the card.", message: "Unprocessable Entity" }]
    );
    render(<IdentityCheck provider="sumsub" status="none" />);
    await settle();
    expect(calls.seen[0]).toEqual({ method: "GET", path: "sumsub/token", body: undefined });
    expect(sdk.init.mock.calls[0][0]).toBe("token-1");
    expect(sdk.builder.withConf).toHaveBeenCalledWith({ lang: "en" });
    expect(sdk.launch).toHaveBeenCalledWith("#sumsub-websdk-container");
    expect(document.getElementById("sumsub-websdk-container")).toBeTruthy();

    // The SDK asks for a new token when the first expires.
    let refreshed: Promise<string> | undefined;
    await act(async () => {
      refreshed = sdk.init.mock.calls[0][1]();
      await vi.advanceTimersByTimeAsync(0);
    });
    await expect(refreshed).resolves.toBe("token-2");

    await act(async () => {
      sdk.handlers.get("idCheck.onApplicantStatusChanged")!({
        reviewStatus: "completed",
        reviewResult: { reviewAnswer: "RED" },
      });
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(calls.seen.at(-1)).toEqual({ method: "GET", path: "sumsub/confirm", body: undefined });
    expect(screen.getByText("What to fix: Upload the back of the card.")).toBeTruthy();
  });

  test("'Check my result' asks for the result", async () => {
    fakeSdk();
    const calls = server((_method, path) =>
      path === "sumsub/token"
        ? [200, { body: { kind: "sumsub", accessToken: "t" } }]
        : [409, { error: "Pending", message: "Conflict" }]
    );
    render(<IdentityCheck provider="sumsub" status="none" />);
    await settle();
    click("Check my result");
    await settle();
    expect(calls.seen.map((c) => c.path)).toEqual(["sumsub/token", "sumsub/confirm"]);
    expect(screen.getByText(STILL_IN_PROGRESS)).toBeTruthy();
  });

  test("a token the server fails to give is asked for twice more, then the server's text shows", async () => {
    const calls = server(
      () => [503, { error: "The identity provider is not reachable.", message: "Service Unavailable" }],
    );
    render(<IdentityCheck provider="sumsub" status="none" />);
    await settle();
    expect(screen.queryByRole("alert")).toBeNull(); // not yet: a server error may pass
    await settle(1_000 + 2_000); // the two retries, one and two seconds apart
    expect(calls.seen.map((c) => c.path)).toEqual(["sumsub/token", "sumsub/token", "sumsub/token"]);
    await settle(1);
    expect(screen.getByRole("alert").textContent).toBe("The identity provider is not reachable.");
  });

  test("the WebSDK script is added once, with the page's CSP nonce", async () => {
    const page = document.createElement("script");
    page.setAttribute("nonce", "n0nce");
    document.head.append(page);
    // happy-dom runs no scripts: keep the element out of the document and play the browser.
    const added: HTMLScriptElement[] = [];
    vi.spyOn(document.head, "append").mockImplementation((...nodes) =>
      void added.push(...(nodes as HTMLScriptElement[]))
    );
    const loaded = loadSumsubSdk();
    expect(loadSumsubSdk()).toBe(loaded);
    expect(added).toHaveLength(1);
    const script = added[0];
    expect(script.src).toBe(SUMSUB_SDK_URL);
    expect(script.nonce || script.getAttribute("nonce")).toBe("n0nce");
    const sdk = { init: vi.fn() };
    vi.stubGlobal("snsWebSdk", sdk);
    script.onload!(new Event("load"));
    await expect(loaded).resolves.toBe(sdk);
  });
});
