import type { Context } from "hono";
import { setCookie } from "hono/cookie";
import { ACCOUNT_ROLES, may, ROLE_DESCRIPTIONS } from "../../lib/permissions.ts";
import { accountChoice, currentAccount, customerOf } from "../../server/accounts/current.ts";
import { listInvitations, previewInvitation } from "../../server/accounts/invitations.ts";
import { linkedAccounts } from "../../server/accounts/linked.ts";
import { listAccountUsers } from "../../server/accounts/members.ts";
import type { AppEnv } from "../../server/env.ts";
import { balancesAnswer } from "../../server/money/balances.ts";
import { currencyList } from "../../server/money/currencies.ts";
import { approvalRuleAnswer } from "../../server/payments/approval-rules.ts";
import {
  AccountSelect,
  AccountUsers,
  ApprovalRule,
  InvitationAccept,
  InvitationRegister,
  LinkedAccounts,
} from "../islands.ts";
import { PageTitle, SignOut } from "../layouts/parts.tsx";
import { momentInUtc } from "../../lib/moment.ts";
import { RULE_NOT_ON_BEHALF } from "../../lib/payments/approval-notes.ts";

/** Account users, linked accounts and invitations (decision 028): each page loads what it shows. */

const now = (c: Context<AppEnv>) => new Date(c.get("services").now());

const roles = ACCOUNT_ROLES.map((role) => ({ role, description: ROLE_DESCRIPTIONS[role] }));

/** An approval amount's currencies: those the account holds first, then GBP (the portal's own), then the rest. */
function thresholdCurrencies(held: string[]) {
  const first = [...held, "GBP"];
  const rank = (code: string) => first.includes(code) ? first.indexOf(code) : first.length;
  return currencyList()
    .map(({ code, name }) => ({ code, name }))
    .sort((a, b) => rank(a.code) - rank(b.code));
}

export async function AccountUsersPage(c: Context<AppEnv>) {
  const { accountId, accountRef, accountName, accountType, role, customer } = await currentAccount(c);
  const db = c.get("db");
  const manages = may(role, "users.manage");
  const business = accountType === "Business";
  // An administrator on behalf sees the rule but does not change it (RULE_NOT_ON_BEHALF).
  const onBehalf = !!c.get("onBehalf");
  const ruleOnBehalf = onBehalf && may(role, "approvals.manage");
  // On behalf, only the roles an administrator may give (checkRoleGivenOnBehalf): none that approves.
  const givable = onBehalf ? roles.filter((r) => !may(r.role, "payments.approve")) : roles;
  const setsRule = may(role, "approvals.manage") && !ruleOnBehalf;
  const [users, invitations, rule, balances] = await Promise.all([
    listAccountUsers(db, accountId, customer.id),
    manages && business ? listInvitations(db, accountId, now(c)) : Promise.resolve([]),
    business ? approvalRuleAnswer(db, accountId) : Promise.resolve(null),
    business && setsRule ? balancesAnswer(db, accountId) : Promise.resolve([]),
  ]);
  return (
    <section className="flex max-w-4xl flex-col gap-6">
      <PageTitle lead={`Who can use ${accountName} (${accountRef}), and what each of them may do.`}>
        Account users
      </PageTitle>
      {!business && (
        <p className="card" role="note">
          This is a personal account: you are its only user. Inviting people with roles is for business accounts.
        </p>
      )}
      {business && !manages && (
        <p className="card" role="note">
          As {role === "approver" ? "an approver" : `a ${role}`}{" "}
          you can see who uses this account. Owners and admins invite people and change their roles.
        </p>
      )}
      {business && manages && onBehalf && (
        <p className="card" role="note">
          Acting on behalf of the customer, you can invite payers and viewers and give those roles. Owners, admins and
          approvers are the customer's own people to add: they decide who approves payments.
        </p>
      )}
      <AccountUsers
        accountRef={accountRef}
        users={users}
        invitations={invitations}
        canManage={manages && business}
        isOwner={role === "owner"}
        roles={givable}
      />
      {rule && (
        // Maker-checker (issue 8): a personal account has nobody else to approve, so no rule.
        <section aria-labelledby="approval-rule-heading" className="card flex min-w-0 flex-col gap-3">
          <h2 id="approval-rule-heading" className="text-lg font-semibold">Approval of payments</h2>
          {ruleOnBehalf && <p role="note">{RULE_NOT_ON_BEHALF}</p>}
          <ApprovalRule
            accountRef={accountRef}
            rule={rule}
            canManage={setsRule}
            currencies={setsRule ? thresholdCurrencies(balances.map((b) => b.currency)) : []}
          />
        </section>
      )}
    </section>
  );
}

/** The accounts of the request's customer, the current one marked. */
async function linkedAccountsOf(c: Context<AppEnv>) {
  return await linkedAccounts(c.get("db"), customerOf(c)!.id, (await accountChoice(c)).current);
}

