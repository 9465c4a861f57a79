import { and, count, eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { migrationRows } from "../../db/schema-migrations.ts";
import { auditLog, emails, profiles, users } from "../../db/schema.ts";
import { JobRunner } from "../../server/jobs/runner.ts";
import { migrationJob } from "../../server/migrations/job.ts";
import {
  type Admin,
  createAdmin,
  emailedToken,
  expectStatus,
  PASSWORD,
  registerCustomer,
  signIn,
  signinApp,
  TestClient,
  uniqueEmail,
} from "../helpers/client.ts";
import { testJobDeps } from "../helpers/jobs.ts";
import { mergeValues, recipientsData } from "../../server/bulkemails/recipients.ts";

/**
 * Customer migrations (issue 11 item 8, decision 049): an administrator uploads a CSV of legacy
 * customers; a dry run reports per line what would happen and changes nothing; a commit creates the
 * customers in a background job and emails each a link to choose a password; the same file again
 * creates nobody twice and mails nobody twice.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

type App = Awaited<ReturnType<typeof signinApp>>;
let t: App;
let admin: Admin;

beforeAll(async () => {
  t = await signinApp();
  admin = await createAdmin(t);
});

const HEADER = "legacy_id,email,type,first_name,last_name,company_name,phone,country,city,date_of_birth";

let legacy = 0;
/** A line of a valid Personal customer, with a legacy id and an address no one has. */
function person(email = uniqueEmail("legacy")) {
  return { legacyId: `L-${Date.now()}-${++legacy}`, email, line: "" };
}
const personLine = (p: { legacyId: string; email: string }) =>
  `${p.legacyId},${p.email},Personal,Ada,Lovelace,,+44 20 7946 0000,GB,London,1980-02-03`;

function upload(csv: string, dryRun: boolean, client = admin.client, headers: Record<string, string> = {}) {
  return client.request("POST", `console/migrations?dry_run=${dryRun}&file_name=customers.csv`, csv, {
    "content-type": "text/csv",
    ...headers,
  });
}

async function runJobs() {
  await new JobRunner({ db: t.db, jobs: [migrationJob], deps: await testJobDeps(t.db), now: t.clock.now }).drain();
}

const usersNamed = async (addresses: string[]) =>
  (await t.db.select({ n: count() }).from(users).where(inArray(users.username, addresses)))[0].n;
const mailsTo = async (address: string) =>
  (await t.db.select({ n: count() }).from(emails).where(
    and(eq(emails.to, address), eq(emails.template, "migration-welcome")),
  ))[0].n;

describe("a dry run", () => {
  test("reports per line what would happen, naming the column of each refusal, and creates nobody", async () => {
    const [a, b] = [person(), person()];
    const existing = await registerCustomer(t);
    const csv = [
      HEADER,
      personLine(a),
      personLine(b),
      `${person().legacyId},${existing.email},Personal,Grace,Hopper,,,US,,`,
      `${person().legacyId},not-an-email,Personal,Grace,Hopper,,,US,,`,
      `${person().legacyId},${uniqueEmail()},Corporate,Grace,Hopper,,,US,,`,
      `${person().legacyId},${uniqueEmail()},Business,,,,,US,,`,
      `${person().legacyId},${uniqueEmail()},Personal,Alan,Turing,,+44 1,GB,,`,
      `${person().legacyId},${uniqueEmail()},Personal,Alan,Turing,,,GBR,,`,
      `${person().legacyId},${a.email.toUpperCase()},Personal,Ada,Again,,,GB,,`,
    ].join("\n");
    const before = await t.db.select({ n: count() }).from(users);
    const res = await upload(csv, true);
    expectStatus(res, 201);
    const run = res.json.body;
    expect(run).toMatchObject({
      dry_run: true,
      status: "dry run",
      counts: { total: 9, created: 2, skipped: 2, refused: 5, emailed: 0 },
    });
    const page = await admin.client.get(`console/migrations/${run.id}?per_page=100`);
    expectStatus(page, 200);
    const byLine = Object.fromEntries(
      page.json.body.rows.items.map((r: { line: number }) => [r.line, r]),
    );
    expect(byLine[2]).toMatchObject({ outcome: "created", email: a.email, legacy_id: a.legacyId, customer_id: null });
    expect(byLine[4]).toMatchObject({ outcome: "skipped", field: "email" });
    expect(byLine[4].reason).toBe("email is the sign-in of someone here already (a customer, or one of our team).");
    expect(byLine[5]).toMatchObject({ outcome: "refused", field: "email" });
    expect(byLine[6]).toMatchObject({
      outcome: "refused",
      field: "type",
      reason: "type must be Personal or Business.",
    });
    expect(byLine[7]).toMatchObject({ outcome: "refused", field: "company_name" });
    expect(byLine[8]).toMatchObject({ outcome: "refused", field: "phone" });
    expect(byLine[9]).toMatchObject({ outcome: "refused", field: "country" });
    expect(byLine[10]).toMatchObject({ outcome: "skipped", field: "email", reason: "email is the same as on line 2." });

    // Nothing was created or mailed; no job was queued.
    await runJobs();
    expect((await t.db.select({ n: count() }).from(users))[0].n).toBe(before[0].n);
    expect(await usersNamed([a.email, b.email])).toBe(0);
    expect(await mailsTo(a.email)).toBe(0);
  });

  test("names each line as a spreadsheet numbers it, empty lines counted", async () => {
    const [a, b] = [person(), person()];
    const csv = [HEADER, personLine(a), "", "", `${b.legacyId},not-an-email,Personal,Ada,Lovelace,,,GB,,`].join("\n");
    const run = await upload(csv, true);
    expectStatus(run, 201);
    const lines = await admin.client.request("GET", `console/migrations/${run.json.body.id}`);
    // The header is line 1, the first customer line 2; lines 3 and 4 are empty.
    expect(lines.json.body.rows.items.map((row: { line: number; outcome: string }) => [row.line, row.outcome]))
      .toEqual([[2, "created"], [5, "refused"]]);
  });

  test("a file that is not the customers' file is refused whole, naming the column", async () => {
    const unknown = await upload(
      "legacy_id,email,type,country,favourite_colour\n1,a@example.com,Personal,GB,blue",
      true,
    );
    expectStatus(unknown, 422);
    expect(unknown.json.error).toMatch(/favourite_colour/);
    const missing = await upload("legacy_id,email,country\n1,a@example.com,GB", true);
    expectStatus(missing, 422);
    expect(missing.json.error).toBe('The file has no "type" column.');
    // Saved as Latin-1, not UTF-8: refused as every other unreadable file is, 422 naming the file.
    const latin1 = await admin.client.request(
      "POST",
      "console/migrations?dry_run=true",
      new Uint8Array([...new TextEncoder().encode(`${HEADER}\nL1,rene@example.com,Personal,Ren`), 0xe9]),
      { "content-type": "text/csv" },
    );
    expectStatus(latin1, 422);
    expect(latin1.json.fields).toEqual({ file: "not UTF-8" });
    // A header alone (a wrong export) is no run of nobody.
    const runs = (await admin.client.get("console/migrations")).json.body.total;
    const headerOnly = await upload(`${HEADER}\n\n`, false);
    expectStatus(headerOnly, 422);
    expect(headerOnly.json.fields).toEqual({ file: "no customer" });
    expect((await admin.client.get("console/migrations")).json.body.total).toBe(runs);
    // A column twice: which of its two values is the customer's? Refused, not the last one taken.
    const twice = await upload("legacy_id,email,type,country,email\n1,a@example.com,Personal,GB,b@example.com", true);
    expectStatus(twice, 422);
    expect(twice.json.error).toBe('The column "email" is in the header twice: keep one.');
    expect(twice.json.fields).toEqual({ email: "column twice" });
    // A spreadsheet's trailing empty header cell is named by its place, not as the column "".
    const unnamed = await upload("legacy_id,email,type,country,\n1,a@example.com,Personal,GB,", true);
    expectStatus(unnamed, 422);
    expect(unnamed.json.error).toBe(
      "Column 5 of the header has no name: give it one of legacy_id, email, type, first_name, last_name, " +
        "company_name, phone, country, address_line1, address_line2, city, postcode, date_of_birth, or delete it.",
    );
    const json = await admin.client.request("POST", "console/migrations?dry_run=true", { csv: "x" });
    expectStatus(json, 415);
    const noFlag = await upload(`${HEADER}\n`, undefined as unknown as boolean);
    expectStatus(noFlag, 422);
    expect(noFlag.json.fields).toHaveProperty("dry_run");
  });
});

describe("a file too long", () => {
  test("is refused once its lines pass the most a file may hold, without reading the rest", async () => {
    // A million short lines (2 MB): read whole, they kept every request waiting for most of a minute.
    const csv = `${HEADER}\n${"a\n".repeat(1_000_000)}`;
    const refused = await upload(csv, true);
    expectStatus(refused, 422);
    expect(refused.json.error).toBe("The file has more than 10000 customers: send at most 10000 in one file.");
    expect(refused.json.fields).toEqual({ file: "too many lines" });
  });
});

describe("a commit", () => {
  test("creates the customers in the background, emails each a set-password link, and the link works", async () => {
    const people = [person(), person(), person()];
    const csv = [HEADER, ...people.map(personLine)].join("\r\n");
    const res = await upload(csv, false);
    expectStatus(res, 201);
    expect(res.json.body).toMatchObject({ dry_run: false, status: "queued", counts: { created: 3 } });
    // The request created nobody: the job does.
    expect(await usersNamed(people.map((p) => p.email))).toBe(0);

    await runJobs();
    const done = await admin.client.get(`console/migrations/${res.json.body.id}`);
    expect(done.json.body).toMatchObject({
      status: "done",
      counts: { created: 3, emailed: 3, in_doubt: 0 },
      progress: { done: 6, total: 6 },
    });
    expect(
      done.json.body.rows.items.every((r: { customer_id: number | null; mail: string }) =>
        r.customer_id !== null && r.mail === "sent"
      ),
    ).toBe(true);
    expect(await usersNamed(people.map((p) => p.email))).toBe(3);
    const [made] = await t.db.select().from(users).where(eq(users.username, people[0].email));
    expect(made).toMatchObject({ type: "Personal", validated: true, passwordHash: null, level: "User" });
    // No profile yet: the customer gives it (filled in from the file) and passes the identity check.
    expect(await t.db.select().from(profiles).where(eq(profiles.userId, made.id))).toEqual([]);
    const audited = await t.db.select().from(auditLog).where(
      and(eq(auditLog.subjectId, made.id), eq(auditLog.action, "migration.customer")),
    );
    expect(audited).toHaveLength(1);
    expect(audited[0].actorId).toBe(admin.id);

    // The emailed link sets the password once; then the customer signs in.
    const { token } = await emailedToken(t.db, people[0].email, "migration-welcome");
    const browser = new TestClient(t);
    const set = await browser.post("auth/forgot/reset", { username: people[0].email, token, password: PASSWORD });
    expectStatus(set, 200);
    const again = await browser.post("auth/forgot/reset", { username: people[0].email, token, password: PASSWORD });
    expectStatus(again, 422);
    const signedIn = await signIn(browser, people[0].email, PASSWORD);
    expect(signedIn.json.body.id).toBe(made.id);
    // Onward to their profile, as every new customer: the identity check is theirs to pass.
    const auth = await browser.request("GET", "/auth");
    expect(auth.headers.get("location")).toBe("/register-personal");
    // The profile form starts from what the file said of them; they check it and answer the rest.
    const form = await browser.request("GET", "/register-personal");
    expectStatus(form, 200);
    expect(form.text).toContain("+442079460000");
    expect(form.text).toContain("1980-02-03");
    expect(form.text).toContain("Lovelace");
  });

  test("the same file again, or the same request again, creates nobody twice and mails nobody twice", async () => {
    const people = [person(), person()];
    const csv = [HEADER, ...people.map(personLine)].join("\n");
    const key = { "idempotency-key": crypto.randomUUID() };
    const first = await upload(csv, false, admin.client, key);
    const repeated = await upload(csv, false, admin.client, key);
    expectStatus(repeated, 201);
    expect(repeated.json.body.id).toBe(first.json.body.id);
    await runJobs();

    const rerun = await upload(csv, false);
    expectStatus(rerun, 201);
    expect(rerun.json.body.counts).toMatchObject({ created: 0, skipped: 2 });
    // Two commits of one file queued before either job ran: the second job finds them made.
    const third = [person(), person()];
    const twice = [HEADER, ...third.map(personLine)].join("\n");
    const a = await upload(twice, false);
    const b = await upload(twice, false);
    expect(a.json.body.counts.created).toBe(2);
    expect(b.json.body.counts.created).toBe(2);
    await runJobs();
    await runJobs();
    for (const p of [...people, ...third]) {
      expect(await usersNamed([p.email])).toBe(1);
      expect(await mailsTo(p.email)).toBe(1);
    }
    const second = await admin.client.get(`console/migrations/${b.json.body.id}`);
    expect(second.json.body).toMatchObject({ status: "done", counts: { created: 0, skipped: 2, emailed: 0 } });
    expect(second.json.body.rows.items[0].reason).toMatch(/here already|migrated already/);
    // A legacy id migrated once is skipped under another address too.
    const renamed = await upload(
      `${HEADER}\n${personLine({ legacyId: people[0].legacyId, email: uniqueEmail() })}`,
      true,
    );
    expect(renamed.json.body.counts).toMatchObject({ created: 0, skipped: 1 });
    const rows = await t.db.select().from(migrationRows).where(eq(migrationRows.legacyId, people[0].legacyId));
    expect(rows.filter((r) => r.userId !== null)).toHaveLength(1);
  });

  test("while a big file's customers are made and mailed, the portal goes on answering everyone else", async () => {
    // The job runs in the server's one process: if it never let other work in, every page and
    // call (even /api/health) waited until the last of 10,000 customers was made and mailed.
    const people = Array.from({ length: 450 }, () => person());
    expectStatus(await upload([HEADER, ...people.map(personLine)].join("\n"), false), 201);
    let running = true;
    let turns = 0;
    const otherWork = () => {
      turns++;
      if (running) setTimeout(otherWork, 0);
    };
    setTimeout(otherWork, 0);
    await runJobs();
    running = false;
    expect(await usersNamed(people.map((p) => p.email))).toBe(450);
    // Other work had a turn at least once per customer made and per customer mailed.
    expect(turns).toBeGreaterThanOrEqual(2 * 450);
  });

  test("a mail whose sending a crash interrupted is not sent again: it is reported as in doubt", async () => {
    const p = person();
    const res = await upload(`${HEADER}\n${personLine(p)}`, false);
    const runId = res.json.body.id;
    // The runner died after marking the mail begun and before marking it sent.
    const deps = await testJobDeps(t.db);
    const mailer = deps.services.mailer;
    let crashed = false;
    deps.services.mailer = {
      handOver: mailer.handOver,
      send: async (message) => {
        await mailer.send(message);
        crashed = true;
        throw new Error("the process died here");
      },
    };
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    await new JobRunner({ db: t.db, jobs: [migrationJob], deps, now: t.clock.now }).drain();
    quiet.mockRestore();
    expect(crashed).toBe(true);
    // The failed attempt is retried after its backoff (at most a minute).
    t.clock.advance(2 * 60 * 1000);
    await runJobs();
    const run = await admin.client.get(`console/migrations/${runId}`);
    expect(run.json.body).toMatchObject({ status: "done", counts: { created: 1, emailed: 0, in_doubt: 1 } });
    expect(run.json.body.rows.items[0].mail).toBe("in doubt");
    expect(await mailsTo(p.email)).toBe(1);
  });
});

describe("a migrated customer in the console", () => {
  test("is found by the name the file gave before saving a profile, and is no sign-up in the attributions", async () => {
    const day = `from=${t.clock.today()}&to=${t.clock.today()}`;
    const before = await admin.client.get(`console/attributions?${day}`);
    expectStatus(before, 200);
    const stem = `Quill${Date.now().toString(36)}`;
    const [ada, firm] = [person(), person()];
    const csv = [
      HEADER,
      `${ada.legacyId},${ada.email},Personal,Wilhelmina,${stem}feather,,+44 20 7946 0000,GB,London,1980-02-03`,
      `${firm.legacyId},${firm.email},Business,Ada,Lovelace,${stem} Holdings Ltd,+44 20 7946 0001,GB,London,1980-02-03`,
    ].join("\r\n");
    expectStatus(await upload(csv, false), 201);
    await runJobs();
    const idOf = async (email: string) =>
      (await t.db.select({ id: users.id }).from(users).where(eq(users.username, email)))[0].id;
    const [adaId, firmId] = [await idOf(ada.email), await idOf(firm.email)];
    expect(await t.db.select().from(profiles).where(inArray(profiles.userId, [adaId, firmId]))).toEqual([]);

    const found = async (q: string) =>
      (await admin.client.get(`console/users?q=${encodeURIComponent(q)}`)).json.body.items.map((c: { id: number }) =>
        c.id
      );
    expect(await found(`Wilhelmina ${stem}FEATHER`)).toEqual([adaId]);
    expect(await found(`${stem} holdings`)).toEqual([firmId]);

    // Named by the same names wherever the console and the bulk mails name them (decision 065).
    const named = async (q: string) =>
      (await admin.client.get(`console/users?q=${encodeURIComponent(q)}`)).json.body.items.map((c: { name: string }) =>
        c.name
      );
    expect(await named(ada.email)).toEqual([`Wilhelmina ${stem}feather`]);
    expect(await named(firm.email)).toEqual([`${stem} Holdings Ltd`]);
    const page = await admin.client.get(`/console/users/${adaId}`);
    expect(page.text).toContain(`Wilhelmina ${stem}feather</h1>`);
    const mails = await admin.client.get(`console/emails?q=${encodeURIComponent(ada.email)}`);
    expectStatus(mails, 200);
    expect(mails.json.body.items.map((m: { customer_name: string }) => m.customer_name)).toEqual([
      `Wilhelmina ${stem}feather`,
    ]);
    const merged = await recipientsData(t.db, [adaId, firmId]);
    expect(mergeValues(merged.get(adaId)!, "https://unsubscribe.example")).toMatchObject({
      name: `Wilhelmina ${stem}feather`,
      first_name: "Wilhelmina",
      email: ada.email,
    });
    expect(mergeValues(merged.get(firmId)!, "https://unsubscribe.example")).toMatchObject({
      name: `${stem} Holdings Ltd`,
      first_name: `${stem} Holdings Ltd`,
    });

    // Created today, but brought over, not signed up: the day's sign-ups are as they were.
    const after = await admin.client.get(`console/attributions?${day}`);
    expectStatus(after, 200);
    expect(after.json.body).toEqual(before.json.body);
  });
});

describe("the runs", () => {
  test("are listed newest first", async () => {
    const list = await admin.client.get("console/migrations?per_page=2");
    expectStatus(list, 200);
    expect(list.json.body.items).toHaveLength(2);
    expect(list.json.body.items[0].id).toBeGreaterThan(list.json.body.items[1].id);
    expect(list.json.body.total).toBeGreaterThan(2);
  });

  test("are invisible to customers: 404 for every call", async () => {
    const customer = await registerCustomer(t);
    expectStatus(await upload(`${HEADER}\n`, true, customer.client), 404);
    expectStatus(await customer.client.get("console/migrations"), 404);
    expectStatus(await customer.client.get("console/migrations/1"), 404);
  });
});
