/**
 * A form's submit button: disabled until the island is hydrated, and refusing to submit again while
 * the form is being sent, with a label that says what is happening. While sending it is
 * aria-disabled rather than disabled: a disabled button loses the keyboard's focus, which then fell
 * to the page's body and left a keyboard user at the top of the page after every submit.
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
    <button
      type="submit"
      className={className}
      disabled={!hydrated}
      aria-disabled={pending || undefined}
      aria-busy={pending || undefined}
      // A click, or Enter in a field (the browser clicks the form's submit button), sends nothing
      // while the form is being sent.
      onClick={pending ? (event) => event.preventDefault() : undefined}
    >
      {pending ? pendingLabel : children}
    </button>
  );
}
