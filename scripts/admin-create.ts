/**
 * deno task admin:create EMAIL: creates an administrator without a browser (headless installs).
 * The password comes from ADMIN_PASSWORD, or is asked for at the prompt.
 */
import { openDatabase } from "../db/client.ts";
import { createAdministrator } from "../server/auth/setup.ts";
import { loadConfig } from "../server/config.ts";
import { migratePortal } from "../server/migrate.ts";

const email = Deno.args[0];
if (!email || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) {
  console.error("Usage: deno task admin:create EMAIL   (password from ADMIN_PASSWORD or the prompt)");
  Deno.exit(2);
}
const password = Deno.env.get("ADMIN_PASSWORD") ?? prompt("Password for the administrator (8 to 128 characters):") ??
  "";

const config = loadConfig();
const db = await openDatabase({ url: config.databaseUrl, authToken: config.databaseAuthToken });
// A tool that migrates runs every step after the migrations too, or a portal started later with
// MIGRATE_ON_START=0 would find the migrations applied and the data steps never run.
await migratePortal(db);
const result = await createAdministrator(db, email, password, { by: "deno task admin:create" });
db.$client.close();
if (typeof result === "number") {
  console.log(`Administrator ${email.trim().toLowerCase()} created (id ${result}). Sign in on the home page.`);
} else {
  console.error(result === "exists" ? "An administrator already exists." : result);
  Deno.exit(1);
}
