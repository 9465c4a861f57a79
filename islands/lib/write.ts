/**
 * A write as a TanStack mutation: the call, what it changes (refreshed once the request batch
 * resets, query-client.tsx) and its Idempotency-Key.
 */
import { type QueryKey, useMutation } from "@tanstack/react-query";
import { useRef } from "react";
import {
  type AnswerOf,
  api,
  ApiCallError,
  type Call,
  type CallInput,
  type CallShape,
  newIdempotencyKey,
} from "./api.ts";

export interface WriteOptions<C extends CallShape> {
  call: Call<C>;
  /** The queries this write changes (key prefixes), fetched again after it. */
  invalidates?: readonly QueryKey[];
  /**
   * Sends an Idempotency-Key: the same one while the same input is sent again (a retry after a
   * failure runs once), a new one after a success (the same receipt twice is two receipts) or a
   * refusal (a 4xx but 409 and 429: nothing ran, so nothing can run twice). Off
   * for the sign-in calls, whose answer sets a cookie that a replayed answer would not carry.
   */
  idempotent?: boolean;
  onSuccess?: (answer: AnswerOf<C>, input: CallInput<C>) => void;
}

export function useWrite<C extends CallShape>({ call, invalidates, idempotent = false, onSuccess }: WriteOptions<C>) {
  const last = useRef<{ input: string; key: string } | null>(null);
  const keyFor = (input: CallInput<C>) => {
    const text = JSON.stringify(input);
    if (last.current?.input !== text) last.current = { input: text, key: newIdempotencyKey() };
    return last.current.key;
  };
  const send = (input: CallInput<C>) => api.send(call, input, idempotent ? { idempotencyKey: keyFor(input) } : {});
  // Only the input that finished gives up its key: another sent meanwhile keeps its own for a retry.
  const finished = (input: CallInput<C>) => {
    if (last.current?.input === JSON.stringify(input)) last.current = null;
  };
  /** The input of the mutation on its way, from the click on. */
  const mutating = useRef<string | null>(null);
  const mutation = useMutation<AnswerOf<C>, Error, CallInput<C>>({
    mutationFn: send,
    meta: { method: call.method, invalidates },
    onSuccess(answer, input) {
      finished(input);
      onSuccess?.(answer, input);
    },
    onError(error, input) {
      // A refusal changed nothing, and the server keeps it as the key's answer: the same input sent
      // after the person put something right elsewhere (invited an approver) is asked anew, not
      // replayed. The key stays for what may have run or may still be running: no answer, a 5xx,
      // a 409 (the key in use), a 429.
      if (refusal(error)) finished(input);
    },
    onSettled(_answer, _error, input) {
      if (mutating.current === JSON.stringify(input)) mutating.current = null;
    },
  });
  // The same write while it is still on its way (a double-click, before the button shows it busy)
  // is not sent again: the server would answer it 409 "still in progress", or the other's effect
  // would refuse it, and its success would be told twice. Marked when mutate is called, as the
  // request itself starts later. (A form's submit has its own guard: islands/ui/use-form.ts.)
  const mutate: typeof mutation.mutate = (input, options) => {
    const text = JSON.stringify(input);
    if (idempotent && mutating.current === text) return;
    mutating.current = text;
    mutation.mutate(input, options);
  };
  return { ...mutation, mutate };
}

/** A 4xx that says the call was refused, not that it may have run (409) or was not run yet (429). */
const refusal = (error: unknown) =>
  error instanceof ApiCallError && error.status >= 400 && error.status < 500 && error.status !== 409 &&
  error.status !== 429;
