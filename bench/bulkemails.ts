/**
 * A bulk email to 10,000 customers through a local SMTP server (docs/PERFORMANCE.md, "Bulk emails";
 * issue 11, decision 050):
 *
 *   deno task bench --only bulkemails
 *
 * 1. A portal of its own (main.ts, production, a fresh database), its job runner sending at
 *    BULK_EMAIL_RATE=500 (above the budget, so the throttle does not decide the figure), to a real
 *    SMTP server (smtp-server) in this process; its administrator made over HTTP; 10,000 customers
 *    written straight into the tables.
 * 2. The email written and sent over HTTP; while it is sent, a console page (the email's own page,
 *    HTML, as an administrator opens it) and its progress call are asked in turn, every 100 ms:
 *    their answer times while the portal sends are the console's responsiveness (p95 printed).
 * 3. The rate is the recipients over the time from the send to its finish, as the server recorded
 *    them; PASS when at least 200 mails a second and each customer received exactly one mail.
 */
import { openDatabase } from "../db/client.ts";
import { insertCustomers } from "../tests/helpers/bulk-customers.ts";
import { createAdminOverHttp } from "../tests/helpers/http-customer.ts";
import { startSmtp } from "../tests/helpers/smtp.ts";
import { startPortal } from "./lib/processes.ts";
import { type BenchContext, type BenchModule, fmt, percentile, type SummaryRow, table } from "./lib/report.ts";

const RECIPIENTS = 10_000;
const MIN_PER_SECOND = 200;
const RATE = 500;

export const bulkEmailsBench: BenchModule = {
  name: "bulkemails",
  async run(ctx: BenchContext) {
    const smtp = await startSmtp();
    const portal = await startPortal({
      name: "portal for bulk emails (main.ts)",
      cpuProfileDir: ctx.options.cpuProfileDir,
      env: { SMTP_URL: smtp.url, BULK_EMAIL_RATE: String(RATE) },
    });
    const rows: SummaryRow[] = [];
    try {
      const db = await openDatabase({ url: `file:${portal.databasePath}` });
      let cookie: string;
      let people: { email: string }[];
      try {
        const admin = await createAdminOverHttp(portal.url, db);
        cookie = admin.session.cookieHeader();
        const started = performance.now();
        people = await insertCustomers(db, RECIPIENTS, { prefix: "bench" });
        console.log(`seeded ${fmt(RECIPIENTS)} customers in ${fmt((performance.now() - started) / 1000, 1)} s`);
      } finally {
        db.$client.close();
      }
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${portal.url}${path}`, {
          method,
          headers: { Cookie: cookie, Accept: "application/json", "Content-Type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const json = await res.json();
        if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
        return json.body;
      };
      const draft = await call("POST", "/api/console/bulkemails", {
        subject: "Better rates, {{first_name}}",
        body: "Hello {{name}},\n\nOur euro rates are better this week.\n\nThe Portal team",
        segment: {},
      });
      const sent = await call("POST", `/api/console/bulkemails/${draft.id}/send`);
      if (sent.counts.total !== RECIPIENTS) throw new Error(`${sent.counts.total} recipients, not ${RECIPIENTS}`);

      // The console while it sends: the email's page and its progress, in turn, one at a time.
      const pageTimes: number[] = [];
      const callTimes: number[] = [];
      let email = sent;
      const wall = performance.now();
      while (email.status !== "done" && email.status !== "failed") {
        // Ten administrators' worth of asking (the page's island asks once a second), not a flood
        // that would itself be the load.
        await new Promise((resolve) => setTimeout(resolve, 100));
        let t0 = performance.now();
        const page = await fetch(`${portal.url}/console/bulkemails/${draft.id}`, { headers: { Cookie: cookie } });
        await page.text();
        if (page.status !== 200) throw new Error(`The console page answered ${page.status}`);
        pageTimes.push(performance.now() - t0);
        t0 = performance.now();
        email = await call("GET", `/api/console/bulkemails/${draft.id}`);
        callTimes.push(performance.now() - t0);
        if (performance.now() - wall > 300_000) throw new Error("The bulk email took more than 5 minutes.");
      }
      if (email.status === "failed") throw new Error(`The send failed: ${email.error}`);
      const seconds = (Date.parse(email.finished_at) - Date.parse(email.sent_at)) / 1000;
      const perSecond = RECIPIENTS / seconds;
      const received = smtp.perRecipient();
      const once = people.filter((p) => received.get(p.email) === 1).length;
      pageTimes.sort((a, b) => a - b);
      callTimes.sort((a, b) => a - b);
      const load = Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
      console.log(table(
        ["recipients", "seconds", "mails/s", "received once", "page p50 ms", "page p95 ms", "call p95 ms", "samples"],
        [[
          fmt(RECIPIENTS),
          fmt(seconds, 1),
          fmt(perSecond),
          fmt(once),
          fmt(percentile(pageTimes, 50), 1),
          fmt(percentile(pageTimes, 95), 1),
          fmt(percentile(callTimes, 95), 1),
          fmt(pageTimes.length),
        ]],
      ));
      console.log(`load average: ${load}`);
      rows.push(
        {
          metric: `bulk email to ${fmt(RECIPIENTS)} through local SMTP (throttle ${RATE}/s), each received once`,
          value: `${fmt(perSecond)} mails/s`,
          budget: { limit: `≥ ${MIN_PER_SECOND}/s`, pass: perSecond >= MIN_PER_SECOND && once === RECIPIENTS },
        },
        {
          metric: "console page (the bulk email's, HTML) while sending: p95",
          value: `${fmt(percentile(pageTimes, 95), 1)} ms`,
        },
        {
          metric: "console progress call while sending: p95",
          value: `${fmt(percentile(callTimes, 95), 1)} ms`,
        },
      );
    } finally {
      await portal.stop();
      await smtp.close();
    }
    return { name: "bulkemails", rows };
  },
};
