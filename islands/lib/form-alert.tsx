/**
 * The general error of a form and a polite status line, for the forms that show them (the sign-in
 * forms, the console's, the convert form).
 */
import { type ReactNode, useLayoutEffect, useRef } from "react";

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
