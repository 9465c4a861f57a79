/**
 * A form's submit button: disabled until the island is hydrated, and refusing to submit again while
 * the form is being sent, with a label that says what is happening. While sending it is
 * aria-disabled rather than disabled: a disabled button loses the keyboard's focus, which then fell
 * to the page's body and left a keyboard user at the top of the page after every submit.
 */
import { type ComponentPropsWithoutRef, forwardRef, type ReactNode, useEffect, useState } from "react";

/**
 * False on the server and in the first client render, true once hydrated. Submit buttons stay
 * disabled until then, so a form sent before its script runs cannot go out as a plain GET with the
 * password in the address.
 */
export function useHydrated(): boolean {
  // A button that appears after every island of the page was hydrated (client.ts marks <html>), a
  // question opened by a click, is usable at once, so that it can take the keyboard's focus.
  const [hydrated, setHydrated] = useState(() =>
    typeof document !== "undefined" && "hydrated" in document.documentElement.dataset
  );
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

export const SubmitButton = forwardRef<HTMLButtonElement, {
  pending: boolean;
  children: ReactNode;
  pendingLabel: string;
  className?: string;
}>(function SubmitButton({ pending, children, pendingLabel, className = "btn-primary w-full" }, ref) {
  const hydrated = useHydrated();
  return (
    <BusyButton ref={ref} type="submit" className={className} disabled={!hydrated} busy={pending}>
      {pending ? pendingLabel : children}
    </BusyButton>
  );
});

/**
 * A button whose action is under way (`busy`): aria-disabled and aria-busy, not disabled, so the
 * keyboard's focus stays on it; a click, or Enter in a field of its form (the browser clicks the
 * form's submit button), does nothing meanwhile. `disabled` is still for a button that cannot be
 * used at all (not hydrated yet, nothing to send).
 */
export const BusyButton = forwardRef<HTMLButtonElement, { busy: boolean } & ComponentPropsWithoutRef<"button">>(
  // forwardRef, not a ref prop: the islands run on preact/compat (decision 033), which passes a
  // function component's ref on only through forwardRef.
  function BusyButton({ busy, onClick, type = "button", ...button }, ref) {
    return (
      <button
        ref={ref}
        type={type}
        aria-disabled={busy || undefined}
        aria-busy={busy || undefined}
        {
          // An aria-busy given says which of several buttons that wait on one action runs it.
          ...button
        }
        onClick={busy ? (event) => event.preventDefault() : onClick}
      />
    );
  },
);
