/**
 * The profile form's state, read by its fields from a context: `<ProfileFormProvider value={form}>`
 * then `<PathTextField path=... />`. Values are one nested object addressed by dotted paths, the
 * same paths the server's 422 `fields` use.
 */
import { createContext, useContext } from "react";
import type { Problems } from "../ui/use-form.ts";

export type Values = Record<string, unknown>;

export interface ProfileFormState {
  values: Values;
  fields: Problems;
  /** Sets the value at `path` and drops the problems about it (and about its parents). */
  set(path: string, value: unknown): void;
  /** Drops every problem at or under `path` (a list whose rows moved). */
  clearProblems(path: string): void;
  /**
   * Once the identity check has started, why the fields it binds (name, date of birth, the
   * Personal address's country) are shown read-only and how to have them changed (decision 085);
   * undefined while they are the customer's to change.
   */
  bound?: string;
}

const ProfileFormContext = createContext<ProfileFormState | null>(null);
export const ProfileFormProvider = ProfileFormContext.Provider;

export function useProfileForm(): ProfileFormState {
  const form = useContext(ProfileFormContext);
  if (!form) throw new Error("Profile fields need a <ProfileFormProvider>");
  return form;
}

/** The element id of the input for a path: "address.country" → "pf-address-country". */
export const fieldId = (path: string): string => `pf-${path.replace(/\./g, "-")}`;
