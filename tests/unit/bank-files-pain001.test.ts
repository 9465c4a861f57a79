import Big from "big.js";
import fc from "fast-check";
import { XMLParser } from "fast-xml-parser";
import { describe, expect, test } from "vitest";
import { BankFileError } from "../../server/bank-files/bank-file-error.ts";
import {
  type SepaCreditTransfer,
  type SepaCreditTransferBatch,
  writeSepaCreditTransferFile,
} from "../../server/bank-files/pain001.ts";
import { isSepaText, toSepaText } from "../../server/bank-files/sepa-text.ts";
import { schemaErrors, schemaErrorsOf } from "./bank-files-xsd.ts";

/** A euro-area company account (Commerzbank's published example IBAN). */
const DEBTOR = { name: "Example Payments Ltd Client Account", iban: "DE89370400440532013000", bic: "COBADEFFXXX" };

function payment(n: number, over: Partial<SepaCreditTransfer> = {}): SepaCreditTransfer {
  return {
    endToEndId: `PAYOUT-${String(n).padStart(6, "0")}`,
    amountMinor: 1000 * n + n,
    creditorName: `Creditor ${n}`,
    creditorIban: "FR1420041010050500013M02606",
    remittance: `Invoice ${n}`,
    ...over,
  };
}

function batch(payments: SepaCreditTransfer[], over: Partial<SepaCreditTransferBatch> = {}): SepaCreditTransferBatch {
  return {
    messageId: "BATCH-2026-11-23-0001",
    createdAt: new Date("2026-11-23T09:30:00.250Z"),
    debtor: DEBTOR,
    executionDate: "2026-11-24",
    payments,
    ...over,
  };
}

function refusal(fn: () => unknown): BankFileError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(BankFileError);
    return e as BankFileError;
  }
  throw new Error("expected a BankFileError, nothing was thrown");
}

// The parsed document is read field by field in assertions; a type per element would only restate the XSD.
// deno-lint-ignore no-explicit-any
type Node = Record<string, any>;

/**
 * Tests that run xmllint-wasm (it compiles libxml2 in a fresh worker each run: about a second here,
 * several on a machine under heavy load) or write hundreds of payments.
 */
const SLOW = { timeout: 30_000 };
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  parseTagValue: false,
  isArray: (name) => name === "CdtTrfTxInf",
});
function read(xml: string) {
  const doc = parser.parse(xml) as Node;
  const initiation = doc.Document.CstmrCdtTrfInitn;
  return { doc, header: initiation.GrpHdr, info: initiation.PmtInf, txs: initiation.PmtInf.CdtTrfTxInf as Node[] };
}

/** Every text and attribute value of the document, to check the character set. */
function allText(node: unknown): string[] {
  if (typeof node === "string") return [node];
  if (node && typeof node === "object") return Object.values(node).flatMap(allText);
  return [];
}

