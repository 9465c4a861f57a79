import type { Context, Hono } from "hono";
import { deleteCookie, getCookie } from "hono/cookie";
import { HTTPException } from "hono/http-exception";
import type { ReactNode } from "react";
import { resolveForcedMode } from "../lib/color-mode.ts";
import { idText } from "../lib/contracts/common.ts";
import type { Topic } from "../server/data-versions.ts";
import type { AppEnv } from "../server/env.ts";
import {
  afterSignIn,
  AUTH_ORDER,
  CONSOLE_GUARDS,
  CUSTOMER_GUARDS,
  evaluateGuards,
  type GuardName,
  guards,
  homeOf,
  rememberPage,
} from "../server/guards.ts";
import { ACCOUNT_SELECT, accountChoice, customerOf } from "../server/accounts/current.ts";
import { isCustomer } from "../server/accounts/customers.ts";
import { rejectionOf } from "../server/accounts/compliance.ts";
import { REJECTION_REASON_TEXT } from "../lib/compliance.ts";
import { takeUndelivered } from "../server/notifications/inbox.ts";
import { openAlertCount } from "../server/alerts/console.ts";
import { renderPage, sendPage } from "../server/render/document.tsx";
import { flash, flashCount } from "../server/render/flash.ts";
import { NOTIFICATIONS_MAX_VISIBLE } from "../lib/constants.ts";
import type { PageCache } from "../server/render/page-cache.ts";
import { BlankLayout } from "./layouts/Blank.tsx";
import { DefaultLayout } from "./layouts/Default.tsx";
import { ComingSoon } from "./layouts/parts.tsx";
import { RegisterLayout } from "./layouts/Register.tsx";
import { type LayoutAccount, UserLayout } from "./layouts/User.tsx";
import {
  AccountSelectPage,
  AccountUsersPage,
  INVITATION_COOKIE,
  invitationLink,
  InvitePage,
  isInvitationLink,
  LinkedAccountsPage,
} from "./pages/account-users.tsx";
import { ConsoleCustomerPage, ConsoleUsersPage } from "./pages/console-customers.tsx";
import { ConsoleAuditPage } from "./pages/console-audit.tsx";
import { ConsoleAdminsPage, ConsolePricingPlanPage, pricingPlanExists } from "./pages/console-admins.tsx";
import { ConsoleAlertsPage, ConsoleEmailPage, ConsoleEmailsPage } from "./pages/console-alerts.tsx";
import { Home, nextStepOf } from "./pages/Home.tsx";
import { NoAccount } from "./pages/NoAccount.tsx";
import { insteadOfProcessing, NO_ACCOUNT_PAGE, removedFromEveryAccount } from "../server/accounts/removed.ts";
import { previewInvitation } from "../server/accounts/invitations.ts";
import {
  BalancesPage,
  CalculatorPage,
  ConsolePricingPage,
  ConsoleReceiptsPage,
  ConvertPage,
  DashboardPage,
} from "./pages/money.tsx";
import {
  ForgotPage,
  IdentityPage,
  isValidationLink,
  ProfilePage,
  RegisterPage,
  SecondFactorPage,
  SecurityPage,
  SetupPage,
  VerifyPage,
  VerifyPageSignedIn,
} from "./pages/onboarding.tsx";
import { Processing } from "./pages/Processing.tsx";
import {
  PaymentPage,
  PaymentsPage,
  PendingPaymentPage,
  PendingPaymentsPage,
  switchToPaymentsAccount,
} from "./pages/payments.tsx";
import { ConsoleLocalPage, ConsoleTransferPage } from "./pages/payouts.tsx";
import { ConsoleMigrationPage, ConsoleMigrationRunPage, migrationRunExists } from "./pages/console-migration.tsx";
import {
  ConsoleAffiliatesPage,
  ConsoleAttributionsPage,
  ConsolePartnerPage,
  ConsolePartnersPage,
  ConsoleReferralsPage,
  partnerExists,
} from "./pages/console-partners.tsx";
import { ConsoleProfitPage } from "./pages/profit.tsx";
import {
  bulkEmailExists,
  ConsoleBulkEmailPage,
  ConsoleBulkEmailsPage,
  UnsubscribePage,
} from "./pages/console-bulkemails.tsx";
import { RateAlertsPage, switchToFiredAlertsAccount } from "./pages/ratealerts.tsx";
import { profileLocked } from "../server/profile/store.ts";
import { RecipientsPage } from "./pages/recipients.tsx";
import { ReportsPage } from "./pages/reports.tsx";
import { TransactionPage, TransactionsPage } from "./pages/transactions.tsx";

