import { type Client, createClient, LibsqlError, type ResultSet, type Transaction } from "@libsql/client";
import { asc, count, desc, eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/libsql";
import { alias } from "drizzle-orm/sqlite-core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { type Database, openMigratedDatabase } from "../../db/client.ts";
import { LocalClient, type LocalClientOptions } from "../../db/local-client.ts";
import { accountMembers, accounts, sessions, users } from "../../db/schema.ts";
import { preparedQuery, rowOf, rowsOf, run, sqlRunner } from "../../db/sql.ts";
import { testDatabase } from "../helpers/db.ts";

/**
 * db/local-client.ts (the client of a local database file, with prepared statements kept per
 * connection) and db/sql.ts (fixed SQL run on the connection under a Drizzle database or
 * transaction). Every client and database opened here is closed, and its folder removed, when the
 * file ends.
 */

const folders: string[] = [];
const opened: Array<{ close(): void }> = [];
afterAll(() => {
  for (const client of opened) client.close();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function freshPath(): string {
  const folder = mkdtempSync(join(tmpdir(), "local-client-test-"));
  folders.push(folder);
  return join(folder, "test.db");
}

function localClient(options: LocalClientOptions = {}, path = freshPath()): LocalClient {
  const client = new LocalClient(path, {
    onOpen: ["PRAGMA journal_mode = WAL", "PRAGMA foreign_keys = ON"],
    ...options,
  });
  opened.push(client);
  return client;
}

/** The portal's database (migrated) on a file of its own, opened as the server opens it. */
async function portalDatabase(): Promise<{ db: Database; path: string }> {
  const path = freshPath();
  const db = await openMigratedDatabase({ url: `file:${path}` });
  opened.push(db.$client);
  return { db, path };
}

/** The error a statement was refused with (fails the test when it was not refused). */
async function refusal(promise: Promise<unknown>): Promise<LibsqlError> {
  const outcome = await promise.then(() => null, (error: unknown) => error);
  if (outcome === null) throw new Error("the statement was not refused");
  if (!(outcome instanceof LibsqlError)) throw new Error(`refused with something other than a LibsqlError: ${outcome}`);
  return outcome;
}

function single(result: ResultSet): unknown {
  return result.rows[0][0];
}

describe("rows", () => {
  test("a row reads by column index and by column name, has a length, and its keys, spread and JSON are the named columns only", async () => {
    const client = localClient();
    await client.executeMultiple("CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER)");
    await client.execute("INSERT INTO people (name, age) VALUES ('Ada', 36), ('Grace', NULL)");

    const result = await client.execute("SELECT id, name, age FROM people ORDER BY id");
    expect(result.columns).toEqual(["id", "name", "age"]);
    expect(result.rows).toHaveLength(2);
    const [ada, grace] = result.rows;
    expect([ada[0], ada[1], ada[2]]).toEqual([1, "Ada", 36]);
    expect([ada.id, ada.name, ada.age]).toEqual([1, "Ada", 36]);
    expect(ada.length).toBe(3);
    expect(Array.prototype.slice.call(ada)).toEqual([1, "Ada", 36]);
    expect(Object.keys(ada)).toEqual(["id", "name", "age"]);
    expect({ ...ada }).toEqual({ id: 1, name: "Ada", age: 36 });
    expect(JSON.stringify(grace)).toBe('{"id":2,"name":"Grace","age":null}');
  });

  test("when two columns share a name (a join's two ids) the name gives the first, the index each", async () => {
    const client = localClient();
    await client.executeMultiple(`
      CREATE TABLE parents (id INTEGER PRIMARY KEY, name TEXT);
      CREATE TABLE children (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parents (id));
      INSERT INTO parents (id, name) VALUES (10, 'p');
      INSERT INTO children (id, parent_id) VALUES (20, 10);
    `);
    const [row] = (await client.execute(
      "SELECT parents.id, children.id, name FROM parents JOIN children ON children.parent_id = parents.id",
    )).rows;
    expect([row[0], row[1], row[2]]).toEqual([10, 20, "p"]);
    expect(row.length).toBe(3);
    expect(row.id).toBe(10);
    expect(Object.keys(row)).toEqual(["id", "name"]);
  });

  test("a column named length or like an index reads by index only, as with @libsql/client; the others by name", async () => {
    const client = localClient();
    const [row] = (await client.execute('SELECT 7 AS length, 8 AS "0", 9 AS x')).rows;
    expect(row.x).toBe(9);
    expect(row.length).toBe(3);
    expect([row[0], row[1], row[2]]).toEqual([7, 8, 9]);
    expect(Object.keys(row)).toEqual(["x"]);
  });

  test("answers what @libsql/client answers for the same statements on the same file", async () => {
    const path = freshPath();
    const client = localClient({}, path);
    await client.executeMultiple(`
      CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL);
      CREATE TABLE u (id INTEGER PRIMARY KEY, t_id INTEGER REFERENCES t (id));
      INSERT INTO t (name, score) VALUES ('x', 1.5), ('y', NULL);
      INSERT INTO u (t_id) VALUES (1), (1), (2);
    `);
    const plain = createClient({ url: `file:${path}` });
    opened.push(plain);
    const statements = [
      "SELECT * FROM t ORDER BY id",
      "SELECT t.id, u.id, name FROM t JOIN u ON u.t_id = t.id ORDER BY u.id",
      "SELECT count(*), 1.0, NULL, 'a' || 'b' AS ab, typeof(score) FROM t",
      "PRAGMA table_info(t)",
      "UPDATE u SET t_id = 2 WHERE t_id = 2",
      "SELECT * FROM t WHERE id = 404",
    ];
    for (const statement of statements) {
      const mine = await client.execute(statement);
      const theirs = await plain.execute(statement);
      expect(mine.columns, statement).toEqual(theirs.columns);
      expect(mine.columnTypes, statement).toEqual(theirs.columnTypes);
      expect(mine.rows.map((row) => Array.from(row)), statement).toEqual(theirs.rows.map((row) => Array.from(row)));
      expect(mine.rows.map((row) => ({ ...row })), statement).toEqual(theirs.rows.map((row) => ({ ...row })));
      expect(mine.rowsAffected, statement).toBe(theirs.rowsAffected);
    }
    // A write reports what it changed, and the row it inserted.
    const inserted = await client.execute({ sql: "INSERT INTO t (name) VALUES (?)", args: ["z"] });
    expect(inserted.rowsAffected).toBe(1);
    expect(inserted.lastInsertRowid).toBe(3n);
    expect(inserted.rows).toEqual([]);
    // … RETURNING answers rows like a SELECT.
    const returned = await client.execute({ sql: "INSERT INTO t (name) VALUES (?) RETURNING id, name", args: ["w"] });
    expect(returned.rows.map((row) => ({ ...row }))).toEqual([{ id: 4, name: "w" }]);
  });

  test("arguments bind by position and by name (with :, @ or $)", async () => {
    const client = localClient();
    expect({ ...(await client.execute({ sql: "SELECT ? AS a, ? AS b", args: ["one", 2] })).rows[0] }).toEqual({
      a: "one",
      b: 2,
    });
    const named = await client.execute({
      sql: "SELECT :a AS a, @b AS b, $c AS c",
      args: { a: "x", "@b": 1, $c: null },
    });
    expect({ ...named.rows[0] }).toEqual({ a: "x", b: 1, c: null });
    expect({ ...(await client.execute("SELECT ? AS yes, ? AS no", [true, false])).rows[0] }).toEqual({ yes: 1, no: 0 });
    const when = new Date("2024-05-06T07:08:09.010Z");
    expect(single(await client.execute("SELECT ?", [when]))).toBe(when.valueOf());
    await expect(client.execute("SELECT ?", [Number.NaN])).rejects.toThrow(RangeError);
  });
});

describe("integers and blobs", () => {
  test("an integer beyond 2^53 raises a RangeError when read; up to 2^53 - 1 it reads as a number", async () => {
    const client = localClient();
    await client.executeMultiple("CREATE TABLE big (n INTEGER)");
    expect(single(await client.execute("SELECT 9007199254740991"))).toBe(Number.MAX_SAFE_INTEGER);
    expect(single(await client.execute("SELECT -9007199254740991"))).toBe(Number.MIN_SAFE_INTEGER);
    await expect(client.execute("SELECT 9007199254740992")).rejects.toThrow(RangeError);
    await expect(client.execute("SELECT -9007199254740993")).rejects.toThrow(RangeError);
    await client.execute("INSERT INTO big (n) VALUES (4611686018427387904)");
    await expect(client.execute("SELECT n FROM big")).rejects.toThrow(RangeError);
    // Nothing is lost: it reads fine as text.
    expect(single(await client.execute("SELECT CAST(n AS TEXT) FROM big"))).toBe("4611686018427387904");
  });

  test("bigint arguments bind as integers, up to 64 bits and exactly", async () => {
    const client = localClient();
    await client.executeMultiple("CREATE TABLE big (n INTEGER)");
    expect({ ...(await client.execute("SELECT ? AS n, typeof(?) AS type", [5n, 5n])).rows[0] }).toEqual({
      n: 5,
      type: "integer",
    });
    await client.execute({ sql: "INSERT INTO big (n) VALUES (?)", args: [2n ** 62n + 1n] });
    expect({ ...(await client.execute("SELECT typeof(n) AS type, CAST(n AS TEXT) AS text FROM big")).rows[0] })
      .toEqual({ type: "integer", text: "4611686018427387905" });
    expect(single(await client.execute("SELECT count(*) FROM big WHERE n = ?", [2n ** 62n + 1n]))).toBe(1);
    expect(single(await client.execute("SELECT count(*) FROM big WHERE n = ?", [2n ** 62n]))).toBe(0);
    await expect(client.execute("SELECT ?", [2n ** 63n])).rejects.toThrow(RangeError);
  });

  test("blobs written as an ArrayBuffer or a Uint8Array (even a view into a larger buffer) read back as an ArrayBuffer of exactly those bytes", async () => {
    const client = localClient();
    await client.executeMultiple("CREATE TABLE files (name TEXT PRIMARY KEY, content BLOB)");
    const bytes = [0, 1, 2, 127, 128, 254, 255, 0];
    const larger = new Uint8Array([9, 9, 9, ...bytes, 9, 9]);
    const written = {
      "array-buffer": new Uint8Array(bytes).buffer,
      "uint8array": new Uint8Array(bytes),
      "view": larger.subarray(3, 3 + bytes.length),
      "empty": new ArrayBuffer(0),
    };
    for (const [name, content] of Object.entries(written)) {
      await client.execute({ sql: "INSERT INTO files (name, content) VALUES (?, ?)", args: [name, content] });
    }
    const rows =
      (await client.execute("SELECT name, content, typeof(content) AS type, length(content) AS size FROM files")).rows;
    expect(rows).toHaveLength(4);
    for (const row of rows) {
      expect(row.content, String(row.name)).toBeInstanceOf(ArrayBuffer);
      expect(row.type).toBe("blob");
      const expected = row.name === "empty" ? [] : bytes;
      expect(row.size).toBe(expected.length);
      expect([...new Uint8Array(row.content as unknown as ArrayBuffer)], String(row.name)).toEqual(expected);
    }
    // The bytes compare equal in SQL too, when bound again.
    expect(single(await client.execute("SELECT count(*) FROM files WHERE content = ?", [new Uint8Array(bytes)]))).toBe(
      3,
    );
  });
});

describe("errors and the statement cache", () => {
  test("errors are LibsqlErrors with SQLite's code, as @libsql/client reports them", async () => {
    const path = freshPath();
    const client = localClient({}, path);
    await client.executeMultiple("CREATE TABLE names (name TEXT UNIQUE)");
    await client.execute("INSERT INTO names (name) VALUES ('taken')");
    const plain = createClient({ url: `file:${path}` });
    opened.push(plain);
    for (const statement of ["INSERT INTO names (name) VALUES ('taken')", "SELEC 1", "SELECT * FROM nowhere"]) {
      const mine = await refusal(client.execute(statement));
      const theirs = await refusal(plain.execute(statement));
      expect(mine.code, statement).toBe(theirs.code);
      expect(mine.extendedCode, statement).toBe(theirs.extendedCode);
      expect(mine.message, statement).toBe(theirs.message);
    }
    const duplicate = await refusal(client.execute("INSERT INTO names (name) VALUES ('taken')"));
    expect(duplicate.code).toBe("SQLITE_CONSTRAINT");
    expect(duplicate.message).toContain("UNIQUE constraint failed: names.name");
  });

  test("a statement that failed runs again successfully with other arguments (the cached statement is reused)", async () => {
    const client = localClient();
    await client.executeMultiple("CREATE TABLE names (name TEXT UNIQUE)");
    const insert = "INSERT INTO names (name) VALUES (?)";
    await client.execute(insert, ["ada"]);
    expect((await refusal(client.execute(insert, ["ada"]))).code).toBe("SQLITE_CONSTRAINT");
    expect((await client.execute(insert, ["grace"])).rowsAffected).toBe(1);
    expect((await refusal(client.execute(insert, ["grace"]))).code).toBe("SQLITE_CONSTRAINT");
    expect((await client.execute(insert, ["edsger"])).rowsAffected).toBe(1);
    expect((await client.execute("SELECT name FROM names ORDER BY name")).rows.map((row) => row.name)).toEqual([
      "ada",
      "edsger",
      "grace",
    ]);

    // A statement that returns rows and fails while running them, then runs fine.
    const parse = "SELECT json(?) AS parsed";
    expect((await refusal(client.execute(parse, ["not json"]))).message).toMatch(/malformed JSON/);
    expect((await client.execute(parse, ['{"a": 1}'])).rows[0].parsed).toBe('{"a":1}');
  });

  test("with a cache of only two statements, many different statements still answer correctly", async () => {
    const client = localClient({ statementCacheSize: 2 });
    await client.executeMultiple("CREATE TABLE items (id INTEGER PRIMARY KEY, label TEXT NOT NULL)");
    for (let round = 0; round < 5; round++) {
      // Six shapes in turn (every one evicted before its next use), then two alternating (cache hits).
      for (let shape = 0; shape < 6; shape++) {
        const result = await client.execute(`SELECT ? + ${shape} AS v${shape}, '${shape}' AS tag${shape}`, [
          round * 10,
        ]);
        expect(Object.keys(result.rows[0])).toEqual([`v${shape}`, `tag${shape}`]);
        expect([result.rows[0][0], result.rows[0][1]]).toEqual([round * 10 + shape, String(shape)]);
      }
      await client.execute("INSERT INTO items (label) VALUES (?)", [`item-${round}`]);
      const labels = await client.execute("SELECT label FROM items ORDER BY id");
      expect(labels.rows.map((row) => row.label)).toEqual(Array.from({ length: round + 1 }, (_, i) => `item-${i}`));
      expect(single(await client.execute("SELECT count(*) FROM items"))).toBe(round + 1);
    }
  });

  test("after executeMultiple changes the schema, SELECT * (prepared before the change) shows the new column", async () => {
    const client = localClient();
    await client.executeMultiple(
      "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('hello')",
    );
    expect((await client.execute("SELECT * FROM notes")).columns).toEqual(["id", "body"]);

    await client.executeMultiple("ALTER TABLE notes ADD COLUMN author TEXT NOT NULL DEFAULT 'anonymous'");

    const result = await client.execute("SELECT * FROM notes");
    expect(result.columns).toEqual(["id", "body", "author"]);
    expect({ ...result.rows[0] }).toEqual({ id: 1, body: "hello", author: "anonymous" });
    expect(result.rows[0].length).toBe(3);
  });

  test("after another connection changes the schema, SELECT * prepared before shows the new column", async () => {
    const path = freshPath();
    const client = localClient({}, path);
    const other = localClient({}, path);
    await client.executeMultiple("CREATE TABLE a (id INTEGER PRIMARY KEY); INSERT INTO a (id) VALUES (1)");
    expect((await client.execute("SELECT * FROM a")).columns).toEqual(["id"]);
    await other.execute("ALTER TABLE a ADD COLUMN extra TEXT DEFAULT 'e'");
    const after = await client.execute("SELECT * FROM a");
    expect(after.columns).toEqual(["id", "extra"]);
    expect(after.rows[0].extra).toBe("e");
  });

  test("after migrate changes the schema, SELECT * shows the new column", async () => {
    const client = localClient();
    await client.executeMultiple(
      "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('hello')",
    );
    expect((await client.execute("SELECT * FROM notes")).columns).toEqual(["id", "body"]);
    await client.migrate([{ sql: "ALTER TABLE notes ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0" }]);
    const result = await client.execute("SELECT * FROM notes");
    expect(result.columns).toEqual(["id", "body", "pinned"]);
    expect({ ...result.rows[0] }).toEqual({ id: 1, body: "hello", pinned: 0 });
    // migrate turns foreign keys off for its statements only.
    expect(single(await client.execute("PRAGMA foreign_keys"))).toBe(1);
  });
});

describe("transactions", () => {
  async function notesTable(): Promise<
    { client: LocalClient; bodies: (on: Client | Transaction) => Promise<unknown[]> }
  > {
    const client = localClient();
    await client.executeMultiple("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT UNIQUE)");
    const bodies = async (on: Client | Transaction) =>
      (await on.execute("SELECT body FROM notes ORDER BY id")).rows.map((row) => row.body);
    return { client, bodies };
  }

  test("a commit keeps the rows; until then reads outside the transaction do not see them", async () => {
    const { client, bodies } = await notesTable();
    const tx = await client.transaction("write");
    await tx.execute("INSERT INTO notes (body) VALUES ('committed')");
    expect(await bodies(tx)).toEqual(["committed"]);
    expect(await bodies(client)).toEqual([]);
    await tx.commit();
    expect(tx.closed).toBe(true);
    expect(await bodies(client)).toEqual(["committed"]);
    expect((await refusal(tx.execute("SELECT 1"))).code).toBe("TRANSACTION_CLOSED");
  });

  test("a rollback, or closing without committing, leaves nothing; the transaction then refuses statements", async () => {
    const { client, bodies } = await notesTable();
    const rolledBack = await client.transaction("write");
    await rolledBack.execute("INSERT INTO notes (body) VALUES ('rolled back')");
    await rolledBack.rollback();
    expect(rolledBack.closed).toBe(true);
    expect((await refusal(rolledBack.execute("SELECT 1"))).code).toBe("TRANSACTION_CLOSED");

    const closed = await client.transaction("write");
    await closed.execute("INSERT INTO notes (body) VALUES ('closed')");
    closed.close();
    expect(closed.closed).toBe(true);
    expect((await refusal(closed.batch(["SELECT 1"]))).code).toBe("TRANSACTION_CLOSED");

    expect(await bodies(client)).toEqual([]);
    // The connections went back to the pool in a usable state.
    const next = await client.transaction("write");
    await next.execute("INSERT INTO notes (body) VALUES ('next')");
    await next.commit();
    expect(await bodies(client)).toEqual(["next"]);
  });

  test("a failed statement does not end the transaction: what came before it still commits", async () => {
    const { client, bodies } = await notesTable();
    const tx = await client.transaction("write");
    await tx.execute("INSERT INTO notes (body) VALUES ('first')");
    expect((await refusal(tx.execute("INSERT INTO notes (body) VALUES ('first')"))).code).toBe("SQLITE_CONSTRAINT");
    expect(tx.closed).toBe(false);
    await tx.execute("INSERT INTO notes (body) VALUES ('second')");
    await tx.commit();
    expect(await bodies(client)).toEqual(["first", "second"]);
  });

  test("a batch is all or nothing, and the client stays usable after a failed one", async () => {
    const { client, bodies } = await notesTable();
    const results = await client.batch(["INSERT INTO notes (body) VALUES ('a')", {
      sql: "SELECT count(*) AS n FROM notes",
      args: [],
    }], "write");
    expect(results[1].rows[0].n).toBe(1);
    const failed = await refusal(client.batch([
      "INSERT INTO notes (body) VALUES ('b')",
      "INSERT INTO notes (body) VALUES ('a')",
    ], "write"));
    expect(failed.code).toBe("SQLITE_CONSTRAINT");
    expect(await bodies(client)).toEqual(["a"]);
    await client.execute("INSERT INTO notes (body) VALUES ('c')");
    expect(await bodies(client)).toEqual(["a", "c"]);
  });

  test("a closed client refuses statements with CLIENT_CLOSED", async () => {
    const client = localClient();
    expect(single(await client.execute("SELECT 1"))).toBe(1);
    client.close();
    expect(client.closed).toBe(true);
    expect((await refusal(client.execute("SELECT 1"))).code).toBe("CLIENT_CLOSED");
    expect((await refusal(client.transaction("write"))).code).toBe("CLIENT_CLOSED");
  });
});

describe("one write connection, read connections beside it (decision 012)", () => {
  async function notes(options: LocalClientOptions = {}) {
    const client = localClient(options);
    await client.executeMultiple("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)");
    const bodies = async (on: Client | Transaction = client) =>
      (await on.execute("SELECT body FROM notes ORDER BY id")).rows.map((row) => row.body);
    return { client, bodies };
  }

  test("a read transaction cannot write (SQLite refuses it there); the same write sent to the client runs on the write connection", async () => {
    const { client, bodies } = await notes();
    const reader = await client.transaction("read");
    try {
      const refused = await refusal(reader.execute("INSERT INTO notes (body) VALUES ('through a reader')"));
      expect(refused.code).toBe("SQLITE_READONLY");
    } finally {
      reader.close();
    }
    const written = await client.execute("INSERT INTO notes (body) VALUES ('through the client')");
    expect(written.rowsAffected).toBe(1);
    // … and again, now known as a write by its text.
    await client.execute("INSERT INTO notes (body) VALUES ('through the client')");
    expect(await bodies()).toEqual(["through the client", "through the client"]);
  });

  test("write transactions started together run one at a time, in the order they asked", async () => {
    const { client, bodies } = await notes();
    let running = 0;
    let mostAtOnce = 0;
    await Promise.all(Array.from({ length: 12 }, async (_, i) => {
      const tx = await client.transaction("write");
      running++;
      mostAtOnce = Math.max(mostAtOnce, running);
      await tx.execute({ sql: "INSERT INTO notes (body) VALUES (?)", args: [`turn ${i}`] });
      // Others get their chance to run meanwhile, and must not.
      await new Promise((resolve) => setTimeout(resolve, 1));
      running--;
      await tx.commit();
    }));
    expect(mostAtOnce).toBe(1);
    expect(await bodies()).toEqual(Array.from({ length: 12 }, (_, i) => `turn ${i}`));
  });

  test("while a write transaction is open, reads on the client answer at once, from what was committed", async () => {
    const { client, bodies } = await notes();
    await client.execute("INSERT INTO notes (body) VALUES ('committed')");
    const tx = await client.transaction("write");
    try {
      await tx.execute("INSERT INTO notes (body) VALUES ('not yet')");
      expect(await bodies()).toEqual(["committed"]);
      expect(await bodies(tx)).toEqual(["committed", "not yet"]);
    } finally {
      await tx.commit();
    }
    expect(await bodies()).toEqual(["committed", "not yet"]);
  });

  test("a write through the client while this process's write transaction is open fails after the turn limit, naming the likely cause; the next write goes through", async () => {
    const { client, bodies } = await notes({ turnLimitMs: 200 });
    const tx = await client.transaction("write");
    await tx.execute("INSERT INTO notes (body) VALUES ('in the transaction')");
    await expect(client.execute("INSERT INTO notes (body) VALUES ('through the client')")).rejects.toThrow(
      /waited 200 ms for its turn\. The usual cause: a write made through the database \(db\.…\) inside a transaction's callback/,
    );
    await tx.commit();
    await client.execute("INSERT INTO notes (body) VALUES ('afterwards')");
    expect(await bodies()).toEqual(["in the transaction", "afterwards"]);
  });

  test("executeMultiple runs every statement of the text, semicolons inside strings and triggers included", async () => {
    const { client, bodies } = await notes();
    await client.executeMultiple(`
      CREATE TABLE audit (n INTEGER NOT NULL);
      INSERT INTO audit VALUES (0);
      CREATE TRIGGER counted AFTER INSERT ON notes BEGIN UPDATE audit SET n = n + 1; END;
      INSERT INTO notes (body) VALUES ('one; two');
    `);
    expect(await bodies()).toEqual(["one; two"]);
    expect(single(await client.execute("SELECT n FROM audit"))).toBe(1);
  });
});

describe("connection settings", () => {
  test("onOpen runs on every connection the pool opens, not only the first", async () => {
    // Settings that differ from libsql's defaults, so that a connection without them shows.
    const client = localClient({
      onOpen: ["PRAGMA journal_mode = WAL", "PRAGMA cache_size = -1234", "PRAGMA foreign_keys = OFF"],
    });
    await client.executeMultiple("CREATE TABLE t (id INTEGER PRIMARY KEY)");
    const held: Transaction[] = [await client.transaction("write")];
    for (let i = 0; i < 3; i++) held.push(await client.transaction("read"));
    try {
      for (const tx of held) {
        expect(single(await tx.execute("PRAGMA cache_size"))).toBe(-1234);
        expect(single(await tx.execute("PRAGMA foreign_keys"))).toBe(0);
      }
      expect(single(await client.execute("PRAGMA cache_size"))).toBe(-1234);
    } finally {
      for (const tx of held) tx.close();
    }
  });

  // libsql's own defaults are foreign_keys=1 and synchronous=2 already; this guards against a
  // connection that lost them (the one migrate ran on turns foreign keys off for the migration).
  test("in a database opened with openDatabase, every connection of the pool has foreign keys on, synchronous=FULL and WAL", async () => {
    const { db } = await portalDatabase();
    // Four transactions at once: four connections, opened at different times.
    const held: Transaction[] = [await db.$client.transaction("write")];
    for (let i = 0; i < 3; i++) held.push(await db.$client.transaction("read"));
    try {
      for (const tx of held) {
        expect(single(await tx.execute("PRAGMA foreign_keys"))).toBe(1);
        expect(single(await tx.execute("PRAGMA synchronous"))).toBe(2);
        expect(single(await tx.execute("PRAGMA journal_mode"))).toBe("wal");
      }
      // While the write transaction holds its connection, a read on the client runs on yet another.
      expect(single(await db.$client.execute("PRAGMA foreign_keys"))).toBe(1);
      expect(single(await db.$client.execute("PRAGMA synchronous"))).toBe(2);
      // The write transaction's connection refuses a session of a user that does not exist.
      const orphan = await refusal(held[0].execute({
        sql:
          "INSERT INTO sessions (id, user_id, created_at, last_seen_at, expires_at) VALUES ('s-orphan', 404, 0, 0, 0)",
      }));
      expect(orphan.code).toBe("SQLITE_CONSTRAINT");
      expect(orphan.message).toContain("FOREIGN KEY constraint failed");
    } finally {
      for (const tx of held) tx.close();
    }
  });

  test("in a database opened with openDatabase, while a transaction holds one connection, a write on the client runs on another and still refuses a dangling foreign key", async () => {
    const { db } = await portalDatabase();
    const [user] = await db.insert(users).values({ username: "fk-owner@example.com" }).returning({ id: users.id });
    const sessionOf = (id: string, userId: number) => ({
      sql: "INSERT INTO sessions (id, user_id, created_at, last_seen_at, expires_at) VALUES (?, ?, 0, 0, 0)",
      args: [id, userId],
    });
    const reader = await db.$client.transaction("read");
    try {
      // The reader's snapshot starts here.
      expect(single(await reader.execute("SELECT count(*) FROM sessions"))).toBe(0);

      const refused = await refusal(db.$client.execute(sessionOf("s-dangling", user.id + 1000)));
      expect(refused.code).toBe("SQLITE_CONSTRAINT");
      expect(refused.message).toContain("FOREIGN KEY constraint failed");

      await db.$client.execute(sessionOf("s-valid", user.id));
      // The valid one committed on another connection: the client sees it, the reader's snapshot does not.
      expect((await db.select({ id: sessions.id }).from(sessions)).map((row) => row.id)).toEqual(["s-valid"]);
      expect(single(await reader.execute("SELECT count(*) FROM sessions"))).toBe(0);
    } finally {
      reader.close();
    }
  });
});

describe("Drizzle over the local client", async () => {
  const { db, path } = await portalDatabase();
  const plainClient = createClient({ url: `file:${path}` });
  opened.push(plainClient);
  const plain = drizzle(plainClient) as unknown as Database;

  const [admin] = await db.insert(users).values({ username: "admin@example.com", level: "Admin", validated: true })
    .returning();
  const [ada, grace] = await db.insert(users).values([
    { username: "ada@example.com", affiliate: "partner" },
    { username: "grace@example.com", type: "Business", totpLastStep: 42 },
  ]).returning();
  const [reviewed, instant] = await db.insert(accounts).values([
    {
      accountRef: "LC1",
      type: "Personal",
      name: "Ada's account",
      openedAt: new Date(1_700_000_000_123),
      openedBy: admin.id,
    },
    { accountRef: "LC2", type: "Business", name: "Grace's company", openedAt: new Date(1_700_000_100_456) },
  ]).returning();
  await db.insert(accountMembers).values([
    { accountId: reviewed.id, userId: ada.id, role: "owner", createdAt: new Date(1_700_000_000_000) },
    { accountId: instant.id, userId: grace.id, role: "owner", createdAt: new Date(1_700_000_000_000) },
    { accountId: instant.id, userId: ada.id, role: "viewer", createdAt: new Date(1_700_000_200_000) },
  ]);

  const opener = alias(users, "opener");
  const queries: Record<string, (d: Database) => Promise<unknown>> = {
    "every column of a table": (d) => d.select().from(users).orderBy(asc(users.id)),
    "chosen fields, with computed ones": (d) =>
      d.select({
        id: users.id,
        name: users.username,
        shout: sql<string>`upper(${users.username})`,
        isAdmin: sql<boolean>`${users.level} = 'Admin'`.mapWith(Boolean),
      }).from(users).orderBy(desc(users.id)),
    "two joins, every table with an id": (d) =>
      d.select().from(accountMembers)
        .innerJoin(accounts, eq(accountMembers.accountId, accounts.id))
        .innerJoin(users, eq(accountMembers.userId, users.id))
        .orderBy(asc(accountMembers.accountId), asc(accountMembers.userId)),
    "an aliased left join, partly empty": (d) =>
      d.select({ account: accounts, opener: { id: opener.id, username: opener.username } })
        .from(accounts).leftJoin(opener, eq(accounts.openedBy, opener.id)).orderBy(asc(accounts.id)),
    "one row with get()": (d) => d.select().from(accounts).where(eq(accounts.accountRef, "LC2")).get(),
    "no row with get()": (d) => d.select().from(accounts).where(eq(accounts.accountRef, "nowhere")).get(),
    "a count per group": (d) =>
      d.select({ accountId: accountMembers.accountId, members: count() }).from(accountMembers)
        .groupBy(accountMembers.accountId).orderBy(asc(accountMembers.accountId)),
    "a selection of columns": (d) =>
      d.select({ id: users.id, username: users.username, createdAt: users.createdAt, validated: users.validated })
        .from(users).where(eq(users.level, "User")).orderBy(asc(users.id)),
    "raw SQL with db.all": (d) => d.all(sql`SELECT id, username FROM users ORDER BY id`),
    "an insert … returning": (d) =>
      d.insert(users).values({
        username: `returning-${d === db ? "local" : "plain"}@example.com`,
        createdAt: new Date(5),
      })
        .returning({ createdAt: users.createdAt, level: users.level, restricted: users.restricted }),
  };

  test.each(Object.keys(queries))("%s: the same result as through @libsql/client", async (name) => {
    const mine = await queries[name](db);
    const theirs = await queries[name](plain);
    expect(mine).toEqual(theirs);
  });

  test("the results are the rows written, with their types (dates, booleans, nulls)", async () => {
    const rows = await queries["an aliased left join, partly empty"](db);
    expect(rows).toEqual([
      { account: reviewed, opener: { id: admin.id, username: "admin@example.com" } },
      { account: instant, opener: null },
    ]);
    expect(reviewed.openedAt).toEqual(new Date(1_700_000_000_123));
    const joined = await queries["two joins, every table with an id"](db) as Array<
      { accounts: { id: number }; users: { id: number; validated: boolean } }
    >;
    expect(joined.map((row) => [row.accounts.id, row.users.id])).toEqual([[reviewed.id, ada.id], [instant.id, ada.id], [
      instant.id,
      grace.id,
    ]]);
    expect(joined[0].users.validated).toBe(false);
    expect(await queries["one row with get()"](db)).toEqual(instant);
    expect(await queries["no row with get()"](db)).toBeUndefined();
    expect(await queries["a count per group"](db)).toEqual([{ accountId: reviewed.id, members: 1 }, {
      accountId: instant.id,
      members: 2,
    }]);
    expect(await queries["chosen fields, with computed ones"](db)).toContainEqual({
      id: admin.id,
      name: "admin@example.com",
      shout: "ADMIN@EXAMPLE.COM",
      isAdmin: true,
    });
  });
});

describe("db/sql.ts", async () => {
  const db = await testDatabase();
  await db.$client.executeMultiple("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  const bodies = async (on: Parameters<typeof rowsOf>[0]) =>
    (await rowsOf<{ body: string }>(on, "SELECT body FROM notes ORDER BY id")).map((row) => row.body);

  test("under the database, sqlRunner is the database's client; under a transaction, that transaction (savepoints included)", async () => {
    expect(sqlRunner(db)).toBe(db.$client);
    await db.transaction(async (tx) => {
      const runner = sqlRunner(tx);
      expect(runner).not.toBe(db.$client);
      await tx.transaction((inner) => {
        expect(sqlRunner(inner)).toBe(runner);
        return Promise.resolve();
      });
    });
    expect(() => sqlRunner({} as Database)).toThrow(/sqlRunner/);
  });

  test("run inside a transaction is seen by rowsOf on the transaction, not on the database until the commit", async () => {
    let seen: { inside: string[]; outside: string[] } | undefined;
    await db.transaction(async (tx) => {
      expect(await run(tx, "INSERT INTO notes (body) VALUES (?), (?)", ["committed-1", "committed-2"])).toBe(2);
      seen = { inside: await bodies(tx), outside: await bodies(db) };
    });
    expect(seen).toEqual({ inside: ["committed-1", "committed-2"], outside: [] });
    expect(await bodies(db)).toEqual(["committed-1", "committed-2"]);
    await run(db, "DELETE FROM notes");
  });

  test("what run wrote in a transaction that throws is gone", async () => {
    const failure = db.transaction(async (tx) => {
      await run(tx, "INSERT INTO notes (body) VALUES (?)", ["thrown away"]);
      expect(await bodies(tx)).toEqual(["thrown away"]);
      throw new Error("the work gave up");
    });
    await expect(failure).rejects.toThrow("the work gave up");
    expect(await bodies(db)).toEqual([]);
  });

  test("in a nested transaction (a savepoint) too: seen inside, not outside; rolled back alone when it throws", async () => {
    const seen: Record<string, string[]> = {};
    await db.transaction(async (tx) => {
      await run(tx, "INSERT INTO notes (body) VALUES ('outer')");
      await tx.transaction(async (inner) => {
        await run(inner, "INSERT INTO notes (body) VALUES ('kept savepoint')");
        seen.keptInner = await bodies(inner);
        seen.keptOutside = await bodies(db);
      });
      await expect(tx.transaction(async (inner) => {
        await run(inner, "INSERT INTO notes (body) VALUES ('dropped savepoint')");
        seen.droppedInner = await bodies(inner);
        throw new Error("the savepoint gave up");
      })).rejects.toThrow("the savepoint gave up");
      seen.afterDrop = await bodies(tx);
    });
    expect(seen).toEqual({
      keptInner: ["outer", "kept savepoint"],
      keptOutside: [],
      droppedInner: ["outer", "kept savepoint", "dropped savepoint"],
      afterDrop: ["outer", "kept savepoint"],
    });
    expect(await bodies(db)).toEqual(["outer", "kept savepoint"]);
    await run(db, "DELETE FROM notes");
  });

  test("rowOf answers the one row (or undefined) of a lookup or an INSERT … RETURNING, on the database and in a transaction", async () => {
    const inserted = await rowOf<{ id: number; body: string }>(
      db,
      "INSERT INTO notes (body) VALUES (?) RETURNING id, body",
      ["one row"],
    );
    expect(inserted?.body).toBe("one row");
    expect(await rowOf<{ body: string }>(db, "SELECT body FROM notes WHERE id = ?", [inserted!.id])).toEqual({
      body: "one row",
    });
    expect(await rowOf(db, "SELECT body FROM notes WHERE id = ?", [-1])).toBeUndefined();
    await expect(db.transaction(async (tx) => {
      const row = await rowOf<{ id: number }>(tx, "INSERT INTO notes (body) VALUES (?) RETURNING id", ["rolled back"]);
      expect(await rowOf(tx, "SELECT id FROM notes WHERE id = ?", [row!.id])).toEqual({ id: row!.id });
      expect(await rowOf(db, "SELECT id FROM notes WHERE id = ?", [row!.id]), "not seen outside before the commit")
        .toBeUndefined();
      throw new Error("undo");
    })).rejects.toThrow("undo");
    expect(await bodies(db)).not.toContain("rolled back");
  });

  test("a write through rowOf on the database waits for an open write transaction, like any write", async () => {
    const tx = await db.$client.transaction("write");
    await tx.execute({ sql: "INSERT INTO notes (body) VALUES ('first, in the transaction')" });
    let written = false;
    const outside = rowOf(db, "INSERT INTO notes (body) VALUES ('second, after the commit') RETURNING id").then(
      () => (written = true),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(written, "the write waits for its turn").toBe(false);
    await tx.commit();
    await outside;
    const all = await bodies(db);
    expect(all.indexOf("first, in the transaction")).toBeLessThan(all.indexOf("second, after the commit"));
  });

  test("preparedQuery builds a query once per database and answers for each placeholder value", async () => {
    const other = await testDatabase();
    let builds = 0;
    const userByName = preparedQuery((d) => {
      builds++;
      return d.select({ id: users.id, username: users.username }).from(users)
        .where(eq(users.username, sql.placeholder("username"))).prepare();
    });
    const [ada] = await db.insert(users).values({ username: "prepared-ada@example.com" }).returning({ id: users.id });
    const [grace] = await db.insert(users).values({ username: "prepared-grace@example.com" }).returning({
      id: users.id,
    });
    const [elsewhere] = await other.insert(users).values({ username: "prepared-elsewhere@example.com" }).returning({
      id: users.id,
    });

    const query = userByName(db);
    expect(userByName(db)).toBe(query);
    expect(builds).toBe(1);
    const otherQuery = userByName(other);
    expect(otherQuery).not.toBe(query);
    expect(userByName(other)).toBe(otherQuery);
    expect(builds).toBe(2);

    expect(await query.all({ username: "prepared-ada@example.com" })).toEqual([{
      id: ada.id,
      username: "prepared-ada@example.com",
    }]);
    expect(await query.get({ username: "prepared-grace@example.com" })).toEqual({
      id: grace.id,
      username: "prepared-grace@example.com",
    });
    expect(await query.all({ username: "prepared-ada@example.com" })).toEqual([{
      id: ada.id,
      username: "prepared-ada@example.com",
    }]);
    expect(await query.all({ username: "nobody@example.com" })).toEqual([]);
    expect(await query.all({ username: "prepared-elsewhere@example.com" })).toEqual([]);
    expect(await otherQuery.get({ username: "prepared-elsewhere@example.com" })).toEqual({
      id: elsewhere.id,
      username: "prepared-elsewhere@example.com",
    });
    expect(await otherQuery.get({ username: "prepared-ada@example.com" })).toBeUndefined();
  });
});