describe("a SEPA credit-transfer file (pain.001.001.03)", () => {
  test("a batch of several payments validates against the official XSD, with its counts and sums", SLOW, async () => {
    const payments = [
      payment(1),
      payment(2, { creditorIban: "NL91 ABNA 0417 1643 00", creditorBic: "abnanl2a" }),
      payment(3, { creditorIban: "BE68539007547034", remittance: null }),
      payment(4, { creditorIban: "AT611904300234573201", creditorName: "Zoë Müller-Straße" }),
    ];
    const file = writeSepaCreditTransferFile(batch(payments));
    expect(await schemaErrors("pain.001.001.03.xsd", file.xml)).toEqual([]);

    const { doc, header, info, txs } = read(file.xml);
    expect(doc.Document["@_xmlns"]).toBe("urn:iso:std:iso:20022:tech:xsd:pain.001.001.03");
    expect(header).toMatchObject({ MsgId: "BATCH-2026-11-23-0001", CreDtTm: "2026-11-23T09:30:00Z", NbOfTxs: "4" });
    expect(header.CtrlSum).toBe("100.10"); // 10.01 + 20.02 + 30.03 + 40.04
    expect(header.InitgPty.Nm).toBe(DEBTOR.name);
    expect(info).toMatchObject({
      PmtInfId: "BATCH-2026-11-23-0001",
      PmtMtd: "TRF",
      BtchBookg: "false",
      NbOfTxs: "4",
      CtrlSum: "100.10",
      PmtTpInf: { SvcLvl: { Cd: "SEPA" } },
      ReqdExctnDt: "2026-11-24",
      Dbtr: { Nm: DEBTOR.name },
      DbtrAcct: { Id: { IBAN: "DE89370400440532013000" }, Ccy: "EUR" },
      DbtrAgt: { FinInstnId: { BIC: "COBADEFFXXX" } },
      ChrgBr: "SLEV",
    });
    expect(file).toMatchObject({ messageId: "BATCH-2026-11-23-0001", numberOfTransactions: 4, controlSum: "100.10" });

    expect(txs.map((t) => t.PmtId.EndToEndId)).toEqual(payments.map((p) => p.endToEndId));
    expect(txs.map((t) => t.Amt.InstdAmt)).toEqual(
      ["10.01", "20.02", "30.03", "40.04"].map((a) => ({ "#text": a, "@_Ccy": "EUR" })),
    );
    expect(txs[0].CdtrAgt).toBeUndefined(); // IBAN only, inside the EEA
    expect(txs[1].CdtrAgt).toEqual({ FinInstnId: { BIC: "ABNANL2A" } });
    expect(txs[1].CdtrAcct.Id.IBAN).toBe("NL91ABNA0417164300");
    expect(txs[0].RmtInf).toEqual({ Ustrd: "Invoice 1" });
    expect(txs[2].RmtInf).toBeUndefined();
    expect(txs[3].Cdtr.Nm).toBe("Zoe Mueller-Strasse");
  });

  test("the schema validator can fail: each broken field of a valid file is caught", SLOW, async () => {
    const { xml } = writeSepaCreditTransferFile(batch([payment(1), payment(2)]));
    const broken: Array<[string, string]> = [
      ["a charge bearer that does not exist", xml.replace("<ChrgBr>SLEV</ChrgBr>", "<ChrgBr>OURS</ChrgBr>")],
      ["an IBAN with spaces", xml.replace("DE89370400440532013000", "DE89 3704 0044 0532 0130 00")],
      ["a BIC in lower case", xml.replace("COBADEFFXXX", "cobadeffxxx")],
      ["a negative amount", xml.replace(">10.01<", ">-10.01<")],
      ["a missing end-to-end id", xml.replace("<EndToEndId>PAYOUT-000001</EndToEndId>", "")],
      ["a name longer than 140", xml.replace("<Nm>Creditor 1</Nm>", `<Nm>${"N".repeat(141)}</Nm>`)],
      ["a date that is not a date", xml.replace("2026-11-24", "24.11.2026")],
    ];
    const errors = await schemaErrorsOf("pain.001.001.03.xsd", [xml, ...broken.map(([, doc]) => doc)]);
    expect(errors[0]).toEqual([]);
    broken.forEach(([what, doc], i) => {
      expect(doc, what).not.toBe(xml);
      expect(errors[i + 1], what).not.toEqual([]);
    });
  });

  test(
    "amounts are exact from 0.01 to 999999999.99, and so is CtrlSum where floating point would drift",
    SLOW,
    async () => {
      const small = writeSepaCreditTransferFile(batch([payment(1, { amountMinor: 1 })]));
      expect(read(small.xml).txs[0].Amt.InstdAmt["#text"]).toBe("0.01");
      expect(small.controlSum).toBe("0.01");

      const large = writeSepaCreditTransferFile(
        batch([payment(1, { amountMinor: 99_999_999_999 }), payment(2, { amountMinor: 1 })]),
      );
      const { header, txs } = read(large.xml);
      expect(txs[0].Amt.InstdAmt["#text"]).toBe("999999999.99");
      expect(header.CtrlSum).toBe("1000000000.00");
      expect(await schemaErrors("pain.001.001.03.xsd", large.xml)).toEqual([]);

      // Adding 999999999.99 700 times in floating point gives 699999999992.99.
      const many = Array.from({ length: 700 }, (_, i) => payment(i + 1, { amountMinor: 99_999_999_999 }));
      const sum = writeSepaCreditTransferFile(batch(many));
      expect(sum.controlSum).toBe("699999999993.00");
      expect(sum.xml.match(/<CtrlSum>[^<]*<\/CtrlSum>/g)).toEqual(Array(2).fill("<CtrlSum>699999999993.00</CtrlSum>"));
    },
  );

  test("CtrlSum is the exact sum of the amounts, whatever they are", SLOW, () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 99_999_999_999 }), { minLength: 1, maxLength: 40 }), (amounts) => {
        const file = writeSepaCreditTransferFile(batch(amounts.map((a, i) => payment(i + 1, { amountMinor: a }))));
        const expected = amounts.reduce((sum, a) => sum.plus(new Big(a).div(100)), new Big(0)).toFixed(2);
        const { header, info, txs } = read(file.xml);
        expect(header.CtrlSum).toBe(expected);
        expect(info.CtrlSum).toBe(expected);
        expect(header.NbOfTxs).toBe(String(amounts.length));
        expect(txs.map((t) => t.Amt.InstdAmt["#text"])).toEqual(amounts.map((a) => new Big(a).div(100).toFixed(2)));
      }),
    );
  });

  test(
    "names and references in any script are written in the SEPA character set, and the file stays valid",
    SLOW,
    async () => {
      const names = fc.string({ unit: "grapheme", minLength: 1, maxLength: 90 }).filter((s) =>
        toSepaText(s, 70).text !== ""
      );
      const samples = fc.sample(fc.tuple(names, fc.string({ unit: "grapheme", maxLength: 200 })), {
        numRuns: 30,
        seed: 2026,
      });
      const file = writeSepaCreditTransferFile(
        batch(samples.map(([name, remittance], i) => payment(i + 1, { creditorName: name, remittance }))),
      );
      expect(await schemaErrors("pain.001.001.03.xsd", file.xml)).toEqual([]);
      const { txs } = read(file.xml);
      for (const value of allText(txs)) expect(isSepaText(value), value).toBe(true);
      for (const t of txs) {
        expect(t.Cdtr.Nm.length).toBeLessThanOrEqual(70);
        expect((t.RmtInf?.Ustrd ?? "").length).toBeLessThanOrEqual(140);
      }
    },
  );
});

