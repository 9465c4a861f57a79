import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, test } from "vitest";
import { type Database, openDatabase } from "../../db/client.ts";
import { dataVersions } from "../../db/schema.ts";
import { pricingPlans } from "../../db/schema-money.ts";
import { planBody } from "../../lib/contracts/console-money.ts";
import { registerPages } from "../../routes/pages.tsx";
import { DataVersions, TOPICS, VERSIONS_MAX_AGE_MS } from "../../server/data-versions.ts";
import { refreshRates } from "../../server/money/rate-feed.ts";
import { INDICATIVE_RATES } from "../../server/money/rates.ts";
import { createPlan, defaultPlan, replacePlan } from "../../server/money/plans.ts";
import { saveRates } from "../../server/money/store.ts";
import { PageCache } from "../../server/render/page-cache.ts";
import { createAdministrator } from "../../server/auth/setup.ts";
import { makeUser, testApp } from "../helpers/app.ts";
import { TestClock } from "../helpers/client.ts";

/**
 * Public pages are rendered once and kept while the data they show is unchanged (decision 015).
 * The database keeps a version per topic, moved by triggers whoever writes: an administrator's
 * call, the rate feed, a script or another process on the same database. This process reads the
 * versions at most once a second, and at once after a request of its own that may have written.
 */

type App = Awaited<ReturnType<typeof testApp>>;
let t: App;
let clock: TestClock;
/** A second connection to the app's database file: what a script or a second server would use. */
let script: Database;
/** How many times the fixture page below, which shows the rates only, was rendered. */
let renders = 0;

beforeAll(async () => {
  clock = new TestClock();
  t = await testApp({ now: clock.now });
  // Hono builds its router at the first request: the fixture page is added before.
  registerPages(t.app, [{
    path: "/__rates-only",
    title: "Rates only",
    publicCache: { shows: ["rates"] },
    render: () => <p>{`render ${++renders}`}</p>,
  }], new PageCache(new DataVersions(t.db, clock.now)));
  const [file] = (await t.db.$client.execute("SELECT file FROM pragma_database_list WHERE name = 'main'")).rows;
  script = await openDatabase({ url: `file:${file.file}` });
  return () => script.$client.close();
});

async function versionOf(db: Database, topic: string): Promise<number> {
  const [row] = await db.select().from(dataVersions).where(eq(dataVersions.topic, topic));
  return row.version;
}

/** What the public calculator page shows a visitor: its rates line and the fee of its first quote. */
async function calculator() {
  const res = await t.app.request("/calculator");
  expect(res.status).toBe(200);
  const html = await res.text();
  return {
    rates: /Rates as of [^<]*/.exec(html)?.[0],
    fee: /Fee<\/dt><dd[^>]*>([^<]*)<\/dd>/.exec(html)?.[1],
  };
}

const ratesOf = (as_of: string) => ({ ...INDICATIVE_RATES, as_of, source: "admin" });

/** The administrator a script's plan changes are audited as (created once). */
let administratorId: number | undefined;
async function scriptAdministrator(): Promise<number> {
  if (administratorId === undefined) {
    const created = await createAdministrator(script, "script-admin@example.com", "script admin password 1");
    if (typeof created !== "number") throw new Error(`No administrator: ${created}`);
    administratorId = created;
  }
  return administratorId;
}

/** The default plan with some changes, as the console would send it. */
async function defaultPlanWith(changes: Record<string, unknown>) {
  const plan = await defaultPlan(script);
  return { id: Number(plan.id), body: planBody.parse({ ...plan, ...changes }) };
}

