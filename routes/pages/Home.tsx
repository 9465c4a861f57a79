import type { SessionUser } from "../../server/auth/session-user.ts";
import { AUTH_ORDER, evaluateGuards, homeOf } from "../../server/guards.ts";
import { withAttribution } from "../../lib/attribution.ts";
import { usePage } from "../../server/render/page-context.ts";
import { SignInCard } from "./onboarding.tsx";

/** Home: what the portal is for, and signing in; for someone signed in, where to go next. */
export function Home({ user = null, next }: { user?: SessionUser | null; next?: string }) {
  const { path } = usePage();
  return (
    <div className="grid gap-10 md:grid-cols-2 md:items-center">
      <section>
        <h1 className="text-4xl font-bold tracking-tight">Send money abroad and hold many currencies</h1>
        <p className="mt-4 text-lg text-neutral-700 dark:text-neutral-300">
          Open a Personal or Business account online, prove who you are, hold balances in many currencies, convert at a
          quoted rate and pay people abroad.
        </p>
        <div className="mt-6 flex flex-wrap gap-3">
          {user ? null : <a className="btn-primary" href={withAttribution("/register", path)}>Open an account</a>}
          <a className="btn-ghost" href="/calculator">See our rates</a>
        </div>
      </section>
      {user ? <NextStepCard user={user} next={next} /> : <SignInCard />}
    </div>
  );
}

/** What each screen /auth may send someone to is, in their words: a heading, a line, a button. */
const STEPS: Record<string, { title: string; lead: string; action: string }> = {
  "/verify": {
    title: "Confirm your email address",
    lead: "We sent you a link and a 6-digit code. Confirm your address to continue.",
    action: "Confirm my email address",
  },
  "/second-factor": {
    title: "Finish signing in",
    lead: "Enter the 6-digit code we sent you, or the one from your authenticator app.",
    action: "Enter my code",
  },
  "/register-personal": {
    title: "Tell us about yourself",
    lead: "We need a few details about you before we can open your account.",
    action: "Continue my application",
  },
  "/register-business": {
    title: "Tell us about your business",
    lead: "We need a few details about your business before we can open its account.",
    action: "Continue my application",
  },
  "/identity": {
    title: "Confirm your identity",
    lead: "One last step: prove who you are, and we open your account.",
    action: "Confirm my identity",
  },
  "/processing": {
    title: "We are reviewing your application",
    lead: "We will email you as soon as your account is open.",
    action: "See my application",
  },
  "/no-account": {
    title: "You are no longer a member of any account",
    lead: "Ask the account's owner to invite you again.",
    action: "See what happened",
  },
  "/account": {
    title: "Your account",
    lead: "Your balances, conversions and payments.",
    action: "Go to my account",
  },
  "/console/users": {
    title: "The console",
    lead: "Customers, receipts, payouts and rates.",
    action: "Go to the console",
  },
};

/**
 * Where a signed-in visitor goes next: the first onboarding step /auth would send them to, else
 * their account (or the console). The same order as /auth (routes/pages.tsx), so the button and
 * the "My account" link agree; the page is rendered for them alone, never from the visitors' cache
 * (decision 039).
 */
export function nextStepOf(user: SessionUser): string {
  const steps = user.level === "Admin" ? AUTH_ORDER.slice(0, 3) : AUTH_ORDER;
  const verdict = evaluateGuards(steps, user);
  return !verdict.pass && "to" in verdict ? verdict.to : homeOf(user);
}

/** `next`: where the server found the person goes, when it knows more than the summary (/no-account). */
function NextStepCard({ user, next }: { user: SessionUser; next?: string }) {
  const to = next ?? nextStepOf(user);
  const step = STEPS[to] ?? STEPS["/account"];
  return (
    <section aria-labelledby="next-step" className="card">
      <p className="text-sm text-neutral-600 dark:text-neutral-400">
        Signed in as <strong className="break-all">{user.username}</strong>
      </p>
      <h2 id="next-step" className="mt-2 text-xl font-semibold">{step.title}</h2>
      <p className="mt-2 text-neutral-700 dark:text-neutral-300">{step.lead}</p>
      <a className="btn-primary mt-4 inline-flex" href={to}>{step.action}</a>
    </section>
  );
}
