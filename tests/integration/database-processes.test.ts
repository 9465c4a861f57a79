import Database from "libsql";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { count, like } from "drizzle-orm";
import { expect, test, vi } from "vitest";
import { lockWaits } from "../../db/other-writers.ts";
import { openDatabase } from "../../db/client.ts";
import { accounts, redirects } from "../../db/schema.ts";
import { rowsOf } from "../../db/sql.ts";
import { checkLedger } from "../../server/ledger/check.ts";
import { balancesOf, creditReceipt } from "../../server/ledger/movements.ts";
import { testDatabaseFile } from "../helpers/db.ts";

/**
 * Several processes on one database file (decision 013): a write that meets another process's
 * write lock waits for it without blocking its own process, and goes through.
 */

const { db, path } = await testDatabaseFile();

const SELL = 1_000;
const FEE = 10;
const BUY = 1_148;

async function customer(ref: string, gbp: number): Promise<number> {
  const [row] = await db.insert(accounts).values({ accountRef: ref, type: "Business", name: ref, openedAt: new Date() })
    .returning({ id: accounts.id });
  if (gbp > 0) await creditReceipt(db, { accountId: row.id, currency: "GBP", amount: gbp, reference: `fund-${ref}` });
  return row.id;
}

test("a write that meets another connection's write lock waits without blocking this process, and goes through once it is released", async () => {
  const holder = new Database(path, { timeout: 0 });
  try {
    holder.exec("BEGIN IMMEDIATE");
    holder.exec("INSERT INTO redirects (path, target, created_at) VALUES ('/held-first', '/', 0)");
    const waitsBefore = lockWaits();
    const outcome = db.insert(redirects).values({ path: "/held-second", target: "/" })
      .then(() => "written", (error: Error) => error.message);
    // The write has met the lock and waits for it …
    await vi.waitFor(() => expect(lockWaits()).toBeGreaterThan(waitsBefore));

    // … while this process goes on serving: reads answer (from the last committed state).
    const [{ n }] = await rowsOf<{ n: number }>(db, "SELECT count(*) AS n FROM redirects WHERE path LIKE '/held-%'");
    expect(n).toBe(0);

    holder.exec("COMMIT");
    expect(await outcome).toBe("written");
  } finally {
    holder.close();
  }
  // In the order they were written: the waiting write went in after the holder's commit.
  const paths = await rowsOf<{ path: string }>(
    db,
    "SELECT path FROM redirects WHERE path LIKE '/held-%' ORDER BY rowid",
  );
  expect(paths.map((row) => row.path)).toEqual(["/held-first", "/held-second"]);
});

test("a write waits for another portal process's write transaction (the lock file beside the database) without blocking this process", async () => {
  const other = await openDatabase({ url: `file:${path}` });
  try {
    const held = await other.$client.transaction("write");
    await held.execute("INSERT INTO redirects (path, target, created_at) VALUES ('/turn-first', '/', 0)");
    let settled = false;
    const outcome = db.insert(redirects).values({ path: "/turn-second", target: "/" })
      .then(() => "written", (error: Error) => error.message)
      .finally(() => (settled = true));
    // This process goes on serving meanwhile, and the write is still waiting when the other commits.
    const [{ n }] = await rowsOf<{ n: number }>(db, "SELECT count(*) AS n FROM redirects WHERE path LIKE '/turn-%'");
    expect(n).toBe(0);
    expect(settled).toBe(false);
    await held.commit();
    expect(await outcome).toBe("written");
  } finally {
    other.$client.close();
  }
  const paths = await rowsOf<{ path: string }>(
    db,
    "SELECT path FROM redirects WHERE path LIKE '/turn-%' ORDER BY rowid",
  );
  expect(paths.map((row) => row.path)).toEqual(["/turn-first", "/turn-second"]);
});