describe("the versions the database keeps", () => {
  test("every topic a cached page may show has a version", async () => {
    const rows = await t.db.select().from(dataVersions);
    expect(rows.map((row) => row.topic).sort()).toEqual([...TOPICS].sort());
  });

  test("any write to a topic's table moves its version, whoever makes it", async () => {
    const rates = await versionOf(t.db, "rates");
    await saveRates(script, ratesOf("2026-01-05"), null);
    expect(await versionOf(t.db, "rates")).toBe(rates + 1);

    const plans = await versionOf(t.db, "pricing-plans");
    const created = await createPlan(
      script,
      (await defaultPlanWith({ name: "Wholesale" })).body,
      await scriptAdministrator(),
      new Date(),
    );
    await script.update(pricingPlans).set({ name: "Wholesale 2" }).where(eq(pricingPlans.id, Number(created.id)));
    await script.delete(pricingPlans).where(eq(pricingPlans.id, Number(created.id)));
    expect(await versionOf(t.db, "pricing-plans")).toBe(plans + 3);
    // Rates do not move with plans.
    expect(await versionOf(t.db, "rates")).toBe(rates + 1);
  });

  test("a write that is rolled back leaves the version where it was", async () => {
    const before = await versionOf(t.db, "rates");
    await expect(t.db.transaction(async (tx) => {
      await tx.run(
        sql`INSERT INTO rate_tables (base, as_of, source, rates, created_at) VALUES ('EUR', '2026-01-06', 'admin', '{}', 0)`,
      );
      throw new Error("changed my mind");
    })).rejects.toThrow("changed my mind");
    expect(await versionOf(t.db, "rates")).toBe(before);
  });
});

describe("the cached calculator follows the rates and plans, wherever they change", () => {
  test("a script's rates reach it within a second, with no request to this process in between", async () => {
    const before = await calculator();
    await saveRates(script, ratesOf("2026-02-10"), null);
    // Within the second the kept page is served without asking the database.
    expect(await calculator()).toEqual(before);
    clock.advance(VERSIONS_MAX_AGE_MS);
    expect((await calculator()).rates).toBe("Rates as of 2026-02-10 (admin)");
  });

  test("the rate feed's rates reach it the same way", async () => {
    const xml = `<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" ` +
      `xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref"><Cube><Cube time="2026-02-11">` +
      `<Cube currency="USD" rate="1.1000"/><Cube currency="GBP" rate="0.9000"/></Cube></Cube></gesmes:Envelope>`;
    const feed = (() => Promise.resolve(new Response(xml))) as unknown as typeof fetch;
    expect(await refreshRates(t.db, "https://ecb.test/daily.xml", feed, new Date(clock.now()))).toBe("updated");
    clock.advance(VERSIONS_MAX_AGE_MS);
    expect((await calculator()).rates).toBe("Rates as of 2026-02-11 (ecb)");
  });

  test("a script's change to the default plan's fees reaches it the same way", async () => {
    expect((await calculator()).fee).toBe("1.00 GBP");
    const { fees } = await defaultPlan(script);
    const plan = await defaultPlanWith({ fees: { ...fees, GBP: { regular: "3.00", priority: "7.00" } } });
    await replacePlan(script, plan.id, plan.body, await scriptAdministrator(), new Date());
    clock.advance(VERSIONS_MAX_AGE_MS);
    expect((await calculator()).fee).toBe("3.00 GBP");
  });
});

describe("a kept page is rendered again only when what it shows changed", () => {
  const visit = async () => (await (await t.app.request("/__rates-only")).text()).match(/render \d+/)?.[0];

  test("visitors get the page rendered once", async () => {
    expect(await visit()).toBe("render 1");
    expect(await visit()).toBe("render 1");
  });

  test("a change to a topic it does not show keeps it", async () => {
    const plan = await defaultPlanWith({ name: "Standard (renamed)" });
    await replacePlan(script, plan.id, plan.body, await scriptAdministrator(), new Date());
    clock.advance(VERSIONS_MAX_AGE_MS);
    expect(await visit()).toBe("render 1");
  });

  test("a change to a topic it shows renders it again, once", async () => {
    await saveRates(script, ratesOf("2026-02-12"), null);
    clock.advance(VERSIONS_MAX_AGE_MS);
    expect(await visit()).toBe("render 2");
    expect(await visit()).toBe("render 2");
  });

  test("a signed-in visitor always gets it rendered for them", async () => {
    t.signIn(makeUser());
    try {
      expect(await visit()).toBe("render 3");
      expect(await visit()).toBe("render 4");
    } finally {
      t.signIn(null);
    }
  });
});
