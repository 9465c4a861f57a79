import type { ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { type AccountRole, may, type Permission } from "../../lib/permissions.ts";
import { usePage } from "../../server/render/page-context.ts";
import AvatarView from "../../islands/Avatar.tsx";
import { ColorMode, Logo, MAIN_ID, Notifications, OnBehalf, Restricted, SignOut, SkipLink } from "./parts.tsx";

interface NavItem {
  href: string;
  label: string;
  /** What the role on the current account must allow for the link to be offered (lib/permissions.ts). */
  permission?: Permission;
}

export const ACCOUNT_NAV: NavItem[] = [
  { href: "/account", label: "Dashboard" },
  { href: "/account/balances", label: "Balances" },
  { href: "/account/convert", label: "Convert", permission: "money.convert" },
  { href: "/account/payment", label: "Make a payment", permission: "payments.prepare" },
  { href: "/account/payments", label: "Payments" },
  { href: "/account/pendingpayments", label: "Pending payments" },
  { href: "/account/recipients", label: "Recipients" },
  { href: "/account/transactions", label: "Transactions" },
  { href: "/account/reports", label: "Reports" },
  { href: "/account/ratealerts", label: "Rate alerts" },
  { href: "/account/users", label: "Users" },
  { href: "/account/linked-accounts", label: "Linked accounts" },
  { href: "/account/security", label: "Sign-in and security" },
];

export const CONSOLE_NAV: NavItem[] = [
  { href: "/console/users", label: "Customers" },
  { href: "/console/admins", label: "Administrators" },
  { href: "/console/alerts", label: "Alerts" },
  { href: "/console/receipts", label: "Receipts" },
  { href: "/console/local", label: "Local payouts" },
  { href: "/console/transfer", label: "Transfers" },
  { href: "/console/pricingplan", label: "Pricing plans" },
  { href: "/console/partners", label: "Partners" },
  { href: "/console/affiliates", label: "Affiliates" },
  { href: "/console/referrals", label: "Referrals" },
  { href: "/console/attributions", label: "Attributions" },
  { href: "/console/emails", label: "Emails" },
  { href: "/console/bulkemails", label: "Bulk emails" },
  { href: "/console/profitReports", label: "Profit reports" },
  { href: "/console/migration", label: "Migration" },
  { href: "/console/audit", label: "Audit log" },
  { href: "/account/security", label: "Sign-in and security" },
];

/** The link of the page shown, or of the part it belongs to (/account alone is the dashboard). */
const isCurrent = (current: string, href: string) =>
  current === href || (current.startsWith(href + "/") && href !== "/account");

function NavList({ label, items, current, notBuilt, counts = NO_COUNTS }: {
  label: string;
  items: NavItem[];
  current: string;
  /** Paths of screens not built yet (routes/pages.tsx notBuilt): their links say "Coming soon". */
  notBuilt: ReadonlySet<string>;
  /** How many things wait on a screen (open alerts), shown beside its link when there are any. */
  counts?: Readonly<Record<string, number>>;
}) {
  return (
    <nav aria-label={label} className="flex flex-col gap-1">
      <p className="px-3 pb-1 text-xs font-semibold uppercase tracking-wide text-neutral-600 dark:text-neutral-400">
        {label}
      </p>
      {items.map((item) => (
        <a
          key={item.href}
          href={item.href}
          className="nav-link"
          aria-current={isCurrent(current, item.href) ? "page" : undefined}
        >
          {item.label}
          {notBuilt.has(item.href) && (
            <span className="ml-2 rounded-full bg-neutral-200 px-2 py-0.5 text-xs font-normal whitespace-nowrap text-neutral-700 dark:bg-neutral-800 dark:text-neutral-300">
              Coming soon
            </span>
          )}
          {(counts[item.href] ?? 0) > 0 && " "}
          {(counts[item.href] ?? 0) > 0 && (
            <span
              className="ml-1 rounded-full bg-primary-700 px-2 py-0.5 text-xs font-semibold text-white"
              data-count={item.href}
            >
              {counts[item.href]}
              <span className="sr-only">{OPEN_WORD}</span>
            </span>
          )}
        </a>
      ))}
    </nav>
  );
}

const NONE: ReadonlySet<string> = new Set();

/** The menus' HTML by the screens not built (one set per app) and what else they depend on. */
const menusRendered = new WeakMap<ReadonlySet<string>, Map<string, string>>();
const NO_COUNTS: Readonly<Record<string, number>> = {};

/** The account the page acts on, as the header shows it (server/accounts/current.ts). */
export interface LayoutAccount {
  name: string;
  account_ref: string;
  role: AccountRole;
  /** The customer belongs to several accounts: the header offers to switch. */
  several: boolean;
  /** An owner of the account is restricted: nobody moves its money (decision 048, amended). */
  restricted?: boolean;
}

/** The account's name and reference, and "Switch account" when the login has several. */
function CurrentAccountBadge({ account, person }: { account: LayoutAccount; person: string | undefined }) {
  // A personal account is named after its holder (`person`, a Personal customer's own name), whom the
  // header already names beside it: the name twice tells nothing, "Personal account" says which it is.
  const label = account.name === person ? "Personal account" : account.name;
  return (
    <span
      className="flex min-w-0 items-center gap-2 text-sm max-md:order-last max-md:basis-full max-md:flex-wrap"
      data-current-account={account.account_ref}
    >
      {
        /* On a phone too the header names the account (issue 8 item 5), on a line of its own under
          the logo and Sign out: beside them it was cut to "A…", and with several accounts nobody could
          tell which one they were on. There the name wraps; from md up they share the header's line,
          a long name ended by an ellipsis (the whole of it in the title). The reference always shows. */
      }
      <span
        className="min-w-0 break-words font-semibold text-neutral-900 md:truncate dark:text-neutral-100"
        title={label}
        data-account-name
      >
        {label}
      </span>
      <span className="shrink-0 font-mono text-neutral-600 dark:text-neutral-400" data-account-ref>
        {account.account_ref}
      </span>
      {account.several && (
        <a
          className="font-medium text-primary-700 underline hover:text-primary-800 dark:text-primary-300"
          href="/account-select"
        >
          Switch account
        </a>
      )}
    </span>
  );
}

/**
 * User layout: signed-in screens, with the account (and, for administrators, console) navigation.
 * `account` is the account the page acts on (the customer's, or the one an administrator acts
 * for); links the role there may not use are left out.
 */
/** After an alert count, for a screen reader: "3 open" (the space is part of the words). */
const OPEN_WORD = " open";

export function UserLayout({ children, account, notBuilt = NONE, counts }: {
  children: ReactNode;
  account?: LayoutAccount | null;
  notBuilt?: ReadonlySet<string>;
  /** Counts beside console links (routes/pages.tsx: the open alerts, for administrators). */
  counts?: Readonly<Record<string, number>>;
}) {
  const { user, path } = usePage();
  const current = path.split("?")[0];
  const isAdmin = user?.level === "Admin";
  const accountNav = account
    ? ACCOUNT_NAV.filter((item) => !item.permission || may(account.role, item.permission))
    : ACCOUNT_NAV;
  const showAccount = !isAdmin || current.startsWith("/account");
  // The lists depend on nothing but these: rendered once per combination, then reused (issue 9: the
  // menu, written twice, was a good part of every signed-in page's render).
  const key = `${isAdmin} ${showAccount} ${current} ${accountNav.length} ${account?.role ?? ""} ${
    counts ? JSON.stringify(counts) : ""
  }`;
  const byKey = menusRendered.get(notBuilt) ?? menusRendered.set(notBuilt, new Map()).get(notBuilt)!;
  let html = byKey.get(key);
  if (html === undefined) {
    html = renderToStaticMarkup(
      <>
        {isAdmin && (
          <NavList label="Console" items={CONSOLE_NAV} current={current} notBuilt={notBuilt} counts={counts} />
        )}
        {showAccount && <NavList label="Account" items={accountNav} current={current} notBuilt={notBuilt} />}
      </>,
    );
    if (byKey.size >= 2000) byKey.clear();
    byKey.set(key, html);
  }
  const menus = <div className="flex flex-col gap-6" dangerouslySetInnerHTML={{ __html: html }} />;
  // On a small screen the menu is one line, "Menu", that opens it (a <details>: keyboard and screen
  // readers know it, and it needs no script; Escape closes it: islands/lib/menu-escape.ts), so that
  // the page starts in the first screen; from md up it is the sidebar. The lists are written twice
  // and only one is ever displayed (a hidden element is out of the accessibility tree too).
  const currentLabel = [...(isAdmin ? CONSOLE_NAV : []), ...(showAccount ? accountNav : [])]
    .find((item) => isCurrent(current, item.href))?.label;
  return (
    <div className="flex min-h-screen flex-col" data-layout="user">
      <SkipLink />
      <OnBehalf />
      <Restricted where="banner" account={account?.restricted} />
      <header className="border-b border-neutral-200 dark:border-neutral-800">
        {
          /* Below md the account goes to a line of its own (CurrentAccountBadge): the group is
            dissolved there so that it can wrap under the rest, and the logo's margin keeps the rest right. */
        }
        <div className="flex flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3 md:flex-nowrap">
          <div className="mr-auto">
            <Logo />
          </div>
          <div className="ml-auto flex min-w-0 items-center gap-3 max-md:contents">
            <ColorMode />
            {account && (
              <CurrentAccountBadge account={account} person={user?.type === "Personal" ? user.name : undefined} />
            )}
            {user && (
              <span className="flex items-center gap-2 text-sm">
                {/* No picture yet: the initials need no script, so the avatar is not an island here. */}
                <AvatarView alt={user.name} size="sm" src={null} />
                <span className="hidden sm:inline">{user.name}</span>
              </span>
            )}
            <SignOut />
          </div>
        </div>
      </header>
      <div className="flex flex-1 flex-col md:flex-row">
        <details className="border-b border-neutral-200 md:hidden dark:border-neutral-800" data-menu="compact">
          <summary className="flex cursor-pointer list-none items-center gap-2 px-4 py-3 text-sm font-medium text-neutral-800 hover:bg-neutral-100 focus-visible:outline-2 focus-visible:outline-offset-[-2px] focus-visible:outline-primary-600 dark:text-neutral-200 dark:hover:bg-neutral-800 [&::-webkit-details-marker]:hidden">
            <svg
              aria-hidden="true"
              focusable="false"
              viewBox="0 0 24 24"
              fill="none"
              stroke="currentColor"
              strokeWidth="2"
              strokeLinecap="round"
              className="size-5 shrink-0"
            >
              <path d="M4 6h16M4 12h16M4 18h16" />
            </svg>
            <span>Menu</span>
            {currentLabel && (
              <span className="truncate text-neutral-600 dark:text-neutral-400">
                <span aria-hidden="true">·</span> {currentLabel}
              </span>
            )}
          </summary>
          <div className="px-4 pb-4">
            {/* The header has no room for the account on a phone: the opened menu names it. */}
            {account && (
              <p className="mb-4 text-sm text-neutral-600 dark:text-neutral-400" data-menu-account>
                {"Account: "}
                <span className="font-semibold text-neutral-900 dark:text-neutral-100">{account.name}</span>{" "}
                <span className="font-mono">{account.account_ref}</span>
              </p>
            )}
            {menus}
          </div>
        </details>
        <aside className="hidden border-neutral-200 p-4 md:block md:w-60 md:border-r dark:border-neutral-800">
          {menus}
        </aside>
        <main id={MAIN_ID} tabIndex={-1} className="min-w-0 flex-1 px-4 py-8 outline-none md:px-8">{children}</main>
      </div>
      <Notifications />
    </div>
  );
}
