import type { ReactNode } from "react";
import { usePage } from "../../server/render/page-context.ts";
import { ColorMode, Logo, MAIN_ID, Notifications, OnBehalf, SignOut, SkipLink } from "./parts.tsx";

/** Default layout: public pages, with the site header and footer. */
export function DefaultLayout({ children }: { children: ReactNode }) {
  const { user } = usePage();
  return (
    <div className="flex min-h-screen flex-col">
      <SkipLink />
      <OnBehalf />
      <header className="border-b border-neutral-200 dark:border-neutral-800">
        {/* On a phone the links wrap under the logo rather than widen the page. */}
        <nav aria-label="Site" className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3">
          <Logo />
          <div className="ml-auto flex flex-wrap items-center justify-end gap-1">
            <a className="nav-link" href="/calculator">Calculator</a>
            {user
              ? (
                <>
                  <a className="nav-link" href="/auth">My account</a>
                  <SignOut />
                </>
              )
              : (
                <>
                  <a className="nav-link" href="/">Sign in</a>
                  <a className="btn-primary" href="/register">Open an account</a>
                </>
              )}
            <ColorMode />
          </div>
        </nav>
      </header>
      <main id={MAIN_ID} tabIndex={-1} className="mx-auto w-full max-w-6xl flex-1 px-4 py-10 outline-none">
        {children}
      </main>
      <footer className="border-t border-neutral-200 py-6 text-center text-sm text-neutral-600 dark:border-neutral-800 dark:text-neutral-400">
        Portal · international payments and currency exchange
      </footer>
      <Notifications />
    </div>
  );
}