test(
  "three processes writing to one file at once (conversions, receipts, plain writes): each write succeeds or is refused for a business reason, none for the lock; the ledger holds",
  async () => {
    const CONVERSIONS = 15;
    const RECEIPTS = 15;
    const PLAIN = 15;
    const PROCESSES = 3;
    const COVERED = 25; // of the 45 conversions tried
    const converter = await customer("PROC-CONVERT", COVERED * SELL);
    const receiver = await customer("PROC-RECEIVE", 0);

    const child = (name: string) => {
      const code = `
      import { openDatabase } from "${new URL("../../db/client.ts", import.meta.url).href}";
      import { redirects } from "${new URL("../../db/schema.ts", import.meta.url).href}";
      import { convert, creditReceipt } from "${new URL("../../server/ledger/movements.ts", import.meta.url).href}";
      const db = await openDatabase({ url: ${JSON.stringify(`file:${path}`)} });
      console.log("ready");
      await Deno.stdin.readable.getReader().read();
      const outcome = (promise) => promise.then(() => "done", (e) => e.name === "InsufficientFunds" ? "refused" : "error " + (e.code ?? "") + " " + e.message);
      const started = Date.now();
      const jobs = [];
      for (let i = 0; i < ${CONVERSIONS}; i++) {
        jobs.push(outcome(convert(db, { accountId: ${converter}, sellCurrency: "GBP", sellAmount: ${SELL}, buyCurrency: "EUR",
          buyAmount: ${BUY}, feeAmount: ${FEE}, reference: "proc-${name}-c" + i })));
        jobs.push(outcome(creditReceipt(db, { accountId: ${receiver}, currency: "GBP", amount: 100, reference: "proc-${name}-r" + i })));
        jobs.push(outcome(db.insert(redirects).values({ path: "/proc-${name}/" + i, target: "/" })));
      }
      const outcomes = await Promise.all(jobs);
      db.$client.close();
      console.log(JSON.stringify({ outcomes, started, ended: Date.now() }));
    `;
      return new Deno.Command(Deno.execPath(), {
        // --quiet: on a fresh machine Deno reports its first download of package metadata on stderr.
        args: ["eval", "--quiet", "--config", "deno.json", code],
        cwd: new URL("../..", import.meta.url).pathname,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    };

    const children = Array.from({ length: PROCESSES }, (_, i) => child(String.fromCharCode(97 + i)));
    const outputs = children.map((process) => process.stdout.pipeThrough(new TextDecoderStream()).getReader());
    const text = children.map(() => "");
    // Every process opened the database and waits: then all start at once.
    await Promise.all(outputs.map(async (reader, i) => {
      while (!text[i].includes("ready\n")) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`process ${i} ended before it was ready`);
        text[i] += value;
      }
    }));
    const writers = children.map((process) => process.stdin.getWriter());
    await Promise.all(writers.map((writer) => writer.write(new TextEncoder().encode("go\n"))));
    const results = await Promise.all(children.map(async (process, i) => {
      for (;;) {
        const { value, done } = await outputs[i].read();
        if (done) break;
        text[i] += value;
      }
      const status = await process.status;
      const stderr = await new Response(process.stderr).text();
      expect(stderr).toBe("");
      expect(status.code).toBe(0);
      await writers[i].close();
      return JSON.parse(text[i].slice(text[i].indexOf("ready\n") + "ready\n".length)) as {
        outcomes: string[];
        started: number;
        ended: number;
      };
    }));

    const outcomes = results.flatMap((result) => result.outcomes);
    expect(outcomes.filter((o) => o !== "done" && o !== "refused")).toEqual([]);
    expect(outcomes.filter((o) => o === "refused")).toHaveLength(PROCESSES * CONVERSIONS - COVERED);
    expect(outcomes.filter((o) => o === "done")).toHaveLength(COVERED + PROCESSES * (RECEIPTS + PLAIN));
    // The processes were all writing at the same time (else this test proves nothing): each began
    // before any had finished.
    expect(Math.max(...results.map((r) => r.started))).toBeLessThan(Math.min(...results.map((r) => r.ended)));

    expect(await balancesOf(db, converter)).toEqual([
      { currency: "EUR", available: COVERED * BUY, held: 0 },
      { currency: "GBP", available: 0, held: 0 },
    ]);
    expect(await balancesOf(db, receiver)).toEqual([
      { currency: "GBP", available: PROCESSES * RECEIPTS * 100, held: 0 },
    ]);
    const [{ plain }] = await db.select({ plain: count() }).from(redirects).where(like(redirects.path, "/proc-%"));
    expect(plain).toBe(PROCESSES * PLAIN);
    expect((await checkLedger(db)).violations).toEqual([]);
  },
  120_000,
);

test("an instance opening a new file while another process creates it waits for it instead of failing at start", async () => {
  const dir = mkdtempSync(join(tmpdir(), "portal-open-"));
  const file = join(dir, "portal.db");
  // Another process creates the file and holds it whole (what a first instance's setup does) for a while.
  const holder = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import Database from "libsql";
       const db = new Database(${JSON.stringify(file)}, { timeout: 0 });
       db.exec("BEGIN EXCLUSIVE");
       db.exec("CREATE TABLE first (id INTEGER)");
       console.log("held");
       await new Promise((r) => setTimeout(r, 600));
       db.exec("COMMIT");
       db.close();`,
    ],
    cwd: Deno.cwd(),
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = holder.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let said = "";
    while (!said.includes("held")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`The holding process ended before it held the file: ${said}`);
      said += value;
    }
    // Opening sets WAL, which needs the file to itself: it waits for the holder, then works.
    const opened = await openDatabase({ url: `file:${file}` });
    try {
      const [{ journal_mode }] = await rowsOf<{ journal_mode: string }>(opened, "PRAGMA journal_mode");
      expect(journal_mode).toBe("wal");
      const [{ n }] = await rowsOf<{ n: number }>(opened, "SELECT count(*) AS n FROM first");
      expect(n).toBe(0);
    } finally {
      opened.$client.close();
    }
  } finally {
    reader.releaseLock();
    await holder.stdout.cancel().catch(() => {});
    await holder.status;
    rmSync(dir, { recursive: true, force: true });
  }
});
