/**
 * Messages in a box: the general error of a form (FormAlert), a notice in the page's flow (Alert),
 * and a polite status line (Status). One look for all of them.
 */
import { type ReactNode, useLayoutEffect, useRef, useState } from "react";

const TONES = {
  error: "border-red-600 bg-red-50 text-red-900 dark:border-red-400 dark:bg-red-950 dark:text-red-100",
  warning: "border-amber-500 bg-amber-50 text-amber-900 dark:border-amber-400 dark:bg-amber-950 dark:text-amber-100",
  success:
    "border-emerald-600 bg-emerald-50 text-emerald-900 dark:border-emerald-400 dark:bg-emerald-950 dark:text-emerald-100",
  info: "border-sky-600 bg-sky-50 text-sky-900 dark:border-sky-400 dark:bg-sky-950 dark:text-sky-100",
} as const;

export type Tone = keyof typeof TONES;
export const alertClass = (tone: Tone): string => `rounded-md border-l-4 p-4 text-sm ${TONES[tone]}`;

/** A message box; `live` (the default for errors) makes it an alert, announced when it appears. */
export function Alert({ tone = "error", title, live = tone === "error", children }: {
  tone?: Tone;
  title?: string;
  live?: boolean;
  children?: ReactNode;
}) {
  return (
    <div role={live ? "alert" : undefined} className={alertClass(tone)}>
      {title ? <p className="font-semibold">{title}</p> : null}
      {children ? <div className={title ? "mt-1" : undefined}>{children}</div> : null}
    </div>
  );
}

/**
 * The general error of a form. The region is always there (empty when all is well), so a screen
 * reader announces the text when it appears. Field problems that no field of the form shows
 * (`fields` not in `shown`) are listed here, so none is lost; an error that is the problem of a shown
 * field is read under that field only. After a failure that names fields
 * (or any failure, with `focusOnError`: a long form whose top is out of sight), focus goes to the
 * first field marked invalid, else to this alert.
 */
export function FormAlert({ error, title, detail, fields, shown = [], focusOnError = false }: {
  error: string | null;
  /** A heading above the error ("Your details could not be saved"). */
  title?: string;
  detail?: ReactNode;
  fields?: Record<string, string>;
  /** The fields the form shows a problem under, or a test of the field's path. */
  shown?: readonly string[] | ((path: string) => boolean);
  focusOnError?: boolean;
}) {
  const isShown = typeof shown === "function" ? shown : (path: string) => shown.includes(path);
  const others = Object.entries(fields ?? {}).filter(([path, problem]) => !isShown(path) && problem !== error);
  // An answer whose error is the problem of a field the form shows under that field (a 422 naming
  // one field says the same in both) is read there once, not also in this box.
  const atItsField = !!error && !detail &&
    Object.entries(fields ?? {}).some(([path, problem]) => isShown(path) && problem === error);
  const message = atItsField ? null : error;
  const visible = !!message || others.length > 0;
  const region = useRef<HTMLDivElement>(null);
  const [unheard, setUnheard] = useState<string | null>(null);
  useLayoutEffect(() => {
    if (!(fields && Object.keys(fields).length) && !(focusOnError && error)) {
      setUnheard(null);
      return;
    }
    const invalid = region.current?.closest("form")?.querySelector<HTMLElement>('[aria-invalid="true"]');
    const stayed = !!invalid && invalid === document.activeElement;
    setUnheard(stayed ? document.getElementById(`${invalid.id}-error`)?.textContent ?? null : null);
    (invalid ?? region.current)?.focus();
  }, [fields, error]);
  return (
    <div
      ref={region}
      role="alert"
      tabIndex={-1}
      className={visible ? `${alertClass("error")} focus:outline-2 focus:outline-primary-600` : undefined}
    >
      {title && visible ? <p className="font-semibold">{title}</p> : null}
      {message ? <p className={title ? "mt-1" : "font-semibold"}>{message}</p> : null}
      {message && detail ? <div className="mt-1">{detail}</div> : null}
      {others.length
        ? <ul className="mt-1 list-disc pl-5">{others.map(([path, problem]) => <li key={path}>{problem}</li>)}</ul>
        : null}
      {unheard ? <p className="sr-only">{unheard}</p> : null}
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
