/**
 * Splits an SQL text into its statements: `executeMultiple` on the local client runs them one after
 * the other, each waiting for another process's lock on its own (db/local-client.ts); the test Hrana
 * server refuses two statements in one `execute` (SQL_MANY_STATEMENTS, as libSQL's server does,
 * where the local binding would silently run the first only) and runs a `sequence` statement by
 * statement.
 *
 * A small lexer: quoted strings and identifiers ('…', "…", `…`, […]) and comments (-- and /* *\/)
 * never end a statement; inside CREATE TRIGGER the body's own semicolons do not either, until the
 * END that follows one of them (SQLite's sqlite3_complete() draws the line the same way).
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let words: string[] = [];
  // The significant tokens just before the current one, for "; END ;" inside a trigger.
  let previous = "";
  let beforePrevious = "";
  let significant = false;

  const endStatement = (end: number) => {
    if (significant) statements.push(sql.slice(start, end).trim());
    start = end + 1;
    words = [];
    previous = beforePrevious = "";
    significant = false;
  };
  const token = (value: string) => {
    beforePrevious = previous;
    previous = value;
    significant = true;
  };
  const inTrigger = () =>
    words[0] === "CREATE" &&
    (words[1] === "TRIGGER" || (/^TEMP(ORARY)?$/.test(words[1] ?? "") && words[2] === "TRIGGER"));

  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (/\s/.test(c)) {
      i++;
    } else if (c === "-" && sql[i + 1] === "-") {
      const newline = sql.indexOf("\n", i);
      i = newline === -1 ? sql.length : newline + 1;
    } else if (c === "/" && sql[i + 1] === "*") {
      const close = sql.indexOf("*/", i + 2);
      i = close === -1 ? sql.length : close + 2;
    } else if (c === "'" || c === '"' || c === "`" || c === "[") {
      const closing = c === "[" ? "]" : c;
      let j = i + 1;
      for (;;) {
        const found = sql.indexOf(closing, j);
        if (found === -1) {
          j = sql.length;
          break;
        }
        // A doubled quote is an escaped one (not for […], which has no escape).
        if (closing !== "]" && sql[found + 1] === closing) {
          j = found + 2;
          continue;
        }
        j = found + 1;
        break;
      }
      token("literal");
      i = j;
    } else if (c === ";") {
      if (!inTrigger() || (previous === "END" && beforePrevious === ";")) endStatement(i);
      else token(";");
      i++;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < sql.length && /[A-Za-z0-9_$]/.test(sql[j])) j++;
      const word = sql.slice(i, j).toUpperCase();
      if (words.length < 3) words.push(word);
      token(word);
      i = j;
    } else {
      token(c);
      i++;
    }
  }
  endStatement(sql.length);
  return statements;
}
