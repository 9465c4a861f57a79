import { expect, test } from "vitest";
import { redirects } from "../../db/schema.ts";
import { testDatabase } from "../helpers/db.ts";

test("concurrent write transactions in one process all commit, and a failing one leaves nothing", async () => {
  const db = await testDatabase();
  const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) =>
    db.transaction(async (tx) => {
      await tx.insert(redirects).values({ path: `/a${i}`, target: "/" });
      // Other work happens while the transaction is open: reads, and other requests' writes.
      await new Promise((resolve) => setTimeout(resolve, 2));
      await db.select().from(redirects).limit(1);
      await tx.insert(redirects).values({ path: `/b${i}`, target: "/" });
      if (i === 7) throw new Error("refused half-way");
    })));
  const plainWrites = await Promise.allSettled(
    Array.from({ length: 10 }, (_, i) => db.insert(redirects).values({ path: `/c${i}`, target: "/" })),
  );
  expect(outcomes.filter((o) => o.status === "rejected")).toHaveLength(1);
  expect(plainWrites.every((o) => o.status === "fulfilled")).toBe(true);
  const paths = (await db.select({ path: redirects.path }).from(redirects)).map((r) => r.path);
  expect(paths).toHaveLength(19 * 2 + 10);
  expect(paths).not.toContain("/a7");
});
