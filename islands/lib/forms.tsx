/**
 * What the islands' forms share: the alert for the general error, a polite status, a submit
 * button with a pending state that waits for hydration, and the Idempotency-Key of a write.
 * (The sign-in forms' fields and their one-call-at-a-time `useSubmit` are in auth-forms.tsx.)
 *
 * Ids are given by each form, not made with useId: an island is rendered on the server deep inside
 * the page's tree but hydrated as a root of its own, so useId would differ between the two.
 */
import { type ReactNode, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
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

/**
 * The general error of a form. The region is always there (empty when all is well), so a screen
 * reader announces the text when it appears. Field problems that no field of the form shows
 * (`fields` not in `shown`) are listed here, so none is lost.
 */
export function FormAlert({ error, detail, fields, shown = [] }: {
  error: string | null;
  detail?: ReactNode;
  fields?: Record<string, string>;
  shown?: string[];
}) {
  const others = Object.entries(fields ?? {}).filter(([name]) => !shown.includes(name));
  const visible = !!error || others.length > 0;
  // When fields are named, focus goes to the first one marked invalid in this alert's form.
  const region = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    if (fields && Object.keys(fields).length) {
      region.current?.closest("form")?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
    }
  }, [fields]);
  return (
    <div
      ref={region}
      role="alert"
      className={visible
        ? "rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
        : undefined}
    >
      {error ? <p className="font-semibold">{error}</p> : null}
      {error && detail ? <p className="mt-1">{detail}</p> : null}
      {others.length
        ? <ul className="mt-1 list-disc pl-5">{others.map(([name, problem]) => <li key={name}>{problem}</li>)}</ul>
        : null}
    </div>
  );
}

/** A polite announcement (a link sent, a code sent); an empty region until there is something. */
export function Status({ children }: { children?: ReactNode }) {
  return (
    <p role="status" className={children ? "text-sm text-emerald-800 dark:text-emerald-300" : undefined}>
      {children}
    </p>
  );
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
