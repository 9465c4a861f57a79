import { expect, test } from "vitest";
import { splitStatements } from "../../db/sql-text.ts";

test("statements are split at their semicolons, without the blank and comment-only ones", () => {
  expect(splitStatements("CREATE TABLE a (id INTEGER); INSERT INTO a VALUES (1);\n\n-- done\n;")).toEqual([
    "CREATE TABLE a (id INTEGER)",
    "INSERT INTO a VALUES (1)",
  ]);
  expect(splitStatements("SELECT 1")).toEqual(["SELECT 1"]);
  expect(splitStatements("  ;  -- nothing\n /* at all */ ")).toEqual([]);
});

test("a semicolon inside a string, a quoted name or a comment does not end a statement", () => {
  const sql = [
    "INSERT INTO notes (body) VALUES ('one; two', 'it''s; fine')",
    `SELECT "odd;name", \`odd;too\`, [odd;three] FROM t`,
    "SELECT 1 /* a; comment */ + 1 -- and; another\n",
  ].join(";\n");
  expect(splitStatements(sql)).toEqual([
    "INSERT INTO notes (body) VALUES ('one; two', 'it''s; fine')",
    `SELECT "odd;name", \`odd;too\`, [odd;three] FROM t`,
    "SELECT 1 /* a; comment */ + 1 -- and; another",
  ]);
});

test("a trigger's body keeps its semicolons; the trigger ends at the END after one of them (a CASE's END does not)", () => {
  const trigger = `CREATE TRIGGER guard BEFORE UPDATE ON ledger_entries
BEGIN
  SELECT CASE WHEN 1 THEN RAISE(ABORT, 'entries are never changed; post a correction') END;
  UPDATE audit SET n = n + 1;
END`;
  expect(splitStatements(`${trigger};\nSELECT 2;`)).toEqual([trigger, "SELECT 2"]);
  expect(splitStatements(`create temp trigger t after insert on a begin select 1; end; select 3`)).toEqual([
    "create temp trigger t after insert on a begin select 1; end",
    "select 3",
  ]);
});
