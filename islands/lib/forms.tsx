/**
 * What the islands' forms share: a submit button with a pending state that waits for hydration,
 * and the Idempotency-Key of a write. In the chunk every page with islands loads. (The alert for
 * a form's general error and the polite status are in form-alert.tsx, the sign-in forms' fields
 * and their one-call-at-a-time `useSubmit` in auth-forms.tsx: pages load them when they use them.)
 *
 * Ids are given by each form, not made with useId: an island is rendered on the server deep inside
 * the page's tree but hydrated as a root of its own, so useId would differ between the two.
 */
import { type ReactNode, useEffect, useMemo, useRef, useState } from "react";
import { newIdempotencyKey } from "./api.ts";

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

/** The same Idempotency-Key while the payload stays the same (a retry), a new one when it changes. */
export interface IdempotencyKeys {
  (payload: unknown): string;
  /**
   * After a success: the next submission is a new request even with the same payload (two
   * identical receipts are two payments). Until then, a retry reuses the key and runs once.
   */
  reset(): void;
}

export function useIdempotencyKey(): IdempotencyKeys {
  const last = useRef<{ payload: string; key: string } | null>(null);
  return useMemo(() => {
    const keyFor = (payload: unknown) => {
      const text = JSON.stringify(payload ?? null);
      if (last.current?.payload !== text) last.current = { payload: text, key: newIdempotencyKey() };
      return last.current.key;
    };
    return Object.assign(keyFor, { reset: () => void (last.current = null) });
  }, []);
}

/** The form's submit button: disabled until hydrated and while sending, with a pending label. */
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
