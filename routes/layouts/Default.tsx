import type { ReactNode } from "react";
import { withAttribution } from "../../lib/attribution.ts";
import { usePage } from "../../server/render/page-context.ts";
import { ColorMode, Logo, MAIN_ID, Notifications, OnBehalf, SignOut, SkipLink } from "./parts.tsx";

/** Default layout: public pages, with the site header and footer. */
export function DefaultLayout({ children }: { children: ReactNode }) {
  const { user, path } = usePage();
  return (
    <div className="flex min-h-screen flex-col">
      <SkipLink />
      <OnBehalf />
      <header className="border-b border-neutral-200 dark:border-neutral-800">
        {
          /* On a phone the links go on a line of their own under the logo (and the colour mode) rather
            than widen the page; from sm up, one line with the colour mode last. */
        }
        <nav aria-label="Site" className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-2 gap-y-2 px-4 py-3">
          <Logo />
          <div className="flex w-full flex-wrap items-center justify-end gap-1 max-sm:order-last sm:ml-auto sm:w-auto">
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
                  <a className="btn-primary" href={withAttribution("/register", path)}>Open an account</a>
                </>
              )}
          </div>
          <div className="ml-auto sm:ml-0">
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
