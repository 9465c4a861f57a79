import type { ReactNode } from "react";
import { ACCOUNT_RESTRICTED_MESSAGE, RESTRICTED_MESSAGE } from "../../lib/restriction.ts";
import { usePage } from "../../server/render/page-context.ts";
import { ColorModeToggle, NotificationQueue, OnBehalfBanner } from "../islands.ts";

/** The id of every layout's <main>: the target of "Skip to content". */
export const MAIN_ID = "main";

/**
 * "Skip to content": the first thing a keyboard reaches on every page, hidden until it has the
 * focus, then shown over the page; it jumps past the header and the menus to the page's <main>.
 */
export function SkipLink() {
  return (
    <a
      href={`#${MAIN_ID}`}
      className="sr-only focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50 focus:rounded-lg focus:bg-white focus:px-4 focus:py-2 focus:font-semibold focus:text-primary-800 focus:shadow-lg focus:outline-2 focus:outline-primary-600 dark:focus:bg-neutral-900 dark:focus:text-primary-300"
    >
      Skip to content
    </a>
  );
}

export function Logo() {
  return (
    <a href="/" className="flex items-center gap-2 text-lg font-bold tracking-tight">
      <span aria-hidden="true" className="grid size-8 place-items-center rounded-lg bg-primary-700 text-white">
        P
      </span>
      <span>Portal</span>
    </a>
  );
}

/** The colour-mode control, fed with the visitor's choice or the route's forced mode. */
export function ColorMode() {
  const page = usePage();
  return <ColorModeToggle mode={page.colorMode} forced={page.forcedColorMode} />;
}

/** The notification queue, with anything the server queued across the last redirect. */
export function Notifications() {
  return <NotificationQueue initial={usePage().notifications} />;
}

/** For an administrator acting on behalf of a customer: the banner naming them, on every page. */
export function OnBehalf() {
  const { user, onBehalf } = usePage();
  if (user?.level !== "Admin" || !onBehalf) return null;
  return (
    <OnBehalfBanner
      customer={{ id: onBehalf.id, name: onBehalf.name, username: onBehalf.username, cc_contact: onBehalf.cc_contact }}
    />
  );
}

/**
 * For a restricted customer (decision 048), or an administrator acting for one: what they cannot
 * do and why, on every page (`banner`) and on the forms that move money. The banner also tells
 * everyone else on an account whose owner is restricted (`account`, decision 048 amended) that its
 * money does not move. Server-rendered: it costs no JavaScript, and the restriction is read at each
 * page load.
 */
export function Restricted({ where, account = false }: { where: "banner" | "form"; account?: boolean }) {
  const { user, onBehalf } = usePage();
  const customer = onBehalf ?? user;
  const own = !!customer?.restricted;
  if (!own && !(where === "banner" && account)) return null;
  return where === "banner"
    ? (
      <div
        role="status"
        data-restricted={own ? "banner" : "account"}
        className="border-b border-amber-300 bg-amber-50 px-4 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100"
      >
        <strong>Account restricted.</strong> {own ? RESTRICTED_MESSAGE : ACCOUNT_RESTRICTED_MESSAGE}
      </div>
    )
    : (
      <p
        role="status"
        data-restricted="form"
        className="card mb-4 border-amber-300 text-sm text-amber-900 dark:text-amber-100"
      >
        {RESTRICTED_MESSAGE}
      </p>
    );
}

/**
 * Sign out, for whoever is signed in: a plain form, so it works before (and without) any script
 * and costs the page no JavaScript. POST /logout ends the session and goes home, or back to the
 * invitation's link `next` names (someone else's invitation, opened signed in: decision 082).
 */
export function SignOut(
  { next, label = "Sign out", everywhere = false }: { next?: string; label?: string; everywhere?: boolean },
) {
  if (!usePage().user) return null;
  return (
    <form method="post" action="/logout">
      {next ? <input type="hidden" name="next" value={next} /> : null}
      {everywhere ? <input type="hidden" name="everywhere" value="1" /> : null}
      <button type="submit" className={next || everywhere ? "btn-primary" : "btn-ghost"}>{label}</button>
    </form>
  );
}

export function PageTitle({ children, lead }: { children: ReactNode; lead?: ReactNode }) {
  return (
    <header className="mb-6">
      <h1 className="text-2xl font-semibold tracking-tight">{children}</h1>
      {lead && <p className="mt-1 text-neutral-600 dark:text-neutral-400">{lead}</p>}
    </header>
  );
}

/**
 * What a screen whose feature is not built yet shows: its real frame and title, and a plain
 * statement that the feature is coming. Never sample data.
 */
export function ComingSoon({ title, what }: { title: string; what: string }) {
  return (
    <section>
      <PageTitle>{title}</PageTitle>
      <div className="card border-dashed text-center" role="status">
        <p className="text-lg font-semibold">Coming soon</p>
        <p className="mt-2 text-neutral-600 dark:text-neutral-400">{what}</p>
      </div>
    </section>
  );
}
