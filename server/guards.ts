import type { Context, MiddlewareHandler } from "hono";
import { every } from "hono/combine";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { HTTPException } from "hono/http-exception";
import type { SessionUser } from "./auth/session-user.ts";
import type { AppEnv } from "./env.ts";
import { ApiError, isApi, noSuchCall } from "./http/api.ts";
import { refuseIfRemoved } from "./accounts/removed.ts";
import { AUTH_ORDER, CONSOLE_GUARDS, CUSTOMER_GUARDS, GUARD_NAMES, type GuardName } from "../lib/contracts/guards.ts";

/**
 * The named guards of SPEC.md section 6 with the rules of DESIGN.md section 3. Each guard either
 * lets the request through or says where the visitor must go instead. Pages redirect there; calls
 * under /api/ answer 401 (no session) or 403 with that `redirect`, which the client follows.
 */
type Verdict = { pass: true } | { pass: false; to: string } | { pass: false; notFound: true };

const PASS: Verdict = { pass: true };
const toHome: Verdict = { pass: false, to: "/" };

function rule(check: (user: SessionUser) => boolean, elsewhere: (user: SessionUser) => string) {
  return (user: SessionUser | null): Verdict => {
    if (!user) return toHome;
    return check(user) ? PASS : { pass: false, to: elsewhere(user) };
  };
}

export const registerScreen = (user: SessionUser) =>
  user.type === "Business" ? "/register-business" : "/register-personal";

/** Where a signed-in user belongs once every onboarding step is done. */
export const homeOf = (user: SessionUser) => (user.level === "Admin" ? "/console/users" : "/account");

const RULES: Record<GuardName, (user: SessionUser | null) => Verdict> = {
  loggedin: (user: SessionUser | null): Verdict => (user ? PASS : toHome),
  "is-verified": rule((u) => u.validated, () => "/verify"),
  "is-not-verified": rule((u) => !u.validated, () => "/auth"),
  secondfactor: rule((u) => u.secondFactor, () => "/second-factor"),
  "has-profile": rule((u) => u.profile, registerScreen),
  "has-no-profile": rule((u) => !u.profile, () => "/auth"),
  "identity-checked": rule((u) => u.identity, () => "/identity"),
  "has-account": rule((u) => u.account, () => "/processing"),
  // The console does not reveal itself: anyone but an administrator gets "not found".
  "is-admin": (user: SessionUser | null): Verdict => user?.level === "Admin" ? PASS : { pass: false, notFound: true },
  "is-user": rule((u) => u.level !== "Admin", homeOf),
  "is-business": rule((u) => u.type === "Business", homeOf),
  "is-personal": rule((u) => u.type === "Personal", homeOf),
};

export { AUTH_ORDER, CONSOLE_GUARDS, CUSTOMER_GUARDS, GUARD_NAMES, type GuardName };

/** Runs guards in order and returns the first that fails, or PASS. */
export function evaluateGuards(names: readonly GuardName[], user: SessionUser | null): Verdict {
  for (const name of names) {
    const verdict = RULES[name](user);
    if (!verdict.pass) return verdict;
  }
  return PASS;
}

/**
 * Whether a customer can act on their account now: every guard of a customer call lets them
 * through (CUSTOMER_GUARDS: address confirmed, second factor, profile, identity check passed, an
 * account) and they are not restricted (decision 048: nothing that moves money runs for them). For
 * someone who is not signed in, read their summary with the second factor passed: they pass it at
 * each sign-in, so it says nothing about whether they could act.
 */
export function canActOnAccount(user: SessionUser): boolean {
  return evaluateGuards(CUSTOMER_GUARDS, user).pass && !user.restricted;
}

/**
 * Guards about the session (signed in, second factor, administrator) read the signed-in user.
 * Guards about a customer's onboarding read the customer: for an administrator acting on behalf,
 * the customer they act for.
 */
const ABOUT_THE_SESSION = new Set<GuardName>(["loggedin", "secondfactor", "is-admin"]);

export function subjectOf(name: GuardName, c: Context<AppEnv>): SessionUser | null {
  return ABOUT_THE_SESSION.has(name) ? c.get("user") : (c.get("onBehalf") ?? c.get("user"));
}

/**
 * Pages a visitor not signed in is brought back to once signed in, with their query (the
 * calculator's "Convert now" carries its pair and amount; an email's link names its payment or its
 * rate alert): the guard remembers the page in a cookie for an hour and sends them to the sign-in
 * form; /auth sends them on to it once every onboarding step is done (afterSignIn). The emails link
 * to a payment's page (server/payments/notify.ts paymentLink) and to the rate alerts
 * (server/ratealerts/check.ts firedAlertLink), read signed out as often as not (decision 068, amended).
 */
