/**
 * The money tables (DESIGN.md section 4): currencies and rates, pricing plans, the double-entry
 * ledger, receipts and conversions. Kept apart from db/schema.ts, which holds people and sign-in.
 */
export {};
