/**
 * Schemas that many contracts share, each with the words a customer reads when it fails.
 */
import { z } from "zod";

/** An amount as the API writes it: a decimal string with the currency's digits ("100.00", "15000"). */
export const amountText = z.string();
/** A rate: a decimal string ("1.171200"). */
export const rateText = z.string();
/** A moment as the API writes it: ISO 8601 UTC. */
export const timestamp = z.string();
/** A currency code as the API writes it ("GBP"). */
export const currencyCode = z.string();

/** A currency the client names; which codes are supported is the server's rule. */
export const currencyInput = (missing: string) => z.string({ error: missing }).trim().toUpperCase();

/** Which side of a price is fixed: what is sold (paid) or what is bought (received). */
export const fixedSide = z.enum(["sell", "buy"], { error: "fixed is sell or buy." });

/**
 * A record's id in a path or query: a canonical positive integer ("5", never "05", "5.0" or "0x5").
 */
export const idText = z.string().regex(/^[1-9][0-9]{0,15}$/, { error: "The id is a whole number from 1." })
  .transform(Number);

/** Page numbers of a paginated list: 1 unless given. */
export const pageQuery = {
  page: z.string().regex(/^[1-9][0-9]{0,6}$/, { error: "page is a whole number from 1." }).transform(Number)
    .optional().default(1),
  per_page: z.string().regex(/^[1-9][0-9]{0,2}$/, { error: "per_page is a whole number from 1 to 100." })
    .transform(Number).pipe(z.number().max(100, { error: "per_page is a whole number from 1 to 100." }))
    .optional().default(20),
};

/** A page of a list. */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), page: z.number(), per_page: z.number(), total: z.number() });