export async function LinkedAccountsPage(c: Context<AppEnv>) {
  return (
    <section className="flex max-w-3xl flex-col gap-6">
      <PageTitle lead="Every account your login belongs to. The one you work on now is marked; switch to work on another.">
        Linked accounts
      </PageTitle>
      <LinkedAccounts accounts={await linkedAccountsOf(c)} />
    </section>
  );
}

export async function AccountSelectPage(c: Context<AppEnv>) {
  return (
    <section className="mx-auto flex max-w-xl flex-col gap-6">
      <PageTitle lead="Your login belongs to several accounts. Choose the one to work on; you can switch at any time.">
        Choose an account
      </PageTitle>
      <AccountSelect accounts={await linkedAccountsOf(c)} />
      <div className="flex justify-end">
        <SignOut />
      </div>
    </section>
  );
}

/** An invitation's link on this site, as the page is opened (its token is base64url). */
export const invitationLink = (token: string) => `/invite?token=${encodeURIComponent(token)}`;

/** Whether a path is an invitation's link, and nothing else: where signing out may lead back to. */
export const isInvitationLink = (path: string) => /^\/invite\?token=[A-Za-z0-9_-]{1,200}$/.test(path);

/** Remembers an invitation opened before signing in, so /auth brings the person back to it. */
export const INVITATION_COOKIE = "invitation";

function rememberInvitation(c: Context<AppEnv>, token: string) {
  setCookie(c, INVITATION_COOKIE, token, {
    path: "/",
    httpOnly: true,
    sameSite: "Lax",
    secure: c.get("config").appEnv === "production",
    maxAge: 60 * 60,
  });
}

/**
 * The invitation's link: who invited the person to which account with which role, then what fits
 * who is looking: a registration form for a new person, "sign in" for someone who has a login,
 * "accept" once signed in as the invited address, and a plain refusal for anyone else.
 */
export async function InvitePage(c: Context<AppEnv>) {
  const token = c.req.query("token") ?? "";
  const invitation = await previewInvitation(c.get("db"), token, now(c));
  if (!invitation) {
    c.status(404);
    return (
      <section>
        <PageTitle>Invitation</PageTitle>
        <p role="alert">
          This invitation is not valid any more: it was used, withdrawn or has expired. Ask the person who invited you
          for a new one.
        </p>
      </section>
    );
  }
  const user = c.get("user");
  const intro = (
    <>
      <PageTitle lead={`Until ${momentInUtc(invitation.expiresAt)}`}>Join {invitation.accountName}</PageTitle>
      <p className="mb-4">
        {invitation.invitedBy} invited <strong>{invitation.email}</strong> to use the Portal account of{" "}
        {invitation.accountName} as <strong>{invitation.role}</strong>: {ROLE_DESCRIPTIONS[invitation.role]}
      </p>
    </>
  );
  if (user?.level === "Admin") {
    return (
      <section>
        {intro}
        <p role="alert">You are signed in as an administrator, who cannot join a customer's account. Sign out first.</p>
        <SignOut />
      </section>
    );
  }
  // Not remembered for someone else: the cookie brings back whoever signs in next, and it would
  // keep sending this person here (see /auth).
  if (user && user.username !== invitation.email) {
    return (
      <section>
        {intro}
        <p role="alert" className="mb-4">
          You are signed in as {user.username}. This invitation is for {invitation.email}: sign out, then sign in as
          {" "}
          {invitation.email} to accept it. If {invitation.email}{" "}
          has no Portal login yet, they register through this link.
        </p>
        <SignOut next={invitationLink(token)} label="Sign out and open the invitation" />
      </section>
    );
  }
  if (user && (!user.validated || !user.secondFactor)) {
    rememberInvitation(c, token);
    return (
      <section>
        {intro}
        <p>
          Finish signing in first; we bring you back here to accept.{" "}
          <a className="btn-primary" href="/auth">Continue</a>
        </p>
      </section>
    );
  }
  if (user) {
    return (
      <section>
        {intro}
        <InvitationAccept token={token} accountName={invitation.accountName} />
      </section>
    );
  }
  if (invitation.hasLogin) {
    rememberInvitation(c, token);
    return (
      <section>
        {intro}
        <p className="mb-4">
          You already have a Portal login with {invitation.email}. Sign in, and we bring you back here to accept.
        </p>
        <a className="btn-primary" href="/">Sign in</a>
      </section>
    );
  }
  return (
    <section>
      {intro}
      <p className="mb-4">
        Choose a password for your Portal login. Then we email you a sign-in code, and ask who you are (a short profile
        and an identity check, as for everyone who uses Portal) before you can use the account.
      </p>
      <InvitationRegister token={token} email={invitation.email} />
    </section>
  );
}
