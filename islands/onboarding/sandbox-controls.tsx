/**
 * The built-in sandbox identity provider's answers, clearly marked: nobody checks anything.
 */
import type { SandboxAnswer } from "./calls.ts";
import { BusyButton } from "../ui/submit-button.tsx";

/**
 * The sandbox's answers, as POST sumsub/sandbox takes them. An approval presents a document with
 * the profile's details, or another person's (decision 085), which waits for the compliance review.
 */
export const SANDBOX_ANSWERS: readonly { label: string; body: SandboxAnswer }[] = [
  { label: "Approve (GREEN)", body: { answer: "GREEN" } },
  { label: "Approve another person's document (GREEN)", body: { answer: "GREEN", document: "another" } },
  { label: "Ask to retry (RED / RETRY)", body: { answer: "RED", reject_type: "RETRY" } },
  { label: "Reject (RED / FINAL)", body: { answer: "RED", reject_type: "FINAL" } },
];

export function SandboxControls({ busy, onAnswer }: { busy: boolean; onAnswer: (body: SandboxAnswer) => void }) {
  return (
    <section
      aria-labelledby="sandbox-title"
      className="rounded-xl border-2 border-dashed border-amber-500 bg-amber-50 p-6 text-amber-950 dark:border-amber-400 dark:bg-amber-950 dark:text-amber-50"
    >
      <h2 id="sandbox-title" className="text-base font-semibold">
        Sandbox identity provider — for development and testing only; no real check is made
      </h2>
      <p className="mt-1 text-sm">
        Choose the answer the provider would give. It is recorded as this user's review. "Approve" presents a document
        with the name and date of birth of the profile; "another person's document" presents someone else's, as a
        customer who declared one person and showed another's document would.
      </p>
      <div className="mt-4 flex flex-wrap gap-3">
        {SANDBOX_ANSWERS.map(({ label, body }) => (
          <BusyButton
            key={label}
            type="button"
            className={body.answer === "GREEN"
              ? "btn-primary"
              : "btn-ghost border border-amber-600 dark:border-amber-400"}
            busy={busy}
            onClick={() => onAnswer(body)}
          >
            {label}
          </BusyButton>
        ))}
      </div>
    </section>
  );
}
