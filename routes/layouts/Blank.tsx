import type { ReactNode } from "react";
import { Logo, MAIN_ID, Notifications, OnBehalf, SkipLink } from "./parts.tsx";

/**
 * Blank layout: the page alone, for screens that stand by themselves (setup, calculator), with only
 * the logo above it: the way back home.
 */
export function BlankLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <SkipLink />
      <OnBehalf />
      <header className="mx-auto max-w-3xl px-4 pt-6">
        <Logo />
      </header>
      <main id={MAIN_ID} tabIndex={-1} className="mx-auto min-h-screen max-w-3xl px-4 py-10 outline-none">
        {children}
      </main>
      <Notifications />
    </>
  );
}