const LAYOUTS: Record<
  string,
  (props: {
    children: ReactNode;
    account?: LayoutAccount | null;
    notBuilt?: ReadonlySet<string>;
    counts?: Readonly<Record<string, number>>;
  }) => ReactNode
> = {
  blank: BlankLayout,
  default: DefaultLayout,
  register: RegisterLayout,
  user: UserLayout,
};
export type LayoutName = "blank" | "default" | "register" | "user";

/** One screen of SPEC.md section 2: where it lives, its layout, who may see it, and what it shows. */
export interface PageRoute {
  path: string;
  title: string;
  layout?: LayoutName;
  /** Guard names, checked in order (SPEC.md section 6). */
  guards?: readonly GuardName[];
  /** Checks the path parameters; a failure is the fatal 'Page not found'. */
  validate?: (params: Record<string, string>, c: Context<AppEnv>) => boolean | Promise<boolean>;
  /** Route metadata: a page may force light or dark. */
  colorMode?: string;
  /**
   * The page shows visitors who are not signed in nothing personal: it can be rendered once and
   * kept while the data it shows (`shows`: topics of server/data-versions.ts) is unchanged
   * (server/render/page-cache.ts). A topic left out here would leave the page stale.
   */
  publicCache?: { shows: readonly Topic[] };
  /** What a search engine shows under the page's title (public pages; server/render/document.tsx has the default). */
  description?: string;
  /** The page's content; it may load data first, or answer a redirect instead. */
  render: (c: Context<AppEnv>) => ReactNode | Response | Promise<ReactNode | Response>;
  /**
   * Runs before the page reads the account it acts on: a page about a record of another of the
   * customer's accounts switches to it and answers a redirect (decision 060); null goes on.
   */
  switchAccount?: (c: Context<AppEnv>) => Promise<Response | null>;
}

/** A page of a record exists only at the record's canonical id ("5", never "05" or "0x5"). */
const positiveId = (params: Record<string, string>) => idText.safeParse(params.id).success;

/** A customer's page exists only for a customer who exists. */
async function customerExists(params: Record<string, string>, c: Context<AppEnv>) {
  const id = idText.safeParse(params.id);
  return id.success && await isCustomer(c.get("db"), id.data);
}

/** The renders `soon` made: a page whose render is one of them is a screen not built yet. */
const COMING_SOON = new WeakSet<PageRoute["render"]>();

/** The render of a screen not built yet (ComingSoon). Use it for every such row: the menus read it (notBuilt). */
export const soon = (title: string, what: string) => {
  const render = () => <ComingSoon title={title} what={what} />;
  COMING_SOON.add(render);
  return render;
};

/**
 * The paths of the screens not built yet: the rows that still render `soon`. The menus mark their
 * links "Coming soon"; a row that gets its real render drops out by itself (decision 040).
 */
export const notBuilt = (pages: readonly PageRoute[] = PAGES): ReadonlySet<string> =>
  new Set(pages.filter((page) => COMING_SOON.has(page.render)).map((page) => page.path));

/**
 * The profile can be changed until the identity check approves the person, and not while their
 * compliance review is open; after that, support changes it (decision 071, profileLocked). Someone
 * who joined an account through an invitation has one before their own identity is checked, and
 * keeps the form until then.
 */
async function onlyBeforeVerified(c: Context<AppEnv>, render: () => Promise<ReactNode>) {
  return await profileLocked(c.get("db"), customerOf(c)!) ? c.redirect("/auth") : await render();
}