const AFTER_SIGN_IN_PAGES = [
  /^\/account\/convert$/,
  /^\/account\/pendingpayments\/[1-9]\d*$/,
  /^\/account\/ratealerts$/,
];
const bringsBackAfterSignIn = (path: string) => AFTER_SIGN_IN_PAGES.some((page) => page.test(path));
export const AFTER_SIGN_IN = "after_sign_in";

/**
 * Remembers the page, when it is one of the pages above: for a visitor sent to sign in (the guard
 * below), and for a customer on several accounts sent to choose the one to work on (routes/pages.tsx:
 * the calculator's "Convert now" is about no one account, and choosing comes back to it, POST
 * account/select answering it as its redirect, rather than to the dashboard, the figures lost).
 * Answers whether it was remembered.
 */
export function rememberPage(c: Context<AppEnv>): boolean {
  if (c.req.method !== "GET" || !bringsBackAfterSignIn(c.req.path)) return false;
  const url = new URL(c.req.url);
  setCookie(c, AFTER_SIGN_IN, `${url.pathname}${url.search}`, {
    path: "/",
    httpOnly: true,
    sameSite: "Lax",
    secure: c.get("config").appEnv === "production",
    maxAge: 60 * 60,
  });
  return true;
}

/**
 * The page remembered before signing in, or before choosing an account (taken: it is used once), if
 * it is still one of ours.
 */
export function afterSignIn(c: Context<AppEnv>): string | null {
  const remembered = getCookie(c, AFTER_SIGN_IN);
  if (remembered === undefined) return null;
  deleteCookie(c, AFTER_SIGN_IN, { path: "/" });
  // Only a path of this site (never "//elsewhere", nor "/\\elsewhere", which browsers read the
  // same way), of the pages above: the page is read as a browser would, and sent as read.
  if (!remembered.startsWith("/")) return null;
  const page = new URL(remembered, "http://x");
  if (page.origin !== "http://x" || !bringsBackAfterSignIn(page.pathname)) return null;
  return `${page.pathname}${page.search}`;
}

function guardMiddleware(name: GuardName): MiddlewareHandler<AppEnv> {
  const check = RULES[name];
  const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
    const verdict = check(subjectOf(name, c));
    if (verdict.pass) return await next();
    if ("notFound" in verdict) {
      throw isApi(c) ? new ApiError(404, noSuchCall(c)) : new HTTPException(404, { message: "Page not found" });
    }
    if (isApi(c)) {
      if (!c.get("user")) throw new ApiError(401, "Please sign in.", { redirect: verdict.to });
      // Someone removed from every account is not waiting for a review: the call says so and
      // points where the pages send them (/no-account), not to /processing.
      const subject = subjectOf(name, c);
      if (verdict.to === "/processing" && subject) await refuseIfRemoved(c.get("db"), subject.id);
      throw new ApiError(403, "You cannot do this yet.", { redirect: verdict.to });
    }
    if (!c.get("user") && rememberPage(c)) return c.redirect("/#sign-in", 302);
    return c.redirect(verdict.to, 302);
  };
  Object.defineProperty(middleware, "name", { value: `guard:${name}` });
  return middleware;
}

const MIDDLEWARE = Object.fromEntries(GUARD_NAMES.map((name) => [name, guardMiddleware(name)])) as Record<
  GuardName,
  MiddlewareHandler<AppEnv>
>;

/**
 * The named guards as one middleware that runs them in order, for route tables:
 * `app.get(path, guards("loggedin", "has-account"), handler)`. (In code, the guards exported below
 * read the same: `app.get(path, loggedin, hasAccount, handler)`.) An unknown name throws at once,
 * so a typo in a route table stops the server at start.
 */
export function guards(...names: readonly GuardName[]): MiddlewareHandler<AppEnv> {
  const chain = names.map((name) => {
    if (!Object.hasOwn(MIDDLEWARE, name)) {
      throw new Error(`Unknown guard "${name}". Known guards: ${GUARD_NAMES.join(", ")}.`);
    }
    return MIDDLEWARE[name as GuardName];
  });
  return every(...chain);
}

export const {
  loggedin,
  secondfactor,
  "is-verified": isVerified,
  "is-not-verified": isNotVerified,
  "has-profile": hasProfile,
  "has-no-profile": hasNoProfile,
  "identity-checked": identityChecked,
  "has-account": hasAccount,
  "is-admin": isAdmin,
  "is-user": isUser,
  "is-business": isBusiness,
  "is-personal": isPersonal,
} = MIDDLEWARE;
