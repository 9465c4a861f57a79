import { eq } from "drizzle-orm";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, onTestFinished, test, vi } from "vitest";
import { openDatabase } from "../../db/client.ts";
import { jobs } from "../../db/schema-jobs.ts";
import { startServerOn } from "../helpers/http-customer.ts";
import type { RunningServer } from "../helpers/server.ts";

/**
 * The portal (main.ts) stopped with SIGTERM while a job runs: the job's handler is aborted and the
 * job given back (queued, its attempt not counted), and the next start finishes it. The job is the
 * ECB feed, which the portal queues at its first start, reading from a feed that answers only when
 * the test says.
 */

vi.setConfig({ testTimeout: 180_000 });

/** A start of the portal may take long on a loaded machine (it is a full process). */
const STARTUP_MS = 60_000;

const XML = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
  <gesmes:subject>Reference rates</gesmes:subject>
  <gesmes:Sender><gesmes:name>European Central Bank</gesmes:name></gesmes:Sender>
  <Cube><Cube time="2026-11-24"><Cube currency="USD" rate="1.16"/><Cube currency="GBP" rate="0.87"/></Cube></Cube>
</gesmes:Envelope>`;

test("SIGTERM gives a running job back, and the next start finishes it", async () => {
  let holding = true;
  const { promise: asked, resolve: feedAsked } = Promise.withResolvers<void>();
  // Let go only when the test ends, so that the feed can shut down.
  const { promise: testEnded, resolve: endTest } = Promise.withResolvers<void>();
  const feed = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async () => {
    feedAsked();
    // While holding, the answer never comes: the reading is in flight when the portal stops.
    if (holding) await testEnded;
    return new Response(XML, { headers: { "content-type": "text/xml" } });
  });
  const env = {
    APP_ENV: "test",
    APP_SECRET: crypto.randomUUID(),
    RATES_URL: `http://127.0.0.1:${feed.addr.port}/daily.xml`,
  };
  const dataDir = mkdtempSync(join(tmpdir(), "portal-jobs-"));
  let server: RunningServer = await startServerOn(dataDir, "main.ts", env, STARTUP_MS);
  // When the test ends (an afterAll registered inside a test never runs, decision 035: the portal
  // was left running after every run).
  onTestFinished(async () => {
    await server.stop();
    endTest();
    await feed.shutdown().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  });
  const db = await openDatabase({ url: `file:${join(dataDir, "portal.db")}` });
  onTestFinished(() => db.$client.close());
  const feedJob = async () => (await db.select().from(jobs).where(eq(jobs.kind, "rates.ecb_feed")))[0];

  await asked;
  expect(await feedJob()).toMatchObject({ status: "running", attempts: 1 });

  server.process.kill("SIGTERM");
  const { code } = await server.process.status;
  expect(code, server.output()).toBe(0);
  const released = await feedJob();
  expect(released).toMatchObject({ status: "queued", attempts: 0, leaseOwner: null, leaseExpiresAt: null });
  expect(released.runAfter.getTime()).toBeLessThanOrEqual(Date.now());

  holding = false;
  server = await startServerOn(dataDir, "main.ts", env, STARTUP_MS);
  await vi.waitFor(async () => expect(await feedJob()).toMatchObject({ status: "succeeded", attempts: 1 }), {
    timeout: 60_000,
    interval: 100,
  });
  expect((await db.select().from(jobs).where(eq(jobs.kind, "rates.ecb_feed"))).length).toBe(1);
});
