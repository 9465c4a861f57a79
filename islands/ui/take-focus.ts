import { type KeyboardEvent as ReactKeyboardEvent, useCallback, useEffect, useRef, useState } from "react";

/** Whether the keyboard is nowhere: the element it was on has gone (the browser puts it on <body>). */
export const focusLost = () => !document.activeElement || document.activeElement === document.body;

/**
 * For the heading (tabIndex -1) of a view that replaced what the keyboard was on: it takes the
 * focus when it appears, so a screen reader reads where the user now is and Tab goes on from there
 * instead of from the top of the page. `take` is false for a view the page opened with; a function
 * is asked once the view is on screen (`focusLost`: only if the focus went with what was replaced).
 */
export function useTakeFocus<T extends HTMLElement>(take: boolean | (() => boolean)) {
  const ref = useRef<T>(null);
  // Once, when the view appears (a lazily loaded form appears after it is fetched).
  useEffect(() => {
    if (typeof take === "function" ? take() : take) ref.current?.focus();
  }, []);
  return ref;
}

/**
 * A question or a short form that a button opens in place ("Reject…" → the reason, "Reject the
 * payment" and "Back"). Opened with `show`, the keyboard goes to `first` (the field to fill, or the
 * button that confirms); closed without acting (`dismiss`: its Back or Keep button, or Escape
 * inside it), the keyboard goes back to `opener`, instead of falling to the page's body with what
 * was removed. `close` is for after acting: what comes next says where the keyboard goes.
 *
 * `first` is a ref for any element (a shared form hands it to its own first field): not
 * `autoFocus`, which preact/compat (decision 033) leaves to the browser, and the browser honours
 * once per page at most, and not while the button just clicked keeps the focus.
 */
export function useInPlace<First extends HTMLElement = HTMLElement>(
  /** The open state when the parent keeps it (one question open in a whole list). */
  kept?: { open: boolean; setOpen: (open: boolean) => void },
) {
  const own = useState(false);
  const [open, setOpen] = kept ? [kept.open, kept.setOpen] : own;
  const opener = useRef<HTMLButtonElement>(null);
  const field = useRef<First | null>(null);
  // A callback, so that one element type or another (an input, a select, a button) can take it.
  const first = useCallback((element: First | null) => {
    field.current = element;
  }, []);
  const move = useRef<"in" | "back" | null>(null);
  // After the render that shows (or removes) the question: the opener may itself be hidden meanwhile.
  // After any render, not only when `open` changes: a row's other button (Allocate, then Reverse)
  // swaps one form for another while the place stays open.
  useEffect(() => {
    if (move.current === "in" && open) field.current?.focus();
    if (move.current === "back" && !open) opener.current?.focus();
    move.current = null;
  });
  const dismiss = () => {
    move.current = "back";
    setOpen(false);
  };
  const show = () => {
    move.current = "in";
    setOpen(true);
  };
  return {
    open,
    opener,
    first,
    show,
    /**
     * Opens it from one of several buttons (Allocate and Reverse of one row, New plan and each
     * plan's Edit): the keyboard goes back to that one.
     */
    showFrom(from: HTMLButtonElement) {
      opener.current = from;
      show();
    },
    dismiss,
    close: () => setOpen(false),
    /** For the question's box: Escape inside it dismisses it. */
    onKeyDown: onEscape(dismiss),
  };
}

/**
 * A keydown handler for an in-place question's box: Escape inside it does what its Cancel does
 * (one a field inside already used, as a select closing its list, is left alone).
 */
export function onEscape(cancel: () => void) {
  return (event: ReactKeyboardEvent) => {
    if (event.key !== "Escape" || event.defaultPrevented) return;
    event.preventDefault();
    cancel();
  };
}
