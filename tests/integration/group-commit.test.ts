import { LibsqlError, type Transaction, type TransactionMode } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { expect, test } from "vitest";
import { type Database, openDatabase } from "../../db/client.ts";
import { groupCommitStats, groupedTransaction } from "../../db/group-commit.ts";
import { rowsOf, run, type Tx } from "../../db/sql.ts";
import { testDatabaseFile } from "../helpers/db.ts";

/**
 * db/group-commit.ts: works started together share one transaction and one COMMIT, each in a
 * savepoint of its own; a success is answered only once the group is committed.
 */

const { db, path } = await testDatabaseFile();

await db.$client.executeMultiple(`
  CREATE TABLE items (id INTEGER PRIMARY KEY, label TEXT NOT NULL UNIQUE);
  CREATE TABLE parents (id INTEGER PRIMARY KEY);
  CREATE TABLE children (id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL REFERENCES parents (id));
`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function insertItem(tx: Tx, label: string): Promise<number> {
  return run(tx, "INSERT INTO items (label) VALUES (?)", [label]);
}

/** The committed labels starting with `prefix`, in insertion order. */
async function labels(prefix: string, on: Database = db): Promise<string[]> {
  const rows = await rowsOf<{ label: string }>(on, "SELECT label FROM items WHERE label LIKE ? ORDER BY id", [
    `${prefix}%`,
  ]);
  return rows.map((row) => row.label);
}

/** How the stats moved since `before`. */
function since(before: { groups: number; works: number }, on: Database = db) {
  const now = groupCommitStats(on);
  return { groups: now.groups - before.groups, works: now.works - before.works };
}

/**
 * The same database, through a client whose transactions call `beforeCommit` just before their
 * COMMIT: to act while a group is committing.
 */
function withHookBeforeCommit(beforeCommit: () => void | Promise<void>): Database {
  const client = db.$client;
  const hooked = new Proxy(client, {
    get(target, property) {
      if (property === "transaction") {
        return async (mode?: TransactionMode) => {
          const tx = await target.transaction(mode);
          return new Proxy(tx, {
            get(inner, name) {
              if (name === "commit") {
                return async () => {
                  await beforeCommit();
                  return inner.commit();
                };
              }
              const value = Reflect.get(inner, name);
              return typeof value === "function" ? value.bind(inner) : value;
            },
          }) as Transaction;
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return drizzle(hooked) as unknown as Database;
}

test("twelve works started at once commit as one group, one after the other, each answered with its own value", async () => {
  const before = groupCommitStats(db);
  let running = 0;
  let mostAtOnce = 0;
  const results = await Promise.all(Array.from({ length: 12 }, (_, i) =>
    groupedTransaction(db, async (tx) => {
      running++;
      mostAtOnce = Math.max(mostAtOnce, running);
      await insertItem(tx, `together-${i}`);
      await sleep(1);
      const [row] = await rowsOf<{ id: number }>(tx, "SELECT id FROM items WHERE label = ?", [`together-${i}`]);
      running--;
      return { i, id: row.id };
    })));
  expect(results.map((result) => result.i)).toEqual(Array.from({ length: 12 }, (_, i) => i));
  expect(new Set(results.map((result) => result.id)).size).toBe(12);
  expect(mostAtOnce).toBe(1);
  expect(since(before)).toEqual({ groups: 1, works: 12 });
  expect(groupCommitStats(db).largest).toBeGreaterThanOrEqual(12);
  expect(await labels("together-")).toHaveLength(12);
});

test("a work that throws rejects with its own error and leaves nothing; the others of its group are kept", async () => {
  const before = groupCommitStats(db);
  const outcomes = await Promise.allSettled([
    groupedTransaction(db, async (tx) => {
      await insertItem(tx, "mixed-kept-1");
      return "first";
    }),
    groupedTransaction(db, async (tx) => {
      await insertItem(tx, "mixed-dropped");
      await insertItem(tx, "mixed-dropped-too");
      throw new Error("the second work refused");
    }),
    groupedTransaction(db, async (tx) => {
      await insertItem(tx, "mixed-kept-3");
      return "third";
    }),
  ]);
  expect(outcomes).toEqual([
    { status: "fulfilled", value: "first" },
    { status: "rejected", reason: new Error("the second work refused") },
    { status: "fulfilled", value: "third" },
  ]);
  expect(await labels("mixed-")).toEqual(["mixed-kept-1", "mixed-kept-3"]);
  expect(since(before)).toEqual({ groups: 1, works: 2 });
});

test("a work that throws is answered at once, without waiting for the rest of its group", async () => {
  let letSlowFinish!: () => void;
  const gate = new Promise<void>((resolve) => (letSlowFinish = resolve));
  const failing = groupedTransaction(db, () => Promise.reject(new Error("refused early")));
  const slow = groupedTransaction(db, async (tx) => {
    await gate;
    await insertItem(tx, "early-slow");
  });
  const answer = await Promise.race([
    failing.then(() => "resolved", (error: Error) => error.message),
    sleep(20_000).then(() => "still waiting"),
  ]);
  letSlowFinish();
  await slow;
  expect(answer).toBe("refused early");
  expect(await labels("early-")).toEqual(["early-slow"]);
});

test("a success is answered only once the rows are committed: another connection to the file already sees them", async () => {
  const other = await openDatabase({ url: `file:${path}` });
  try {
    const seenByOther = async (label: string) =>
      (await rowsOf<{ n: number }>(other, "SELECT count(*) AS n FROM items WHERE label = ?", [label]))[0].n;
    let slowFinished = false;
    let quickSeenWhileGroupRan = -1;
    const quick = groupedTransaction(db, (tx) => insertItem(tx, "durable-quick"));
    const slow = groupedTransaction(db, async (tx) => {
      // Same group, after the quick one: its row is written but not yet committed.
      quickSeenWhileGroupRan = await seenByOther("durable-quick");
      await sleep(30);
      await insertItem(tx, "durable-slow");
      slowFinished = true;
    });
    const atAnswer = await quick.then(async () => ({
      slowFinished,
      quick: await seenByOther("durable-quick"),
      slow: await seenByOther("durable-slow"),
    }));
    await slow;
    expect(quickSeenWhileGroupRan).toBe(0);
    expect(atAnswer).toEqual({ slowFinished: true, quick: 1, slow: 1 });
  } finally {
    other.$client.close();
  }
});

test("when the group's COMMIT fails, every work that had succeeded in it rejects and nothing of the group is written", async () => {
  const before = groupCommitStats(db);
  const outcomes = await Promise.allSettled([
    groupedTransaction(db, (tx) => insertItem(tx, "doomed-1")),
    groupedTransaction(db, async (tx) => {
      // The foreign key is checked at COMMIT only, so this work itself succeeds …
      await run(tx, "PRAGMA defer_foreign_keys = ON");
      await run(tx, "INSERT INTO children (parent_id) VALUES (?)", [404]);
      await insertItem(tx, "doomed-2");
      return "dangling child written";
    }),
    groupedTransaction(db, (tx) => insertItem(tx, "doomed-3")),
  ]);
  // … and the COMMIT fails for the whole group.
  expect(outcomes.map((outcome) => outcome.status)).toEqual(["rejected", "rejected", "rejected"]);
  for (const outcome of outcomes) {
    const reason = (outcome as PromiseRejectedResult).reason;
    expect(reason).toBeInstanceOf(LibsqlError);
    expect(reason.code).toBe("SQLITE_CONSTRAINT");
    expect(reason.message).toContain("FOREIGN KEY constraint failed");
  }
  expect(await labels("doomed-")).toEqual([]);
  expect(await rowsOf(db, "SELECT * FROM children")).toEqual([]);
  expect(since(before)).toEqual({ groups: 0, works: 0 });

  // The database is not left stuck: the next work commits.
  expect(
    await groupedTransaction(db, async (tx) => {
      await insertItem(tx, "after-doomed");
      return "committed";
    }),
  ).toBe("committed");
  expect(await labels("after-doomed")).toEqual(["after-doomed"]);
});

test("works started while a group is committing run in the next group", async () => {
  let late: Array<Promise<string>> = [];
  let commits = 0;
  const hooked: Database = withHookBeforeCommit(() => {
    commits++;
    if (commits === 1) {
      late = [0, 1].map((i) =>
        groupedTransaction(hooked, async (tx) => {
          await insertItem(tx, `late-${i}`);
          return `late-${i}`;
        })
      );
    }
  });
  const early = await Promise.all([0, 1, 2].map((i) =>
    groupedTransaction(hooked, async (tx) => {
      await insertItem(tx, `early-group-${i}`);
      return `early-${i}`;
    })
  ));
  expect(early).toEqual(["early-0", "early-1", "early-2"]);
  expect(late).toHaveLength(2);
  expect(groupCommitStats(hooked)).toEqual({ groups: 1, works: 3, largest: 3 });
  expect(await Promise.all(late)).toEqual(["late-0", "late-1"]);
  expect(groupCommitStats(hooked)).toEqual({ groups: 2, works: 5, largest: 3 });
  expect(commits).toBe(2);
  expect(await labels("late-")).toEqual(["late-0", "late-1"]);
});

test("a group never holds more than 64 works: a hundred started at once all commit, in two groups or more", async () => {
  const before = groupCommitStats(db);
  const results = await Promise.all(Array.from({ length: 100 }, (_, i) =>
    groupedTransaction(db, async (tx) => {
      await insertItem(tx, `hundred-${String(i).padStart(3, "0")}`);
      return i;
    })));
  expect(results).toEqual(Array.from({ length: 100 }, (_, i) => i));
  const moved = since(before);
  expect(moved.works).toBe(100);
  expect(moved.groups).toBeGreaterThanOrEqual(2);
  expect(groupCommitStats(db).largest).toBeLessThanOrEqual(64);
  expect(await labels("hundred-")).toHaveLength(100);
});

test("each database has its own group committer and stats", async () => {
  const other = withHookBeforeCommit(() => {});
  const before = groupCommitStats(db);
  await groupedTransaction(other, (tx) => insertItem(tx, "own-stats"));
  expect(groupCommitStats(other)).toEqual({ groups: 1, works: 1, largest: 1 });
  expect(since(before)).toEqual({ groups: 0, works: 0 });
});

test("a work whose group cannot begin its transaction rejects with that error, once, instead of waiting for ever", async () => {
  let attempts = 0;
  const failing = new Proxy(db.$client, {
    get(target, property) {
      if (property === "transaction") {
        return (mode?: TransactionMode) =>
          ++attempts <= 1000
            ? Promise.reject(new LibsqlError("database is locked", "SQLITE_BUSY"))
            : target.transaction(mode);
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const outcome = await groupedTransaction(drizzle(failing) as unknown as Database, () => Promise.resolve("ran"))
    .then((value) => value, (error: Error) => error.message);
  expect(attempts).toBe(1);
  expect(outcome).toContain("database is locked");
});
