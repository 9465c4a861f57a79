import type { Database } from "../../db/client.ts";
import type { IdentityProvider, IdentityResult } from "./provider.ts";
import { decide, readStoredCheck, toResult, writeResult } from "./store.ts";
import { declaredIdentityOf, type DocumentDetails } from "./document.ts";

/**
 * The built-in sandbox identity provider: what stands in for Sumsub when SUMSUB_APP_TOKEN and
 * SUMSUB_SECRET_KEY are not set. Nobody checks anything: the page (clearly marked as a sandbox)
 * offers approve and reject buttons, which POST /api/sumsub/sandbox {"answer": "GREEN" | "RED"},
 * and the answer is recorded as if the provider had reviewed the person. An approval presents a
 * document whose details are the profile's (by default) or another person's, so that the check's
 * binding to the profile (decision 085) can be tried: the latter waits for the compliance review.
 */

/** The other person whose document the sandbox presents when asked to (decision 085). */
export const SANDBOX_OTHER_PERSON = { firstName: "Morgan", lastName: "Sample", dob: "1980-01-01" } as const;

export const SANDBOX_RETRY_COMMENT = "Sandbox: the document photo was unreadable. Please try again.";
export const SANDBOX_FINAL_COMMENT = "Sandbox: the identity check was refused. This decision is final.";

export interface SandboxAnswerOptions {
  /** For RED: RETRY (default) lets the user try again; FINAL rejects. */
  rejectType?: "RETRY" | "FINAL";
  /** For RED: the moderation comment shown to the user; a sandbox default otherwise. */
  comment?: string;
  /** For GREEN: whose document was presented: the profile's person (default) or another person's. */
  document?: "profile" | "another";
  now?: Date;
}

/**
 * Records a sandbox review for a user, as Sumsub would: GREEN approves; RED with RETRY asks for a
 * new attempt, RED with FINAL rejects, each with a moderation comment. Like Sumsub, a decision
 * that is final (approved, or rejected with FINAL) stands: a later answer changes nothing and
 * `changed` is false. `result` is the check as stored afterwards.
 */
export async function sandboxAnswer(
  db: Database,
  userId: number,
  answer: "GREEN" | "RED",
  options: SandboxAnswerOptions = {},
): Promise<{ changed: boolean; result: IdentityResult }> {
  if (answer !== "GREEN" && answer !== "RED") throw new Error(`A sandbox answer is GREEN or RED, not ${answer}`);
  const now = options.now ?? new Date();
  const final = options.rejectType === "FINAL";
  const comment = options.comment?.trim() || (final ? SANDBOX_FINAL_COMMENT : SANDBOX_RETRY_COMMENT);
  return await db.transaction(async (tx) => {
    const result: IdentityResult = answer === "GREEN"
      ? { status: "approved", reviewedAt: now, document: await presented(tx, userId, options.document) }
      : { status: final ? "rejected" : "retry", moderationComment: comment, reviewedAt: now };
    const existing = await readStoredCheck(tx, userId);
    const settled = existing?.provider === "sandbox" &&
      (existing.status === "approved" || existing.status === "rejected");
    if (settled || decide(existing, "sandbox", result) !== "write") {
      return { changed: false, result: strip(toResult(existing!)) };
    }
    return { changed: true, result: strip(toResult(await writeResult(tx, userId, "sandbox", result, existing, now))) };
  });
}

/** The document the sandbox "reads": the profile's details, or another person's that differ from them. */
async function presented(
  tx: Parameters<typeof declaredIdentityOf>[0],
  userId: number,
  whose: "profile" | "another" = "profile",
): Promise<DocumentDetails | undefined> {
  const declared = await declaredIdentityOf(tx, userId);
  if (whose === "profile") {
    return declared ? { firstName: declared.firstName, lastName: declared.lastName, dob: declared.dob } : undefined;
  }
  const other = { ...SANDBOX_OTHER_PERSON };
  if (declared?.dob === other.dob) return { ...other, dob: "1981-02-02" };
  return other;
}

function strip(
  { provider: _provider, document: _document, ...result }: IdentityResult & { provider: string },
): IdentityResult {
  return result;
}

/**
 * The sandbox provider: starting a check needs nothing from anyone, and the result is whatever
 * sandboxAnswer recorded (pending until then, and pending when the stored check is another
 * provider's: a Sumsub verdict is not the sandbox's).
 */
export function sandboxProvider(db: Database): IdentityProvider {
  return {
    name: "sandbox",
    startCheck() {
      return Promise.resolve({ kind: "sandbox" });
    },
    async readResult(userId) {
      const row = await readStoredCheck(db, userId);
      if (!row || row.provider !== "sandbox") return { status: "pending" };
      return strip(toResult(row));
    },
  };
}
