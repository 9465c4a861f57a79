import { dateInputValue } from "../../lib/periods.ts";
import { PageLinks } from "./page-links.tsx";
import type { Context } from "hono";
import type { ReactNode } from "react";
import { idText } from "../../lib/contracts/common.ts";
import {
  getPartner as getPartnerCall,
  listReferrals as listReferralsCall,
  percentOfBps,
  periodQuery,
} from "../../lib/contracts/partners.ts";
import type { AppEnv } from "../../server/env.ts";
import { listPartners, type PartnerCustomer, partnerDetail } from "../../server/partners/partners.ts";
import { affiliates, attributionsOf, referrals } from "../../server/partners/referrals.ts";
import { periodProblem, profitQueryOf } from "../../server/profit/report.ts";
import { ConsolePartnerForm } from "../islands.ts";
import { PageTitle } from "../layouts/parts.tsx";
import { ScrollBox } from "../../islands/ui/table.tsx";

/**
 * Partners, affiliates, referrals and attributions (issue 11 item 6, decision 051). The server
 * renders them whole: they only show, but for the partner form (an island). The periods are plain
 * GET forms whose state is the address.
 */

const TERM = "text-neutral-600 dark:text-neutral-400";
const TH = "py-2 pr-4 font-medium";
const TD = "py-2 pr-4";
const NUM = "py-2 pr-4 text-right font-mono tabular-nums";
const ROW = "border-t border-neutral-200 align-top dark:border-neutral-800";
const field = "field-control w-full";

const day = (iso: string) => iso.slice(0, 10);

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="mb-8 flex flex-col gap-3">
      <h2 id={id} className="text-lg font-semibold">{title}</h2>
      {children}
    </section>
  );
}

function SimpleTable(
  { caption, head, numeric = [], children }: {
    caption: string;
    head: string[];
    /** The columns, by header, whose figures align right. */
    numeric?: string[];
    children: ReactNode;
  },
) {
  return (
    <ScrollBox label={caption} className="card">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className={TERM}>
          <tr>
            {head.map((h) => <th key={h} scope="col" className={numeric.includes(h) ? `${TH} text-right` : TH}>{h}
            </th>)}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </ScrollBox>
  );
}

const Empty = ({ children }: { children: ReactNode }) => <p className={`card text-sm ${TERM}`}>{children}</p>;

function CustomerCell({ customer }: { customer: PartnerCustomer }) {
  return (
    <th scope="row" className={`${TD} font-medium break-all`}>
      <a className="link" href={`/console/users/${customer.id}`}>{customer.name ?? customer.email}</a>
      {customer.name ? <span className={`block font-normal ${TERM}`}>{customer.email}</span> : null}
    </th>
  );
}

// ---------------------------------------------------------------------------------------------
// Partners

export async function ConsolePartnersPage(c: Context<AppEnv>) {
  const partners = await listPartners(c.get("db"));
  return (
    <section>
      <PageTitle lead="Introducers who bring customers with their referral code, for a share of the fee and markup income those customers earn us.">
        Partners
      </PageTitle>
      <Section id="partners-list" title="Partners">
        {partners.length === 0 ? <Empty>No partner yet: create the first below.</Empty> : (
          <SimpleTable
            caption="Partners"
            head={["Partner", "Referral code", "Revenue share", "Customers", "Since"]}
            numeric={["Revenue share", "Customers"]}
          >
            {partners.map((p) => (
              <tr key={p.id} className={ROW} data-partner={p.code}>
                <th scope="row" className={`${TD} font-medium`}>
                  <a className="link" href={`/console/partners/${p.id}`}>{p.name}</a>
                  {p.email ? <span className={`block font-normal ${TERM}`}>{p.email}</span> : null}
                </th>
                <td className={`${TD} font-mono`}>{p.code}</td>
                <td className={NUM}>{p.share_percent}%</td>
                <td className={NUM}>{p.customers}</td>
                <td className={TD}>{day(p.created_at)}</td>
              </tr>
            ))}
          </SimpleTable>
        )}
      </Section>
      <section aria-labelledby="partner-new-heading" className="card flex flex-col gap-3">
        <h2 id="partner-new-heading" className="text-lg font-semibold">Create a partner</h2>
        <ConsolePartnerForm />
      </section>
    </section>
  );
}

/** A partner's page exists only for a partner that exists. */
export async function partnerExists(params: Record<string, string>, c: Context<AppEnv>): Promise<boolean> {
  const id = idText.safeParse(params.id);
  if (!id.success) return false;
  return (await listPartners(c.get("db"), id.data)).length === 1;
}