describe("characters outside the SEPA set: transliterated, and every change reported", () => {
  test("accents and other Latin letters, Greek and Cyrillic become their Latin spelling", () => {
    const cases: Array<[string, string]> = [
      ["Zoë Müller", "Zoe Mueller"],
      ["Łukasz Żółć", "Lukasz Zolc"],
      ["Ørsted A/S", "Orsted A/S"],
      ["Ştefan Ţăran", "Stefan Taran"],
      ["Δημήτρης Παπαδόπουλος", "Dimitris Papadopoylos"],
      ["Иван Петров", "Ivan Petrov"],
      ["Smith & Sons <Ltd>", "Smith + Sons (Ltd)"],
      ["Invoice #42; thanks!", "Invoice 42, thanks."],
      ["  two   spaces\tand a tab ", "two spaces and a tab"],
    ];
    for (const [given, written] of cases) expect(toSepaText(given, 140).text, given).toBe(written);
  });

  test("the file reports which payments' names and references were written differently", () => {
    const file = writeSepaCreditTransferFile(batch([
      payment(1, { creditorName: "François Lefèvre", remittance: "Facture n° 12 – merci" }),
      payment(2),
    ]));
    expect(file.changes).toEqual([
      {
        endToEndId: "PAYOUT-000001",
        field: "creditor_name",
        given: "François Lefèvre",
        written: "Francois Lefevre",
        truncated: false,
      },
      {
        endToEndId: "PAYOUT-000001",
        field: "remittance",
        given: "Facture n° 12 – merci",
        written: "Facture n 12 - merci",
        truncated: false,
      },
    ]);
  });

  test("a name is cut to 70 characters and a reference to 140, and the cut is reported", () => {
    const longName = "Internationale Handelsgesellschaft für Maschinenbau und Anlagentechnik mbH & Co. KG";
    const longReference = "R".repeat(150);
    const file = writeSepaCreditTransferFile(batch([
      payment(1, { creditorName: longName, remittance: longReference }),
    ]));
    const { txs } = read(file.xml);
    expect(txs[0].Cdtr.Nm).toBe("Internationale Handelsgesellschaft fuer Maschinenbau und Anlagentechni");
    expect(txs[0].Cdtr.Nm).toHaveLength(70);
    expect(txs[0].RmtInf.Ustrd).toBe("R".repeat(140));
    expect(file.changes.map((c) => [c.field, c.truncated])).toEqual([["creditor_name", true], ["remittance", true]]);
  });

  test("a name with nothing a SEPA file can carry is refused, not sent blank; such a reference is reported", () => {
    const file = writeSepaCreditTransferFile(batch([payment(1, { remittance: "张伟" })]));
    expect(read(file.xml).txs[0].RmtInf).toBeUndefined();
    expect(file.changes).toEqual([
      { endToEndId: "PAYOUT-000001", field: "remittance", given: "张伟", written: "", truncated: false },
    ]);
    const error = refusal(() => writeSepaCreditTransferFile(batch([payment(1, { creditorName: "张伟" })])));
    expect(error.problems).toEqual([{
      field: "payments.0.creditor_name",
      message: 'Payment "PAYOUT-000001": the creditor\'s name has no letters that a SEPA file can carry.',
    }]);
  });

  test("text is escaped as XML: what a bank's parser reads back is what we wrote", () => {
    const file = writeSepaCreditTransferFile(batch([
      payment(1, { creditorName: "O'Brien & Daughters", remittance: "Ref 'A' + \"B\" <C>" }),
    ]));
    expect(file.xml).not.toMatch(/&(?!amp;|apos;|quot;|lt;|gt;)/);
    const { txs } = read(file.xml);
    expect(txs[0].Cdtr.Nm).toBe("O'Brien + Daughters");
    expect(txs[0].RmtInf.Ustrd).toBe("Ref 'A' + 'B' (C)");
  });
});

