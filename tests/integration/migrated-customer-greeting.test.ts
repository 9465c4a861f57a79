import { beforeAll, describe, expect, test, vi } from "vitest";
import { JobRunner } from "../../server/jobs/runner.ts";
import { migrationJob } from "../../server/migrations/job.ts";
import {
  type Admin,
  createAdmin,
  emailedToken,
  expectStatus,
  PASSWORD,
  signIn,
  signinApp,
  TestClient,
  uniqueEmail,
} from "../helpers/client.ts";
import { testJobDeps } from "../helpers/jobs.ts";

/**
 * A customer a migration created (decision 049) who has not saved a profile yet is named by their
 * migration line everywhere (decision 065), the signed-in header included: it greets them by the
 * line's name, not by their email address.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

type App = Awaited<ReturnType<typeof signinApp>>;
let t: App;
let admin: Admin;
const email = uniqueEmail("legacy");

beforeAll(async () => {
  t = await signinApp();
  admin = await createAdmin(t);
  const csv = [
    "legacy_id,email,type,first_name,last_name,country",
    `L-${crypto.randomUUID().slice(0, 8)},${email},Personal,Wilhelmina,Okafor,GB`,
  ].join("\r\n");
  const upload = await admin.client.request("POST", "console/migrations?dry_run=false&file_name=customers.csv", csv, {
    "content-type": "text/csv",
  });
  expectStatus(upload, 201);
  await new JobRunner({ db: t.db, jobs: [migrationJob], deps: await testJobDeps(t.db), now: t.clock.now }).drain();
});

/** The page's header (the user menu and its greeting), before the screen itself. */
const headerOf = (html: string) => html.slice(html.indexOf("<header"), html.indexOf("</header>"));

describe("a migrated customer without a profile, signed in", () => {
  test("is named in the header by their migration line's name, not their address", async () => {
    const { token } = await emailedToken(t.db, email, "migration-welcome");
    const browser = new TestClient(t);
    expectStatus(await browser.post("auth/forgot/reset", { username: email, token, password: PASSWORD }), 200);
    const signedIn = await signIn(browser, email, PASSWORD);
    expect(signedIn.json.body).toMatchObject({ profile: false, name: "Wilhelmina Okafor" });
    // The one page of the signed-in layout they reach before giving their profile.
    const page = await browser.get("/account/security");
    expect(page.status).toBe(200);
    const header = headerOf(page.text);
    expect(header).toContain("Wilhelmina Okafor");
    expect(header).not.toContain(email);
  });
});
