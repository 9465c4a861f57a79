import { test, expect } from "vitest";
import { testApp } from "../helpers/app.ts";
import { TestClient, TestClock, registerCustomer, completeOnboarding, createAdmin, signIn } from "../helpers/client.ts";
import { latestEmail } from "../helpers/mailbox.ts";

test("smoke", async () => {
  const clock = new TestClock();
  const t = await testApp({ sessions: "database", now: clock.now, env: { TRUST_PROXY: "1" } });
  const c = await registerCustomer(t, { type: "Personal" });
  console.log((await latestEmail(t.db, c.email))?.text);
  const who = await c.client.get("account/whoami");
  console.log(who.json, c.client.last?.setCookies);
  const conf = await completeOnboarding(c);
  console.log(conf.json);
  console.log((await latestEmail(t.db, c.email))?.text);
  const admin = await createAdmin(t);
  console.log(admin);
  const res = await admin.client.get("/auth");
  console.log(res.status, res.headers.get("location"));
});
