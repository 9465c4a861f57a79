import { displayName } from "../auth/session-user.ts";
import type { MigrationNames } from "./customer-name.ts";

/**
 * A person's name, for who did something or whom an email greets: first and last from their
 * profile (a business customer's profile names its contact person), else, for a business, their
 * email, and for a personal customer the display name (SPEC.md section 3). Never the business's name:
 * a person, not a company, prepares, approves or sets a rule.
 */
export function personName(
  type: "Personal" | "Business",
  profile: unknown,
  username: string,
  migrated: MigrationNames = null,
): string {
  const p = profile as { name?: string; first?: string; last?: string } | null;
  const full = [p?.first, p?.last].filter(Boolean).join(" ").trim();
  // A migrated person who has saved no profile yet: the names their migration line gave (decision 065).
  const fromLine = p || migrated?.type === "Business"
    ? ""
    : [migrated?.first_name?.trim(), migrated?.last_name?.trim()].filter(Boolean).join(" ");
  return full || fromLine || (type === "Business" ? username : displayName(type, p, username));
}
