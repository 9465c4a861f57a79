// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import Statements from "../../islands/Statements.tsx";
import type { Job, Statement } from "../../islands/statements/calls.ts";
import { IDEMPOTENCY_HEADER } from "../../lib/api-types.ts";
import { fakeApi, resetIslands } from "../helpers/fake-api.ts";

/**
 * The reports island (/account/reports): the customer asks for a statement; the progress bar
 * follows GET account/jobs/{id} until the job succeeds, then the download link shows; a refusal
 * is shown under its field. The server is the shared fake, shaped by lib/contracts/statements.ts.
 */

const settle = (ms = 0) => act(() => vi.advanceTimersByTimeAsync(ms));

const job = (status: Job["status"], progress: Job["progress"], result: unknown = null): Job => ({
  id: 9,
  kind: "statements.generate",
  status,
  progress,
  result,
  error: null,
  created_at: "2026-11-27T10:00:00.000Z",
  started_at: null,
  finished_at: null,
});

const STATEMENT: Statement = {
  id: 4,
  currency: "GBP",
  from: "2026-11-01",
  to: "2026-11-27",
  format: "pdf",
  state: "preparing",
  job_id: 9,
  file_name: "statement-P00000001-GBP-2026-11-01-to-2026-11-27.pdf",
  file_url: null,
  line_count: null,
  size_bytes: null,
  created_at: "2026-11-27T10:00:00.000Z",
  ready_at: null,
  expires_at: null,
};

function island() {
  return render(
    <Statements
      accountRef="P00000001"
      currencies={[{ code: "GBP", name: "Pound Sterling" }, { code: "EUR", name: "Euro" }]}
      today="2026-11-27"
      statements={[]}
    />,
  );
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  cleanup();
  resetIslands();
  vi.useRealTimers();
});

describe("asking for a statement", () => {
  /** The fake server: the request is accepted, and the job answers `answer` when asked. */
  function server(answer: Job) {
    return fakeApi((call) => {
      if (call.method === "POST" && call.path === "account/statements") {
        return [202, { body: { job: job("queued", null), statement: STATEMENT } }];
      }
      if (call.path === "account/jobs/9") return [200, { body: answer }];
      if (call.path === "account/statements") return [200, { body: { items: [STATEMENT] } }];
      return undefined;
    });
  }

  async function ask() {
    island();
    fireEvent.change(screen.getByLabelText("Currency"), { target: { value: "GBP" } });
    fireEvent.change(screen.getByLabelText("Format"), { target: { value: "pdf" } });
    await settle();
    fireEvent.click(screen.getByRole("button", { name: "Make the statement" }));
    await settle(50);
    await settle(50);
  }

  // TanStack Query does not poll under Deno (it takes 'Deno' in globalThis for a server): each
  // test shows one answer of the job; tests/e2e/statements.test.ts follows the polling in Chromium.
  test("sends the choice once, with an Idempotency-Key, and shows the job's progress", async () => {
    const calls = server(job("running", { done: 500, total: 2000, message: null }));
    await ask();
    const post = calls.find((c) => c.method === "POST")!;
    expect(post.body).toEqual({ currency: "GBP", from: "2026-11-01", to: "2026-11-27", format: "pdf" });
    expect(post.headers.get(IDEMPOTENCY_HEADER)).toBeTruthy();
    expect(calls.filter((c) => c.path === "account/jobs/9").length).toBe(1);
    expect(screen.getByText(/500 of 2000 lines written/)).toBeTruthy();
    expect((screen.getByRole("progressbar") as HTMLProgressElement).value).toBe(500);
    expect(screen.queryByRole("link", { name: "Download the statement" })).toBeNull();
  });

  test("shows the download link once the job has succeeded", async () => {
    server(job("succeeded", { done: 2000, total: 2000, message: null }, {
      statement_id: 4,
      file: "/api/account/statements/4/file",
    }));
    await ask();
    const link = screen.getByRole("link", { name: "Download the statement" });
    // Naming the account the page shows (decision 075).
    expect(link.getAttribute("href")).toBe("/api/account/statements/4/file?account_ref=P00000001");
    expect(screen.queryByRole("progressbar")).toBeNull();
  });

  test("says why, when the job failed", async () => {
    server({ ...job("failed", null), error: "This statement no longer exists." });
    await ask();
    const alerts = screen.getAllByRole("alert").map((a) => a.textContent);
    expect(alerts).toContain("The statement could not be madeThis statement no longer exists.");
  });

  test("all currencies is sent as null, and a refused period is shown under its field", async () => {
    const calls = fakeApi({
      "POST account/statements": [422, {
        error: "Check the statement's period.",
        message: "Unprocessable Entity",
        fields: { to: "The period must end on or after the day it starts." },
      }],
    });
    island();
    fireEvent.change(screen.getByLabelText("From"), { target: { value: "2026-11-20" } });
    fireEvent.change(screen.getByLabelText("To"), { target: { value: "2026-11-10" } });
    await settle();
    fireEvent.click(screen.getByRole("button", { name: "Make the statement" }));
    await settle();
    expect(calls[0].body).toMatchObject({ currency: null, from: "2026-11-20", to: "2026-11-10" });
    expect(screen.getByText("The period must end on or after the day it starts.")).toBeTruthy();
    expect(screen.getByLabelText("To").getAttribute("aria-invalid")).toBe("true");
  });
});
