import { InvalidInput } from "../errors.ts";

export interface BankFileProblem {
  /** The input it is about: "payments.3.creditor_iban", "execution_date", "file". */
  readonly field: string;
  readonly message: string;
}

/**
 * A bank file that cannot be written or read. Every problem found is listed (an operator fixes a
 * batch in one go, not one payment per attempt); the message names the first few. Answered 422.
 */
export class BankFileError extends InvalidInput {
  override name = "BankFileError";
  constructor(readonly problems: readonly BankFileProblem[]) {
    const shown = problems.slice(0, 5).map((p) => p.message);
    const more = problems.length > shown.length ? ` (and ${problems.length - shown.length} more)` : "";
    super(shown.join(" ") + more, problems[0]?.field);
  }
}
