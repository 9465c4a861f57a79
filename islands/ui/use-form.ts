/**
 * The one form-state hook: the values as typed, the problems by field (a 422's `fields`, or the
 * form's own checks), the general error for the alert, and whether the form is being sent. Sending
 * is a TanStack mutation (lib/write.ts), so the write refreshes what it changes.
 *
 * A field's problem disappears as soon as the field is changed; the next submission starts clean.
 */
import { useRef, useState } from "react";
import { type AnswerOf, ApiCallError, type CallInput, type CallShape, FALLBACK_ERROR, isAbort } from "../lib/api.ts";
import { useWrite, type WriteOptions } from "../lib/write.ts";
import { setIn, withoutProblems } from "./paths.ts";

export type Problems = Record<string, string>;

export interface FormOptions<C extends CallShape, V> extends WriteOptions<C> {
  /** The values to start from (forms whose inputs are uncontrolled need none). */
  values?: V;
  /** The text a failure shows; default: the server's `error` text. */
  errorText?: (failure: ApiCallError) => string;
  /** A success leaves the page (the API layer follows the redirect): it stays "sending" meanwhile. */
  navigates?: boolean;
}

export type SubmitResult<C extends CallShape> =
  | { ok: true; answer: AnswerOf<C> }
  /** `failure` is null when nothing was sent (already sending) or the call was cancelled. */
  | { ok: false; failure: ApiCallError | null };

export interface FormState<C extends CallShape, V> {
  values: V;
  /** Sets the value at a dotted path, and drops the problems about it. */
  set(path: string, value: unknown): void;
  /** Drops every problem at or under `path` (a list whose rows moved). */
  clearProblems(path: string): void;
  fields: Problems;
  error: string | null;
  submitting: boolean;
  /** Sends the call; one at a time. */
  submit(input?: CallInput<C>): Promise<SubmitResult<C>>;
  /** Shows problems the form found itself before sending (passwords that differ), or clears them. */
  show(fields: Problems, error?: string | null): void;
}

export function useForm<C extends CallShape, V = Record<string, never>>(
  { values: initial, errorText, navigates = false, ...write }: FormOptions<C, V>,
): FormState<C, V> {
  const [values, setValues] = useState<V>(() => initial ?? ({} as V));
  const [fields, setFields] = useState<Problems>({});
  const [error, setError] = useState<string | null>(null);
  const mutation = useWrite(write);
  // A second submission while the first is on its way (a double click) is not sent.
  const sending = useRef(false);

  async function submit(input: CallInput<C> = {}): Promise<SubmitResult<C>> {
    if (sending.current) return { ok: false, failure: null };
    sending.current = true;
    setFields({});
    setError(null);
    try {
      return { ok: true, answer: await mutation.mutateAsync(input) };
    } catch (err) {
      if (isAbort(err)) return { ok: false, failure: null };
      const failure = err instanceof ApiCallError ? err : null;
      if (!failure) console.warn("The call failed", err);
      setFields(failure?.fields ?? {});
      setError(failure ? (errorText?.(failure) ?? failure.error) : FALLBACK_ERROR);
      return { ok: false, failure };
    } finally {
      sending.current = false;
    }
  }

  return {
    values,
    set(path, value) {
      setValues((current) => setIn(current, path, value));
      setFields((current) => withoutProblems(current, path));
    },
    clearProblems(path) {
      setFields((current) => withoutProblems(current, path, true));
    },
    fields,
    error,
    submitting: mutation.isPending || (navigates && mutation.isSuccess),
    submit,
    show(next, message = null) {
      setFields(next);
      setError(message);
    },
  };
}
