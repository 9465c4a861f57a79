import { parse } from "csv-parse/sync";
import { extractText, getDocumentProxy } from "unpdf";
import { describe, expect, test } from "vitest";
import { statementCsv } from "../../server/statements/csv.ts";
import type { StatementDocument } from "../../server/statements/document.ts";
import type { StatementLine } from "../../server/statements/lines.ts";
import { statementPdf } from "../../server/statements/pdf.ts";

/**
 * The statement's files as files (decision 037): names in any script never stop a PDF (Helvetica
 * reads WinAnsi only), nothing is cut (long cells go on over further lines), and a CSV cell a spreadsheet would
 * run as a formula is written as text.
 */

const AT = new Date("2026-11-27T10:00:00.000Z");

function doc(descriptions: string[]): StatementDocument {
  let balance = 0;
  const lines: StatementLine[] = descriptions.map((description, i) => {
    balance += 1000;
    return { transferId: i + 1, at: AT, kind: "receipt", description, rate: null, amount: 1000, balance, held: 0 };
  });
  return {
    company: { name: "Portal", details: ["Portal Client Money Account"] },
    account: { ref: "P00000007", name: "Łukasz Żółć" },
    from: "2026-11-01",
    to: "2026-11-27",
    closingAt: AT,
    generatedAt: AT,
    sections: [{ currency: "GBP", opening: 0, openingHeld: 0, lines, closing: balance, closingHeld: 0 }],
  };
}

async function pdfText(bytes: Uint8Array) {
  return (await extractText(await getDocumentProxy(bytes), { mergePages: true })).text;
}

describe("a PDF statement", () => {
  test("takes names in any script: transliterated, or ? where they have no Latin form", async () => {
    const text = await pdfText(
      await statementPdf(doc(["Receipt from Δημήτρης", "Receipt from 王小明", "Receipt from Zoë 😀", "Fee: 5 €"])),
    );
    expect(text).toContain("Lukasz Zólc");
    expect(text).toContain("Receipt from Dimitris");
    expect(text).toContain("Receipt from Zoë");
    expect(text).not.toContain("😀");
    expect(text).toContain("Fee: 5 €");
    expect(text).toContain("Closing balance on 2026-11-27: 40.00 GBP");
  });

  test("keeps a long description and a six-decimal rate whole, over further lines of their row", async () => {
    const long = "Payment 8 to Joe Bloggs (Invoice 42): failed, money returned to the account the same day";
    const statement = doc([long]);
    statement.sections[0].lines[0].rate = "1 GBP = 203.387372 JPY";
    const text = await pdfText(await statementPdf(statement));
    expect(text).not.toContain("...");
    // The extracted text puts each of the row's lines apart: the words all come back, in order.
    expect(text.replace(/\s+/g, " ")).toContain("1 GBP = 203.387372 JPY");
    for (const word of long.split(" ")) expect(text).toContain(word);
    expect(text.replace(/\s+/g, " ")).toMatch(/Payment 8 to Joe .*failed, .*money .*returned .*same day/);
    expect(text).toContain("10.00");
  });

  test("an account's long name goes over further lines, none past the page's edge", async () => {
    const statement = doc(["Receipt"]);
    statement.account.name = "The Very Long Name of an Import and Export Company ".repeat(4).trim();
    const pdf = await getDocumentProxy(await statementPdf(statement));
    const page = await pdf.getPage(1);
    const [, , width] = page.view;
    const items = (await page.getTextContent()).items as { str: string; transform: number[]; width: number }[];
    for (const item of items) expect(item.transform[4] + item.width, item.str).toBeLessThanOrEqual(width);
    const text = (await pdfText(await statementPdf(statement))).replace(/\s+/g, " ");
    expect(text).toContain(statement.account.name);
  });

  test("a word wider than its column is broken, not cut", async () => {
    const word = "Receipt-from-an-unusually-long-payer-name-without-any-spaces-at-all-end";
    const text = await pdfText(await statementPdf(doc([word])));
    expect(text.replace(/\s+/g, "")).toContain(word);
  });

  test("shows the held part of the balance, so a hold line of amount 0 reconciles as the CSV does", async () => {
    const statement = doc(["Receipt from Ann"]);
    statement.sections[0].lines.push({
      transferId: 9,
      at: AT,
      kind: "hold",
      description: "Payment 8 to Joe Bloggs: held",
      rate: null,
      amount: 0,
      balance: 1000,
      held: 750,
    });
    statement.sections[0].closingHeld = 750;
    const text = await pdfText(await statementPdf(statement));
    expect(text).toContain("Held");
    expect(text).toContain("hold Payment 8 to Joe Bloggs: held");
    // Its amount, held and balance: nothing moved in or out, 7.50 of the 10.00 is now held.
    expect(text).toContain("0.00 7.50 10.00");
  });
});

describe("a CSV statement", () => {
  test("writes a cell that a spreadsheet would run as a formula as text", async () => {
    const csv = new TextDecoder().decode(await statementCsv(doc(['=HYPERLINK("http://evil","x")', "+1", "Plain"])));
    const rows = parse(csv, { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => r.description)).toEqual([
      "Opening balance on 2026-11-01",
      `'=HYPERLINK("http://evil","x")`,
      "'+1",
      "Plain",
      "Closing balance on 2026-11-27",
    ]);
    // Amounts stay numbers a spreadsheet reads, negative ones included.
    expect(rows.map((r) => r.balance)).toEqual(["0.00", "10.00", "20.00", "30.00", "30.00"]);
  });
});
