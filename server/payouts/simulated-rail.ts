import type { PaymentRow } from "../payments/answer.ts";
import { type PayoutRail, RailRefused } from "./rail.ts";

/**
 * The default rail (decision 031): it moves no money and accepts every payment, answering the
 * reference SIM-<payment id>, unless the operator told it, with the submission, to refuse that
 * payment (the desk's "Refuse on submit…"): then it refuses with the operator's
 * words, as a real rail refusing at once would (a closed account, a failed name check). So the
 * failure path can be tried end to end, on purpose, by the person looking at the screen.
 */
export class SimulatedRail implements PayoutRail {
  readonly name = "simulated rail";

  /** `refusals`: the payments to refuse, by id, with the refusal's words. */
  constructor(private readonly refusals: ReadonlyMap<number, string> = new Map()) {}

  submit(payment: PaymentRow): Promise<{ railReference: string }> {
    const refusal = this.refusals.get(payment.id);
    if (refusal !== undefined) return Promise.reject(new RailRefused([refusal]));
    return Promise.resolve({ railReference: `SIM-${payment.id}` });
  }
}

/** What the desk's screen says about the simulated rail. */
export const SIMULATED_RAIL_NOTE =
  "Submit sends payments to the simulated rail: it moves no money and accepts every payment (reference SIM-<id>), " +
  'unless you choose "Refuse on submit…" and give its words: then it refuses the payment at once, ' +
  "the payment fails and the customer gets all their money back.";
