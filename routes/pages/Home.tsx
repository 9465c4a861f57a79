/** Home: what the portal is for, and where signing in will be. */
export function Home() {
  return (
    <div className="grid gap-10 md:grid-cols-2 md:items-center">
      <section>
        <h1 className="text-4xl font-bold tracking-tight">Send money abroad and hold many currencies</h1>
        <p className="mt-4 text-lg text-neutral-700 dark:text-neutral-300">
          Open a Personal or Business account online, prove who you are, hold balances in many
          currencies, convert at a quoted rate and pay people abroad.
        </p>
        <div className="mt-6 flex gap-3">
          <a className="btn-primary" href="/register">Open an account</a>
          <a className="btn-ghost" href="/calculator">See our rates</a>
        </div>
      </section>
      <section aria-labelledby="sign-in" className="card">
        <h2 id="sign-in" className="text-xl font-semibold">Sign in</h2>
        <p className="mt-2 text-neutral-700 dark:text-neutral-300" role="status">
          Coming soon: signing in with your email, password and a second factor arrives with the
          sign-in work.
        </p>
      </section>
    </div>
  );
}
