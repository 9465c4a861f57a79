/** A business account for the end-to-end files, opened as a customer and the compliance desk would. */
import { businessProfile } from "./client.ts";
import type { E2e } from "./e2e-fixtures.ts";
import { lastEmailId, okBody, type Requester, signInThroughPages, tokenOf, waitForEmail } from "./e2e-mail.ts";
import { ensureAdministrator, todayUtc } from "./e2e-money.ts";
import { newPage } from "./browser.ts";

/**
 * A Business customer through the API (the sign-in tests cover those screens) whose account an
 * administrator (`admin`, made if missing) opens after the review. `request` keeps the owner's session.
 * Answers the account_ref.
 */
export async function openBusinessThroughApi(
  { server, db, browser }: E2e,
  request: Requester,
  who: { email: string; password: string },
  admin: { email: string; password: string },
): Promise<string> {
  const base = server.url;
  const mark = await lastEmailId(db);
  await okBody(
    "auth/register",
    await request.post(`${base}/api/auth/register`, { data: { ...who, type: "Business" } }),
  );
  const mail = await waitForEmail(db, who.email, { template: "email-validation", after: mark });
  const link = /https?:\/\/\S+/.exec(mail.text)![0];
  // Registration answers only the address (decision 023); the validated session says who it is.
  const registered = await okBody<{ id: number }>(
    "validate",
    await request.post(`${base}/api/validation/validate`, { data: { token: tokenOf(link) } }),
  );
  await okBody("profile", await request.post(`${base}/api/account/profile`, { data: businessProfile() }));
  await okBody("sandbox", await request.post(`${base}/api/sumsub/sandbox`, { data: { answer: "GREEN" } }));
  await okBody("confirm", await request.get(`${base}/api/sumsub/confirm`));

  const desk = await newPage(browser);
  await ensureAdministrator(desk.page.request, base, admin);
  await signInThroughPages(desk.page, db, base, admin.email, admin.password);
  const opened = await okBody<{ account_ref: string }>(
    "open-account",
    await desk.page.request.post(`${base}/api/console/users/${registered.id}/open-account`, {
      data: { compliance: { done: true, amount: "250000", date: todayUtc() } },
    }),
  );
  await desk.context.close();
  return opened.account_ref;
}