export async function ConsolePartnerPage(c: Context<AppEnv>) {
  // The row has checked that the partner exists (partnerExists).
  const id = idText.parse(c.req.param("id"));
  const parsed = getPartnerCall.query.safeParse(c.req.query());
  const query = parsed.success ? parsed.data : { page: 1, per_page: 20 };
  const partner = await partnerDetail(c.get("db"), id, { page: query.page, perPage: query.per_page });
  const list = partner.customer_list;
  const pages = Math.max(1, Math.ceil(list.total / list.per_page));
  const link = (page: number) =>
    `/console/partners/${id}?${new URLSearchParams({
      page: String(page),
      ...(query.per_page === 20 ? {} : { per_page: String(query.per_page) }),
    })}`;
  return (
    <section>
      <p className="text-sm">
        <a href="/console/partners" className="link">All partners</a>
      </p>
      <PageTitle
        lead={`Referral code ${partner.code}, ${partner.share_percent}% of their customers' fee and markup income. Partner since ${
          day(partner.created_at)
        }.`}
      >
        {partner.name}
      </PageTitle>
      <Section id="partner-customers" title={`Their customers now (${partner.customers})`}>
        {list.total === 0
          // Their customers now (users.partner_id): who registered with the code is on Referrals.
          ? <Empty>{`${partner.name} has no customers now.`}</Empty>
          : (
            <SimpleTable caption="Their customers now" head={["Customer", "Type", "Signed up", "Account", "Funded"]}>
              {list.items.map((customer) => (
                <tr key={customer.id} className={ROW} data-customer={customer.email}>
                  <CustomerCell customer={customer} />
                  <td className={TD}>{customer.type}</td>
                  <td className={TD}>{day(customer.signed_up_at)}</td>
                  <td className={`${TD} font-mono`}>{customer.account_ref ?? "Not open"}</td>
                  <td className={TD}>{customer.funded ? "Yes" : "No"}</td>
                </tr>
              ))}
            </SimpleTable>
          )}
        <PageLinks page={list.page} pages={pages} link={link} linkClass="link" />
        <p className={`text-sm ${TERM}`}>
          Their commission per period is on <a className="link" href="/console/referrals">Referrals</a>.
        </p>
      </Section>
      <section aria-labelledby="partner-edit-heading" className="card flex flex-col gap-3">
        <h2 id="partner-edit-heading" className="text-lg font-semibold">Change the partner</h2>
        <p className={`text-sm ${TERM}`}>
          A new code counts for registrations from now on; the customers they brought stay theirs.
        </p>
        <ConsolePartnerForm partner={partner} />
      </section>
    </section>
  );
}

// ---------------------------------------------------------------------------------------------
// Affiliates

const OWNER_KIND = { partner: "Partner", customer: "Customer", unknown: "Nobody known" } as const;

function OwnerCell({ owner }: { owner: { kind: keyof typeof OWNER_KIND; id: number | null; name: string | null } }) {
  const href = owner.kind === "partner"
    ? `/console/partners/${owner.id}`
    : owner.kind === "customer"
    ? `/console/users/${owner.id}`
    : null;
  return (
    <td className={TD}>
      {href ? <a className="link" href={href}>{owner.name}</a> : null}
      <span className={href ? `block ${TERM}` : TERM}>{OWNER_KIND[owner.kind]}</span>
    </td>
  );
}

export async function ConsoleAffiliatesPage(c: Context<AppEnv>) {
  const rows = await affiliates(c.get("db"));
  return (
    <section>
      <PageTitle lead="Every referral code: the partners' codes, and the codes customers typed at registration. A customer's code is the reference of an account they own; only partners earn a commission.">
        Affiliates
      </PageTitle>
      {rows.length === 0 ? <Empty>No referral code yet: create a partner to give one out.</Empty> : (
        <SimpleTable
          caption="Referral codes"
          head={["Referral code", "Owner", "Sign-ups", "Funded"]}
          numeric={["Sign-ups", "Funded"]}
        >
          {rows.map((r) => (
            <tr key={r.code} className={ROW} data-code={r.code}>
              <th scope="row" className={`${TD} font-mono font-medium`}>{r.code}</th>
              <OwnerCell owner={r.owner} />
              <td className={NUM}>{r.signups}</td>
              <td className={NUM}>{r.funded}</td>
            </tr>
          ))}
        </SimpleTable>
      )}
    </section>
  );
}

