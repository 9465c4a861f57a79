/**
 * A form's submit button: disabled until the island is hydrated and while the form is being sent,
 * with a label that says what is happening.
 */
import { type ReactNode, useEffect, useState } from "react";

/**
 * False on the server and in the first client render, true once hydrated. Submit buttons stay
 * disabled until then, so a form sent before its script runs cannot go out as a plain GET with the
 * password in the address.
 */
export function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

export function SubmitButton({ pending, children, pendingLabel, className = "btn-primary w-full" }: {
  pending: boolean;
  children: ReactNode;
  pendingLabel: string;
  className?: string;
}) {
  const hydrated = useHydrated();
  return (
    <button type="submit" className={className} disabled={pending || !hydrated} aria-busy={pending || undefined}>
      {pending ? pendingLabel : children}
    </button>
  );
}
