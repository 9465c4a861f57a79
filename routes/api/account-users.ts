import { Hono } from "hono";
import type { Context } from "hono";
import * as calls from "../../lib/contracts/account-users.ts";
import { accountChoice, accountChoiceOf, currentAccount, customerOf } from "../../server/accounts/current.ts";
import {
  acceptInvitation,
  type InvitationDeps,
  invite,
  listInvitations,
  registerThroughInvitation,
  revokeInvitation,
  signedInAlready,
} from "../../server/accounts/invitations.ts";
import { actOn, linkedAccounts, selectAccount } from "../../server/accounts/linked.ts";
import { changeRole, listAccountUsers, personNameOf, removeAccountUser } from "../../server/accounts/members.ts";
import { clientAddress } from "../../server/auth/sessions.ts";
import type { AppEnv } from "../../server/env.ts";
import { Conflict, Refused } from "../../server/errors.ts";
import { afterSignIn } from "../../server/guards.ts";
import { ApiError } from "../../server/http/api.ts";
import { reply, route } from "../../server/http/route.ts";

/** Account users, invitations and linked accounts (decision 028). */

const now = (c: Context<AppEnv>) => new Date(c.get("services").now());

function deps(c: Context<AppEnv>): InvitationDeps {
  const { mailer, limiter } = c.get("services");
  const { publicUrl, supportEmail } = c.get("config");
  return { db: c.get("db"), mailer, limiter, publicUrl, supportEmail };
}

/** The current account and who acts on it: the customer, and the administrator when on their behalf. */
async function accountAndActor(c: Context<AppEnv>) {
  const current = await currentAccount(c);
  return {
    account: current,
    actor: {
      userId: current.customer.id,
      name: await personNameOf(c.get("db"), current.customer.id),
      role: current.role,
      onBehalfAdminId: c.get("onBehalf") ? c.get("user")!.id : null,
    },
  };
}

/** The session whose account choice a call changes (guards have required a signed-in user). */
function sessionOf(c: Context<AppEnv>) {
  const session = c.get("session");
  if (!session) throw new ApiError(401, "Please sign in.", { redirect: "/" });
  return session;
}

export const accountUsers = new Hono<AppEnv>();

route(accountUsers, calls.listAccountUsers, async (c) => {
  const { accountId, customer } = await currentAccount(c);
  return await listAccountUsers(c.get("db"), accountId, customer.id);
});

route(accountUsers, calls.inviteAccountUser, async (c, { body }) => {
  const { account, actor } = await accountAndActor(c);
  return await invite(deps(c), account, actor, body, now(c));
});

route(accountUsers, calls.changeAccountUserRole, async (c, { params, body }) => {
  const { account, actor } = await accountAndActor(c);
  return await changeRole(deps(c), account, actor, params.id, body.role, now(c));
});

route(accountUsers, calls.removeAccountUser, async (c, { params }) => {
  const { account, actor } = await accountAndActor(c);
  await removeAccountUser(deps(c), account, actor, params.id, now(c));
  return { removed: true } as const;
});

route(accountUsers, calls.listInvitations, async (c) => {
  const { accountId } = await currentAccount(c);
  return await listInvitations(c.get("db"), accountId, now(c));
});

route(accountUsers, calls.revokeInvitation, async (c, { params }) => {
  const { account, actor } = await accountAndActor(c);
  await revokeInvitation(deps(c), account, actor, params.id, now(c));
  return { revoked: true } as const;
});

route(accountUsers, calls.acceptInvitation, async (c, { body }) => {
  // Joining an account is the person's own act: an administrator cannot do it on their behalf.
  if (c.get("onBehalf")) throw new Refused("An administrator cannot accept an invitation for a customer.");
  const user = c.get("user")!;
  const accountId = await acceptInvitation(deps(c), user, body.token, now(c));
  const session = sessionOf(c);
  await actOn(c.get("db"), session.id, accountId);
  // Read again: the request's own copy of the choice is from before it joined.
  const { current } = await accountChoiceOf(c.get("db"), user.id, session.id);
  const joined = (await linkedAccounts(c.get("db"), user.id, current)).find((a) => a.current)!;
  return reply(joined, { redirect: "/auth" });
});

route(accountUsers, calls.registerThroughInvitation, async (c, { body }) => {
  // A new person's login is not made from inside someone else's session: whoever is signed in on
  // this browser signs out first, knowingly (decision 082), rather than being signed out by it.
  const signedIn = c.get("user");
  if (signedIn) throw new Conflict(signedInAlready(signedIn.username));
  const { verifications, sessions } = c.get("services");
  const { user, accountId } = await registerThroughInvitation(
    { ...deps(c), verifications },
    body,
    clientAddress(c),
    now(c),
  );
  // Nobody is signed in (refused above): a session of this browser without a person gives way.
  await sessions.end(c, c.get("session"));
  const session = await sessions.start(c, user.id, false);
  c.set("session", session);
  await actOn(c.get("db"), session.id, accountId);
  return reply({ id: user.id, username: user.username }, { redirect: "/second-factor" });
});

route(
  accountUsers,
  calls.listLinkedAccounts,
  async (c) => await linkedAccounts(c.get("db"), customerOf(c)!.id, (await accountChoice(c)).current),
);

route(accountUsers, calls.selectAccount, async (c, { body }) => {
  const chosen = await selectAccount(c.get("db"), sessionOf(c), customerOf(c)!.id, body.account_ref);
  // The page remembered while choosing (rememberPage: "Convert now" signed out), else the dashboard.
  return reply(chosen, { redirect: afterSignIn(c) ?? "/account" });
});
