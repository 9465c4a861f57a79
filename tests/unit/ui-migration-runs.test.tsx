// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import ConsoleMigration from "../../islands/ConsoleMigration.tsx";
import type { MigrationRun } from "../../islands/migrations/calls.ts";
import { fakeApi, resetIslands } from "../helpers/fake-api.ts";

/**
 * /console/migration's "Latest runs" (exploratory check of the operations console): the runs are
 * server state of the page's query client, so a dry run (or a commit) is listed as soon as it is
 * made, without reloading the page.
 */

const settle = (ms = 0) => act(() => vi.advanceTimersByTimeAsync(ms));

const COUNTS = { total: 2, created: 2, skipped: 0, refused: 0, emailed: 0, in_doubt: 0 };
const run = (id: number, file_name: string): MigrationRun => ({
  id,
  dry_run: true,
  file_name,
  created_at: "2026-11-28T10:00:00.000Z",
  created_by: "admin@example.com",
  finished_at: "2026-11-28T10:00:00.000Z",
  status: "dry run",
  counts: COUNTS,
  progress: null,
  error: null,
});
const OLDER = run(4, "first.csv");
const NEW = run(5, "customers.csv");
const page = (items: MigrationRun[]) => ({ items, page: 1, per_page: 20, total: items.length });

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  cleanup();
  resetIslands();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe("ConsoleMigration's latest runs", () => {
  test("lists the server's runs, and a dry run as soon as it is made", async () => {
    const calls = fakeApi({
      "POST console/migrations": [201, { body: NEW }],
      "GET console/migrations/5": [200, { body: { ...NEW, rows: { items: [], page: 1, per_page: 50, total: 0 } } }],
      "GET console/migrations": [200, { body: page([NEW, OLDER]) }],
    });
    render(<ConsoleMigration columns={["legacy_id", "email"]} runs={page([OLDER])} />);
    const latest = () =>
      within(screen.getByRole("table", { name: "Latest runs" })).getAllByRole("row").slice(1).map((r) => r.textContent);
    expect(latest()).toEqual([expect.stringContaining("#4first.csv")]);

    const file = new File(["legacy_id,email\n1,a@example.com\n"], "customers.csv", { type: "text/csv" });
    fireEvent.change(screen.getByLabelText(/Customers file/), { target: { files: [file] } });
    // The form's submit, as the "Dry run" button sends it (happy-dom checks `required` on the
    // file input's own list of files, which a test cannot fill).
    fireEvent.submit(screen.getByRole("button", { name: "Dry run" }).closest("form")!);
    await settle();
    await settle();

    expect(calls.map((c) => `${c.method} ${c.path}`)).toContain("GET console/migrations");
    expect(screen.getByRole("heading", { name: "Dry run of customers.csv" })).toBeTruthy();
    expect(latest()).toEqual([
      expect.stringContaining("#5customers.csv"),
      expect.stringContaining("#4first.csv"),
    ]);
  });
});
