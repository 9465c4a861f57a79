import type { Context } from "hono";
import { Hono } from "hono";
import * as calls from "../../lib/contracts/migrations.ts";
import type { AppEnv } from "../../server/env.ts";
import { InvalidFields } from "../../server/errors.ts";
import { ApiError } from "../../server/http/api.ts";
import { reply, route } from "../../server/http/route.ts";
import { listMigrationRuns, migrationRunWithRows, uploadMigration } from "../../server/migrations/service.ts";

/** The console's customer migrations (issue 11 item 8, decision 049). */

export const migrationCalls = new Hono<AppEnv>();

const now = (c: Context<AppEnv>) => new Date(c.get("services").now());

export const NOT_CSV = "Send the file as the request body, with the header Content-Type: text/csv.";
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The file is the body itself, as CSV in UTF-8: not JSON, so the contract has no body schema. */
async function csvBody(c: Context<AppEnv>): Promise<string> {
  const [type, ...parameters] = (c.req.header("content-type") ?? "").split(";").map((p) => p.trim().toLowerCase());
  const utf8Charset = parameters.every((p) => !p.startsWith("charset=") || /^charset="?utf-8"?$/.test(p));
  if (type !== "text/csv" || !utf8Charset) throw new ApiError(415, NOT_CSV);
  try {
    return utf8.decode(await c.req.arrayBuffer());
  } catch {
    // A 422 naming the file, as every other file that cannot be read (server/migrations/file.ts).
    throw new InvalidFields("The file is not UTF-8 text: save it from the spreadsheet as CSV UTF-8.", {
      file: "not UTF-8",
    });
  }
}

route(migrationCalls, calls.uploadMigration, async (c, { query }, answer) => {
  const csv = await csvBody(c);
  const run = await uploadMigration(
    c.get("db"),
    { adminId: c.get("user")!.id, csv, fileName: query.file_name || "customers.csv", dryRun: query.dry_run },
    now(c),
    (tx, made) => answer.storeWith(tx, made),
  );
  return reply(run, { status: 201 });
});

route(migrationCalls, calls.listMigrations, (c, { query }) => listMigrationRuns(c.get("db"), query));

route(
  migrationCalls,
  calls.getMigration,
  (c, { params, query }) => migrationRunWithRows(c.get("db"), params.id, query),
);
