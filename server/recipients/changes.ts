/**
 * What a change of a recipient records (recipient_changes): the fields that changed, before and
 * after. Bank details are one change of their own (`details`), because a payment rule looks at
 * them ("the first payment to changed bank details needs approval") and the customer is shown when
 * and by whom they changed; the name, type and email together are the other (`name`).
 */
import type { RecipientValues } from "../../lib/contracts/recipients.ts";

export interface RecipientChangeRecord {
  kind: "created" | "details" | "name" | "deleted";
  before: RecipientValues | null;
  after: RecipientValues | null;
}

/** The fields a customer can change on a recipient; the currency and bank country never change. */
export interface ChangeableFields {
  name: string;
  type: "person" | "business";
  email: string | null;
  details: Record<string, string>;
}

/** Bank details are equal when they have the same fields with the same (tidied) values. */
export function sameDetails(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && a[key] === b[key]);
}

/** The changes from one state of a recipient to the next: none, one or both kinds. */
export function changesBetween(before: ChangeableFields, after: ChangeableFields): RecipientChangeRecord[] {
  const changes: RecipientChangeRecord[] = [];
  if (!sameDetails(before.details, after.details)) {
    changes.push({ kind: "details", before: { details: before.details }, after: { details: after.details } });
  }
  const was: RecipientValues = {};
  const is: RecipientValues = {};
  if (before.name !== after.name) [was.name, is.name] = [before.name, after.name];
  if (before.type !== after.type) [was.type, is.type] = [before.type, after.type];
  if (before.email !== after.email) [was.email, is.email] = [before.email, after.email];
  if (Object.keys(is).length > 0) changes.push({ kind: "name", before: was, after: is });
  return changes;
}