// ---------------------------------------------------------------------------------------------
// The period of referrals and attributions

/** The page's period from its address, or the problems that make it unusable. */
function periodOfPage(c: Context<AppEnv>) {
  const raw = c.req.query();
  const given = Object.fromEntries(
    (["from", "to"] as const).filter((k) => raw[k]?.trim()).map((k) => [k, raw[k].trim()]),
  );
  const parsed = periodQuery.safeParse(given);
  if (!parsed.success) return { given, problems: parsed.error.issues.map((i) => i.message) };
  const q = profitQueryOf({ ...parsed.data, group: "month", by: "currency" }, c.get("services").now());
  const problem = periodProblem(q);
  if (problem) return { given, problems: [problem.message] };
  return { given, period: { from: q.from, to: q.to } };
}

function PeriodForm({ action, value }: { action: string; value: { from?: string; to?: string } }) {
  return (
    <form method="get" action={action} className="card mb-6 grid gap-4 sm:grid-cols-3">
      <label className="block">
        <span className="field-label">From</span>
        <input className={field} type="date" name="from" defaultValue={dateInputValue(value.from)} />
      </label>
      <label className="block">
        <span className="field-label">To</span>
        <input className={field} type="date" name="to" defaultValue={dateInputValue(value.to)} />
      </label>
      <div className="flex items-end gap-2">
        <button type="submit" className="btn-primary">Show</button>
        <a className="btn-ghost" href={action}>Last 30 days</a>
      </div>
    </form>
  );
}

