/**
 * The session user summary of SPEC.md section 3, field for field: what account/whoami answers,
 * what every guard reads, and the islands' copy of the user. In lib/ because both sides use it.
 */
export interface SessionUser {
  id: number;
  username: string;
  name: string;
  level: "Admin" | "User";
  type: "Personal" | "Business";
  /** Whether a profile has been saved. */
  profile: boolean;
  /** Whether the email address has been validated. */
  validated: boolean;
  /** Whether this session passed the second factor. */
  secondFactor: boolean;
  /** Whether the identity check is approved. */
  identity: boolean;
  /** Whether an account has been opened. */
  account: boolean;
  /** Never true for an administrator. */
  restricted: boolean;
  account_ref: string | null;
  override_transfer_fee: boolean;
  override_priority_transfer_fee: string | null;
  override_regular_transfer_fee: string | null;
  affiliate: string | null;
}
