import { type Context, Hono } from "hono";
import * as calls from "../../lib/contracts/partners.ts";
import type { AppEnv } from "../../server/env.ts";
import { InvalidInput } from "../../server/errors.ts";
import { reply, route } from "../../server/http/route.ts";
import {
  createPartner,
  listPartners,
  partnerDetail,
  setCustomerPartner,
  updatePartner,
} from "../../server/partners/partners.ts";
import { affiliates, attributionsOf, referrals } from "../../server/partners/referrals.ts";
import { periodProblem, profitQueryOf } from "../../server/profit/report.ts";

/**
 * Partners, affiliates, referrals and attributions (issue 11 item 6, decision 051): administrators
 * only. A partner created or changed leads the browser to the partner's page.
 */
export const partnerCalls = new Hono<AppEnv>();

/** The period with its defaults (the 30 days up to today), or a 422 naming the field. */
export function periodOf(now: number, query: { from?: string; to?: string }) {
  const q = profitQueryOf({ ...query, group: "month", by: "currency" }, now);
  const problem = periodProblem(q);
  if (problem) throw new InvalidInput(problem.message, problem.field);
  return { from: q.from, to: q.to };
}

const now = (c: Context<AppEnv>) => new Date(c.get("services").now());

route(partnerCalls, calls.listPartners, (c) => listPartners(c.get("db")));

route(partnerCalls, calls.createPartner, async (c, { body }) => {
  const created = await createPartner(c.get("db"), body, c.get("user")!.id, now(c));
  return reply(created, { redirect: `/console/partners/${created.id}`, status: 201 });
});

route(
  partnerCalls,
  calls.getPartner,
  (c, { params, query }) => partnerDetail(c.get("db"), params.id, { page: query.page, perPage: query.per_page }),
);

route(partnerCalls, calls.updatePartner, async (c, { params, body }) => {
  const updated = await updatePartner(c.get("db"), params.id, body, c.get("user")!.id, now(c));
  return reply(updated, { redirect: `/console/partners/${updated.id}` });
});

route(
  partnerCalls,
  calls.setCustomerPartner,
  (c, { params, body }) => setCustomerPartner(c.get("db"), params.id, body.partner_id, c.get("user")!.id, now(c)),
);

route(partnerCalls, calls.listAffiliates, (c) => affiliates(c.get("db")));

route(
  partnerCalls,
  calls.listReferrals,
  (c, { query }) =>
    referrals(c.get("db"), periodOf(c.get("services").now(), query), {
      page: query.page,
      perPage: query.per_page,
    }),
);

route(
  partnerCalls,
  calls.listAttributions,
  (c, { query }) => attributionsOf(c.get("db"), periodOf(c.get("services").now(), query)),
);
