import type { ReactNode } from "react";
import { usePage } from "../../server/render/page-context.ts";
import { ColorMode, Logo, MAIN_ID, Notifications, OnBehalf, SignOut, SkipLink } from "./parts.tsx";

const STEPS = [
  { label: "Account", paths: ["/register"] },
  { label: "Verify email", paths: ["/verify"] },
  { label: "Profile", paths: ["/register-personal", "/register-business"] },
  { label: "Identity", paths: ["/identity"] },
];

/** Register layout: the onboarding steps around a centred card. */
export function RegisterLayout({ children }: { children: ReactNode }) {
  const { path } = usePage();
  const pathname = path.split("?")[0];
  const current = STEPS.findIndex((s) => s.paths.includes(pathname));
  return (
    <div className="min-h-screen bg-neutral-50 dark:bg-neutral-950">
      <SkipLink />
      <OnBehalf />
      <header className="mx-auto flex max-w-3xl items-center justify-between px-4 py-4">
        <Logo />
        <div className="flex items-center gap-2">
          <ColorMode />
          <SignOut />
        </div>
      </header>
      <nav aria-label="Onboarding steps" className="mx-auto max-w-3xl px-4">
        <ol className="flex flex-wrap gap-2 text-sm">
          {STEPS.map((step, i) => (
            <li
              key={step.label}
              aria-current={i === current ? "step" : undefined}
              className={i === current
                ? "rounded-full bg-primary-700 px-3 py-1 font-semibold text-white"
                : "rounded-full bg-neutral-200 px-3 py-1 text-neutral-700 dark:bg-neutral-800 dark:text-neutral-300"}
            >
              {`${i + 1}. ${step.label}`}
            </li>
          ))}
        </ol>
      </nav>
      <main id={MAIN_ID} tabIndex={-1} className="mx-auto max-w-3xl px-4 py-8 outline-none">
        <div className="card">{children}</div>
      </main>
      <Notifications />
    </div>
  );
}
