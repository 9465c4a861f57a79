import type { SessionUser } from "../../lib/session-user.ts";

export type { SessionUser };

/** Display name: the business name, or first plus last for a person (SPEC.md section 3). */
export function displayName(
  type: SessionUser["type"],
  profile: { name?: string; first?: string; last?: string } | null,
  fallback: string,
): string {
  if (!profile) return fallback;
  if (type === "Business") return profile.name?.trim() || fallback;
  const full = [profile.first, profile.last].filter(Boolean).join(" ").trim();
  return full || fallback;
}