function Refused({ problems }: { problems: string[] }) {
  return (
    <div className="card" role="alert">
      <p className="font-semibold">This period cannot be shown:</p>
      <ul className="mt-2 list-disc pl-5">{problems.map((p) => <li key={p}>{p}</li>)}</ul>
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Referrals

export async function ConsoleReferralsPage(c: Context<AppEnv>) {
  const { given, period, problems } = periodOfPage(c);
  const title = (
    <PageTitle
      lead={`Who signed up with a referral code, and what each partner earned: their share of the fee and markup income of their customers, from the ledger${
        period ? `, ${period.from} to ${period.to} (UTC)` : ""
      }.`}
    >
      Referrals
    </PageTitle>
  );
  if (!period) {
    return (
      <section>
        {title}
        <PeriodForm action="/console/referrals" value={given} />
        <Refused problems={problems} />
      </section>
    );
  }
  const parsed = listReferralsCall.query.safeParse(c.req.query());
  const paging = parsed.success ? parsed.data : { page: 1, per_page: 20 };
  const { referrals: list, commissions } = await referrals(c.get("db"), period, {
    page: paging.page,
    perPage: paging.per_page,
  });
  const rows = list.items;
  const pages = Math.max(1, Math.ceil(list.total / list.per_page));
  const link = (page: number) =>
    `/console/referrals?${new URLSearchParams({
      from: period.from,
      to: period.to,
      page: String(page),
      ...(paging.per_page === 20 ? {} : { per_page: String(paging.per_page) }),
    })}`;
  return (
    <section>
      {title}
      <PeriodForm action="/console/referrals" value={period} />
      <Section id="referral-commissions" title="Commissions">
        {commissions.length === 0 ? <Empty>No income from partners' customers in this period.</Empty> : (
          <SimpleTable
            caption="Commissions by partner and currency"
            head={["Partner", "Currency", "Markup", "Fees", "Income", "Share", "Commission"]}
            numeric={["Markup", "Fees", "Income", "Share", "Commission"]}
          >
            {commissions.map((r) => (
              <tr
                key={`${r.partner_id} ${r.currency} ${r.share_bps}`}
                className={ROW}
                data-commission={`${r.code} ${r.currency}`}
              >
                <th scope="row" className={`${TD} font-medium`}>
                  <a className="link" href={`/console/partners/${r.partner_id}`}>{r.partner}</a>
                  <span className={`block font-mono font-normal ${TERM}`}>{r.code}</span>
                </th>
                <td className={TD}>{r.currency}</td>
                <td className={NUM}>{r.markup}</td>
                <td className={NUM}>{r.fees}</td>
                <td className={NUM}>{r.income}</td>
                <td className={NUM}>{percentOfBps(r.share_bps)}%</td>
                <td className={`${NUM} font-semibold`}>{r.commission}</td>
              </tr>
            ))}
          </SimpleTable>
        )}
      </Section>
      <Section id="referral-signups" title={`Sign-ups with a referral code (${list.total})`}>
        {list.total === 0 ? <Empty>Nobody signed up with a referral code in this period.</Empty> : (
          <SimpleTable
            caption="Sign-ups with a referral code"
            head={["Customer", "Code", "Owner", "Partner now", "Signed up", "Funded"]}
          >
            {rows.map((r) => (
              <tr key={r.customer.id} className={ROW} data-referral={r.customer.email}>
                <CustomerCell customer={r.customer} />
                <td className={`${TD} font-mono`}>{r.code}</td>
                <OwnerCell owner={r.owner} />
                <td className={TD}>
                  {r.partner
                    ? <a className="link" href={`/console/partners/${r.partner.id}`}>{r.partner.name}</a>
                    : <span className={TERM}>None</span>}
                </td>
                <td className={TD}>{day(r.customer.signed_up_at)}</td>
                <td className={TD}>{r.customer.funded ? "Yes" : "No"}</td>
              </tr>
            ))}
          </SimpleTable>
        )}
        <PageLinks page={list.page} pages={pages} link={link} linkClass="link" />
      </Section>
    </section>
  );
}

// ---------------------------------------------------------------------------------------------
// Attributions

const share = (part: number, whole: number) => whole ? `${Math.round((part / whole) * 100)}%` : "—";
const orNone = (value: string | null, none: string) => value ?? <span className={TERM}>{none}</span>;

export async function ConsoleAttributionsPage(c: Context<AppEnv>) {
  const { given, period, problems } = periodOfPage(c);
  const title = (
    <PageTitle
      lead={`Where sign-ups came from (the utm parameters and the referring site the register page saw), and how many became funded accounts: an account ever credited by a receipt${
        period ? `. ${period.from} to ${period.to} (UTC)` : ""
      }.`}
    >
      Attributions
    </PageTitle>
  );
  if (!period) {
    return (
      <section>
        {title}
        <PeriodForm action="/console/attributions" value={given} />
        <Refused problems={problems} />
      </section>
    );
  }
  const a = await attributionsOf(c.get("db"), period);
  return (
    <section>
      {title}
      <PeriodForm action="/console/attributions" value={period} />
      <p className="mb-6" data-totals>
        <strong>{a.signups}</strong> sign-ups, <strong>{a.funded}</strong> funded ({share(a.funded, a.signups)}).
      </p>
      <Section id="attribution-campaigns" title="By campaign">
        {a.by_campaign.length === 0 ? <Empty>Nobody signed up in this period.</Empty> : (
          <SimpleTable
            caption="Sign-ups by utm source, medium and campaign"
            head={["Source", "Medium", "Campaign", "Sign-ups", "Funded", "Funded share"]}
            numeric={["Sign-ups", "Funded", "Funded share"]}
          >
            {a.by_campaign.map((r) => (
              <tr
                key={JSON.stringify([r.utm_source, r.utm_medium, r.utm_campaign])}
                className={ROW}
                data-campaign={[r.utm_source, r.utm_medium, r.utm_campaign].map((v) => v ?? "").join(" / ")}
              >
                <td className={TD}>{orNone(r.utm_source, "(none)")}</td>
                <td className={TD}>{orNone(r.utm_medium, "(none)")}</td>
                <td className={TD}>{orNone(r.utm_campaign, "(none)")}</td>
                <td className={NUM}>{r.signups}</td>
                <td className={NUM}>{r.funded}</td>
                <td className={NUM}>{share(r.funded, r.signups)}</td>
              </tr>
            ))}
          </SimpleTable>
        )}
      </Section>
      <Section id="attribution-referrers" title="By referring site">
        {a.by_referrer.length === 0 ? <Empty>Nobody signed up in this period.</Empty> : (
          <SimpleTable
            caption="Sign-ups by referring site"
            head={["Referring site", "Sign-ups", "Funded", "Funded share"]}
            numeric={["Sign-ups", "Funded", "Funded share"]}
          >
            {a.by_referrer.map((r) => (
              <tr key={r.referrer ?? ""} className={ROW} data-referrer={r.referrer ?? ""}>
                <td className={`${TD} break-all`}>{orNone(r.referrer, "(direct or unknown)")}</td>
                <td className={NUM}>{r.signups}</td>
                <td className={NUM}>{r.funded}</td>
                <td className={NUM}>{share(r.funded, r.signups)}</td>
              </tr>
            ))}
          </SimpleTable>
        )}
      </Section>
    </section>
  );
}
