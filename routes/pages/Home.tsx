import { SignInCard } from "./onboarding.tsx";

/** Home: what the portal is for, and signing in. */
export function Home() {
  return (
    <div className="grid gap-10 md:grid-cols-2 md:items-center">
      <section>
        <h1 className="text-4xl font-bold tracking-tight">Send money abroad and hold many currencies</h1>
        <p className="mt-4 text-lg text-neutral-700 dark:text-neutral-300">
          Open a Personal or Business account online, prove who you are, hold balances in many currencies, convert at a
          quoted rate and pay people abroad.
        </p>
        <div className="mt-6 flex gap-3">
          <a className="btn-primary" href="/register">Open an account</a>
          <a className="btn-ghost" href="/calculator">See our rates</a>
        </div>
      </section>
      <SignInCard />
    </div>
  );
}