describe("what a SEPA file refuses to carry", () => {
  test("each problem is named with its payment, and all of them at once", () => {
    const error = refusal(() =>
      writeSepaCreditTransferFile(batch([
        payment(1, { creditorIban: "FR1420041010050500013M02607" }),
        payment(2, { creditorIban: "BR1800360305000010009795493C1" }),
        payment(3, { amountMinor: 0 }),
        payment(4, { amountMinor: 100_000_000_000 }),
        payment(5, { amountMinor: 12.5 }),
        payment(6, { creditorBic: "NOTABIC" }),
        payment(7, { endToEndId: "has spaces" }),
        payment(8, { endToEndId: "A".repeat(36) }),
        payment(9, { endToEndId: "A//B" }),
        payment(10, { endToEndId: "PAYOUT-000001" }),
      ]))
    );
    expect(error.problems.map((p) => p.field)).toEqual([
      "payments.0.creditor_iban",
      "payments.1.creditor_iban",
      "payments.2.amount",
      "payments.3.amount",
      "payments.4.amount",
      "payments.5.creditor_bic",
      "payments.6.end_to_end_id",
      "payments.7.end_to_end_id",
      "payments.8.end_to_end_id",
      "payments.9.end_to_end_id",
    ]);
    expect(error.problems[1].message).toBe('Payment "PAYOUT-000002": the creditor\'s account is in BR, outside SEPA.');
    expect(error.problems[9].message).toBe(
      'Payment "PAYOUT-000001" appears twice in the file; a payment is paid once.',
    );
    expect(error.field).toBe("payments.0.creditor_iban");
    expect(error.message).toMatch(
      /^Payment "PAYOUT-000001": the creditor's IBAN .* is not a valid IBAN\. .*\(and 5 more\)$/,
    );
  });

  test("a creditor bank's BIC is required when a SEPA country outside the EEA is involved", () => {
    const swiss = payment(1, { creditorIban: "CH9300762011623852957" });
    expect(refusal(() => writeSepaCreditTransferFile(batch([swiss]))).problems).toEqual([{
      field: "payments.0.creditor_bic",
      message:
        'Payment "PAYOUT-000001": the creditor bank\'s BIC is needed for a transfer that involves CH, a SEPA country outside the EEA.',
    }]);
    expect(() => writeSepaCreditTransferFile(batch([{ ...swiss, creditorBic: "UBSWCHZH80A" }]))).not.toThrow();

    // From a UK account, every payment needs the BIC, even to the euro area.
    const fromUk = { ...DEBTOR, iban: "GB33BUKB20201555555555", bic: "BUKBGB22" };
    expect(refusal(() => writeSepaCreditTransferFile(batch([payment(1)], { debtor: fromUk }))).problems[0].message)
      .toMatch(/involves GB/);
  });

  test("the batch itself: message id, dates, the company's account, and at least one payment", () => {
    const error = refusal(() =>
      writeSepaCreditTransferFile(batch([], {
        messageId: "",
        executionDate: "2026-11-22",
        debtor: { name: "维", iban: "DE89370400440532013001", bic: "COBADE" },
      }))
    );
    expect(error.problems.map((p) => p.field)).toEqual([
      "message_id",
      "execution_date",
      "debtor.iban",
      "debtor.bic",
      "debtor.name",
      "payments",
    ]);
    expect(error.problems[1].message).toBe(
      "The requested execution date 2026-11-22 is before the file was made (2026-11-23).",
    );
    expect(refusal(() => writeSepaCreditTransferFile(batch([payment(1)], { executionDate: "2026-02-30" }))).problems)
      .toEqual([{
        field: "execution_date",
        message: 'The requested execution date "2026-02-30" is not a date like 2026-11-23.',
      }]);
  });
});