export const PAGES: PageRoute[] = [
  {
    path: "/",
    title: "International payments and currency exchange",
    description: "Hold, convert and send money in many currencies at the mid-market rate with a clear fee, " +
      "for people and businesses.",
    // Visitors get the kept page; someone signed in is never served it (page-cache.ts), and sees
    // where to go next instead of the Sign in form (decision 039).
    publicCache: { shows: [] },
    render: async (c) => {
      const user = c.get("user");
      return <Home user={user} next={user ? await noAccountInstead(c, nextStepOf(user)) : undefined} />;
    },
  },
  { path: "/setup", title: "Set up the portal", layout: "blank", render: SetupPage },
  { path: "/forgot", title: "Forgotten password", render: ForgotPage },
  // Open to anyone: a bulk email's unsubscribe link (decision 050).
  { path: "/unsubscribe", title: "Unsubscribe", render: UnsubscribePage },
  {
    path: "/register",
    title: "Open an account",
    layout: "register",
    // Shows only what its address says (utm_*, the referral code, the landing path): the referring
    // site is read by the form in the browser (decision 069).
    publicCache: { shows: [] },
    render: RegisterPage,
  },
  // Open to anyone: the emailed link may be opened where nobody is signed in.
  {
    path: "/verify",
    title: "Verify your email",
    layout: "register",
    render: (c) => {
      const user = c.get("user");
      return user?.validated ? VerifyPageSignedIn(c, user.username, user.id) : VerifyPage(c);
    },
  },
  {
    path: "/register-personal",
    title: "About you",
    layout: "register",
    guards: ["loggedin", "is-verified", "secondfactor", "is-user", "is-personal"],
    render: (c) => onlyBeforeVerified(c, () => ProfilePage(c, "Personal")),
  },
  {
    path: "/register-business",
    title: "About your business",
    layout: "register",
    guards: ["loggedin", "is-verified", "secondfactor", "is-user", "is-business"],
    render: (c) => onlyBeforeVerified(c, () => ProfilePage(c, "Business")),
  },
  {
    path: "/identity",
    title: "Confirm your identity",
    layout: "register",
    guards: ["loggedin", "is-verified", "secondfactor", "is-user", "has-profile"],
    render: (c) => (customerOf(c)!.identity ? c.redirect("/auth") : IdentityPage(c)),
  },
  {
    path: "/calculator",
    title: "Currency calculator",
    description: "What a conversion costs today: the rate, our fee and the amount that arrives, before you sign up.",
    layout: "blank",
    // The default plan's prices at the current rates.
    publicCache: { shows: ["rates", "pricing-plans"] },
    render: CalculatorPage,
  },
  {
    path: "/processing",
    title: "We are reviewing your application",
    guards: ["loggedin", "is-verified", "secondfactor", "is-user", "has-profile", "identity-checked"],
    render: async (c) => {
      const customer = customerOf(c)!;
      if (customer.account) return c.redirect("/auth");
      const instead = await insteadOfProcessing(c.get("db"), customer.id, "/processing");
      if (instead !== "/processing") return c.redirect(instead);
      const reason = await rejectionOf(c.get("db"), customer.id);
      return (
        <Processing
          rejection={reason
            ? { reason: REJECTION_REASON_TEXT[reason].customer, supportEmail: c.get("config").supportEmail }
            : null}
          supportEmail={c.get("config").supportEmail}
        />
      );
    },
  },
  {
    // Someone removed from every account they belonged to: what happened, not a review that is not.
    path: NO_ACCOUNT_PAGE,
    title: "No account",
    guards: ["loggedin", "is-verified", "secondfactor", "is-user", "has-profile", "identity-checked"],
    render: async (c) => {
      const customer = customerOf(c)!;
      if (customer.account) return c.redirect("/auth");
      const removed = await removedFromEveryAccount(c.get("db"), customer.id);
      return removed ? <NoAccount accountName={removed.accountName} /> : c.redirect("/processing");
    },
  },
  {
    path: "/second-factor",
    title: "Second factor",
    guards: ["loggedin", "is-verified"],
    render: (c) => (c.get("user")!.secondFactor ? c.redirect("/auth") : SecondFactorPage(c)),
  },
  {
    path: "/account/security",
    title: "Sign-in and security",
    layout: "user",
    guards: ["loggedin", "secondfactor"],
    render: SecurityPage,
  },
  // The emailed link of an invitation: open to anyone, since the invitee may have no login yet.
  { path: "/invite", title: "Invitation", layout: "register", render: InvitePage },
  {
    path: "/account-select",
    title: "Choose an account",
    layout: "blank",
    guards: CUSTOMER_GUARDS,
    render: AccountSelectPage,
  },

  { path: "/account", title: "Dashboard", layout: "user", guards: CUSTOMER_GUARDS, render: DashboardPage },
  { path: "/account/users", title: "Account users", layout: "user", guards: CUSTOMER_GUARDS, render: AccountUsersPage },
  { path: "/account/convert", title: "Convert", layout: "user", guards: CUSTOMER_GUARDS, render: ConvertPage },
  { path: "/account/payment", title: "Make a payment", layout: "user", guards: CUSTOMER_GUARDS, render: PaymentPage },
  { path: "/account/reports", title: "Reports", layout: "user", guards: CUSTOMER_GUARDS, render: ReportsPage },
  { path: "/account/balances", title: "Balances", layout: "user", guards: CUSTOMER_GUARDS, render: BalancesPage },
  {
    path: "/account/ratealerts",
    title: "Rate alerts",
    layout: "user",
    guards: CUSTOMER_GUARDS,
    switchAccount: switchToFiredAlertsAccount,
    render: RateAlertsPage,
  },
  {
    path: "/account/transactions",
    title: "Transactions",
    layout: "user",
    guards: CUSTOMER_GUARDS,
    render: TransactionsPage,
  },
  {
    path: "/account/transactions/:id",
    title: "Transaction",
    layout: "user",
    guards: CUSTOMER_GUARDS,
    validate: positiveId,
    render: TransactionPage,
  },
  { path: "/account/payments", title: "Payments", layout: "user", guards: CUSTOMER_GUARDS, render: PaymentsPage },
  {
    path: "/account/pendingpayments",
    title: "Pending payments",
    layout: "user",
    guards: CUSTOMER_GUARDS,
    render: PendingPaymentsPage,
  },
  {
    path: "/account/pendingpayments/:id",
    title: "Payment",
    layout: "user",
    guards: CUSTOMER_GUARDS,
    validate: positiveId,
    switchAccount: switchToPaymentsAccount,
    render: PendingPaymentPage,
  },
  { path: "/account/recipients", title: "Recipients", layout: "user", guards: CUSTOMER_GUARDS, render: RecipientsPage },
  {
    path: "/account/linked-accounts",
    title: "Linked accounts",
    layout: "user",
    guards: CUSTOMER_GUARDS,
    render: LinkedAccountsPage,
  },

  { path: "/console/local", title: "Local payouts", layout: "user", guards: CONSOLE_GUARDS, render: ConsoleLocalPage },
  {
    path: "/console/transfer",
    title: "Transfers",
    layout: "user",
    guards: CONSOLE_GUARDS,
    render: ConsoleTransferPage,
  },
  { path: "/console/users", title: "Customers", layout: "user", guards: CONSOLE_GUARDS, render: ConsoleUsersPage },
  {
    path: "/console/users/:id",
    title: "Customer",
    layout: "user",
    guards: CONSOLE_GUARDS,
    validate: customerExists,
    render: ConsoleCustomerPage,
  },
  {
    path: "/console/admins",
    title: "Administrators",
    layout: "user",
    guards: CONSOLE_GUARDS,
    render: ConsoleAdminsPage,
  },
  { path: "/console/alerts", title: "Alerts", layout: "user", guards: CONSOLE_GUARDS, render: ConsoleAlertsPage },
  { path: "/console/audit", title: "Audit log", layout: "user", guards: CONSOLE_GUARDS, render: ConsoleAuditPage },
  { path: "/console/partners", title: "Partners", layout: "user", guards: CONSOLE_GUARDS, render: ConsolePartnersPage },
  {
    path: "/console/partners/:id",
    title: "Partner",
    layout: "user",
    guards: CONSOLE_GUARDS,
    validate: partnerExists,
    render: ConsolePartnerPage,
  },
  { path: "/console/receipts", title: "Receipts", layout: "user", guards: CONSOLE_GUARDS, render: ConsoleReceiptsPage },
  {
    path: "/console/referrals",
    title: "Referrals",
    layout: "user",
    guards: CONSOLE_GUARDS,
    render: ConsoleReferralsPage,
  },
  {
    path: "/console/affiliates",
    title: "Affiliates",
    layout: "user",
    guards: CONSOLE_GUARDS,
    render: ConsoleAffiliatesPage,
  },
  {
    path: "/console/attributions",
    title: "Attributions",
    layout: "user",
    guards: CONSOLE_GUARDS,
    render: ConsoleAttributionsPage,
  },
  { path: "/console/emails", title: "Emails", layout: "user", guards: CONSOLE_GUARDS, render: ConsoleEmailsPage },
  {
    path: "/console/emails/:id",
    title: "Email",
    layout: "user",
    guards: CONSOLE_GUARDS,
    validate: positiveId,
    render: ConsoleEmailPage,
  },
  {
    path: "/console/migration",
    title: "Migration",
    layout: "user",
    guards: CONSOLE_GUARDS,
    render: ConsoleMigrationPage,
  },
  {
    path: "/console/migration/:id",
    title: "Migration run",
    layout: "user",
    guards: CONSOLE_GUARDS,
    validate: migrationRunExists,
    render: ConsoleMigrationRunPage,
  },
  {
    path: "/console/profitReports",
    title: "Profit reports",
    layout: "user",
    guards: CONSOLE_GUARDS,
    render: ConsoleProfitPage,
  },
  {
    path: "/console/bulkemails",
    title: "Bulk emails",
    layout: "user",
    guards: CONSOLE_GUARDS,
    render: ConsoleBulkEmailsPage,
  },
  {
    path: "/console/bulkemails/:id",
    title: "Bulk email",
    layout: "user",
    guards: CONSOLE_GUARDS,
    validate: bulkEmailExists,
    render: ConsoleBulkEmailPage,
  },
  {
    path: "/console/pricingplan",
    title: "Pricing plans and rates",
    layout: "user",
    guards: CONSOLE_GUARDS,
    render: ConsolePricingPage,
  },
  {
    path: "/console/pricingplan/:id",
    title: "Pricing plan",
    layout: "user",
    guards: CONSOLE_GUARDS,
    validate: pricingPlanExists,
    render: ConsolePricingPlanPage,
  },
];

