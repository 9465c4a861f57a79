import type { ReactNode } from "react";
import { Notifications, OnBehalf } from "./parts.tsx";

/** Blank layout: the page alone, for screens that stand by themselves (setup, calculator). */
export function BlankLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <OnBehalf />
      <main className="mx-auto min-h-screen max-w-3xl px-4 py-10">{children}</main>
      <Notifications />
    </>
  );
}