/**
 * Registers every page: its guards as per-route middleware, its validation, then the render in
 * its layout. Unknown guard names and bad route metadata stop the server here, at start. Without a
 * cache, public pages are rendered for every visitor.
 */
export function registerPages(app: Hono<AppEnv>, pages: PageRoute[] = PAGES, cache: PageCache | null = null): void {
  const notBuiltPaths = notBuilt(pages);
  for (const page of pages) {
    const Layout = LAYOUTS[page.layout ?? "default"];
    if (!Layout) throw new Error(`Route ${page.path} names an unknown layout "${page.layout}"`);
    const forced = resolveForcedMode(page.colorMode);
    const shows = page.publicCache?.shows;
    app.get(page.path, guards(...(page.guards ?? [])), async (c) => {
      if (page.validate && !(await page.validate(c.req.param() as Record<string, string>, c))) {
        throw new HTTPException(404, { message: "Page not found" });
      }
      const cached = cache && shows ? await cache.lookup(c, shows) : null;
      if (cached) c.set("publicPage", cached);
      if (cached?.page) return sendPage(c, cached.page);
      const switched = page.switchAccount ? await page.switchAccount(c) : null;
      if (switched) return switched;
      const account = page.layout === "user" ? await layoutAccount(c) : null;
      // A page about an account, for a customer with several who has not chosen one yet. One about no
      // one record (the calculator's "Convert now") is where the choice comes back to; one about a
      // record that did not switch is of no account of theirs, and choosing goes to the dashboard.
      if (account === "choose" && page.guards?.includes("has-account")) {
        if (!page.switchAccount) rememberPage(c);
        return c.redirect(ACCOUNT_SELECT, 302);
      }
      const content = await page.render(c);
      if (content instanceof Response) return content;
      // Signed-in pages hand the person's new in-app notifications to the notification queue: as
      // many as it shows at once after the page's flashed ones; the rest wait for the next page.
      const user = c.get("user");
      const notifications = page.layout === "user" && user
        ? await takeUndelivered(
          c.get("db"),
          user.id,
          new Date(c.get("services").now()),
          NOTIFICATIONS_MAX_VISIBLE - flashCount(c),
          account && account !== "choose" ? (await accountChoice(c)).current?.accountId : undefined,
        )
        : [];
      // The console menu counts the open alerts (one count on an index, decision 045).
      const counts = page.layout === "user" && user?.level === "Admin"
        ? { "/console/alerts": await openAlertCount(c.get("db")) }
        : undefined;
      const rendered = renderPage(c, {
        title: page.title,
        description: page.description,
        // A page behind a guard is someone's own: search engines keep out of it.
        noindex: !!page.guards?.length,
        forcedColorMode: forced,
        render: () => (
          <Layout account={account === "choose" ? null : account} notBuilt={notBuiltPaths} counts={counts}>
            {content}
          </Layout>
        ),
        notifications,
      });
      cached?.keep(rendered);
      return sendPage(c, rendered);
    });
  }

  // The layouts' "Sign out" form. The client's copy of the user (its cookie) goes with the session.
  // Signing out from someone else's invitation or validation link goes back to it (decision 082);
  // nowhere else. The security page's "Sign out everywhere" (everywhere=1) ends every session of
  // the login, for the device left signed in somewhere: only from a session past the second factor,
  // else someone who has only the password could sign the owner out wherever they are, as often as
  // they liked.
  app.post("/logout", async (c) => {
    const form = await c.req.parseBody().catch(() => ({} as Record<string, unknown>));
    const { sessions } = c.get("services");
    const user = c.get("user");
    if (form.everywhere === "1" && user?.secondFactor) {
      await sessions.endAll(user.id);
      flash(c, {
        title: "Signed out everywhere",
        description: "Every session of your login has ended.",
        color: "success",
      });
    }
    await sessions.end(c, c.get("session"));
    deleteCookie(c, "user", { path: "/" });
    const next = typeof form.next === "string" && (isInvitationLink(form.next) || isValidationLink(form.next))
      ? form.next
      : "/";
    return c.redirect(next, 303);
  });

  // /auth sends a signed-in user to their first unmet onboarding step, or home. Administrators
  // have no customer profile: for them the steps end with the second factor.
  // /auth sends a signed-in user to their first unmet onboarding step, or home. Administrators
  // have no customer profile: for them the steps end with the second factor. A customer who opened
  // an invitation before signing in goes back to it once signed in; one sent to sign in from a page
  // that remembers it (server/guards.ts AFTER_SIGN_IN: "Convert now" on the calculator, a payment's
  // or a rate alert's email link) goes on to it; one with several accounts and none chosen for this
  // session chooses otherwise.
  app.get("/auth", async (c) => {
    const user = c.get("user");
    const steps = user?.level === "Admin" ? AUTH_ORDER.slice(0, 3) : AUTH_ORDER;
    const invitation = getCookie(c, INVITATION_COOKIE);
    if (invitation && user?.level === "User" && evaluateGuards(AUTH_ORDER.slice(0, 3), user).pass) {
      deleteCookie(c, INVITATION_COOKIE, { path: "/" });
      // Only an invitation for this person's own address: someone else's (opened in this browser
      // before another person signed in) is dropped and the ordinary steps follow.
      const preview = await previewInvitation(c.get("db"), invitation, new Date(c.get("services").now()));
      if (preview?.email === user.username) return c.redirect(invitationLink(invitation), 302);
    }
    const verdict = evaluateGuards(steps, user);
    if (!verdict.pass) {
      if ("notFound" in verdict) throw new HTTPException(404, { message: "Page not found" });
      return c.redirect(await noAccountInstead(c, verdict.to), 302);
    }
    // Taken by whoever signs in, an administrator too (who is never sent to a customer's page): else
    // the next customer to sign in at this browser within the hour would land on it.
    const remembered = afterSignIn(c);
    if (user!.level !== "Admin") {
      // The remembered page before the choice of an account: a payment's or a rate alert's page
      // switches to the account it is about by itself, and asking first would lose it.
      if (remembered) return c.redirect(remembered, 302);
      const { current, linked } = await accountChoice(c);
      if (!current && linked > 1) return c.redirect(ACCOUNT_SELECT, 302);
    }
    return c.redirect(homeOf(user!), 302);
  });
}

/**
 * /processing is for an application under review; someone removed from every account they were in
 * goes to /no-account instead (server/accounts/removed.ts).
 */
async function noAccountInstead(c: Context<AppEnv>, to: string): Promise<string> {
  const customer = customerOf(c);
  return customer ? await insteadOfProcessing(c.get("db"), customer.id, to) : to;
}

/**
 * The account a user-layout page acts on, for its header and navigation: null when the visitor
 * has none (or is an administrator acting for nobody), "choose" when they have several and none
 * is chosen for this session.
 */
async function layoutAccount(c: Context<AppEnv>): Promise<LayoutAccount | "choose" | null> {
  if (!customerOf(c)?.account) return null;
  const { current, linked } = await accountChoice(c);
  if (!current) return linked > 1 ? "choose" : null;
  return {
    name: current.name,
    account_ref: current.accountRef,
    role: current.role,
    several: linked > 1,
    restricted: current.ownerRestricted,
  };
}
