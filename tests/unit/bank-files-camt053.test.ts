import { describe, expect, test } from "vitest";
import { BankFileError } from "../../server/bank-files/bank-file-error.ts";
import { readBankStatement } from "../../server/bank-files/camt053.ts";
import { writeSepaCreditTransferFile } from "../../server/bank-files/pain001.ts";
import { fixture, schemaErrorsOf } from "./bank-files-xsd.ts";

/** The Federation of Finnish Financial Services' published sample (tests/fixtures/iso20022/README.md). */
const SAMPLE = fixture("camt.053.001.02-fffs-sample.xml");
const ACCOUNT = "FI7433010001222090";

function refusal(fn: () => unknown): BankFileError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(BankFileError);
    return e as BankFileError;
  }
  throw new Error("expected a BankFileError, nothing was thrown");
}

// Small statements for the cases the sample does not hold, written in the schema's element order
// (a test below validates every one of them against the official XSD).
interface Tx {
  amount?: string;
  debtor?: string;
  debtorIban?: string;
  endToEndId?: string;
  lines?: string[];
  creditorReference?: string;
}
interface Entry {
  amount?: string;
  currency?: string;
  creditDebit?: "CRDT" | "DBIT";
  reversal?: boolean;
  status?: "BOOK" | "PDNG" | "INFO";
  booking?: string;
  bookingDateTime?: string;
  reference?: string | null;
  txs?: Tx[];
  info?: string;
}

function tx(t: Tx, currency: string): string {
  const refs = t.endToEndId ? `<Refs><EndToEndId>${t.endToEndId}</EndToEndId></Refs>` : "";
  const amount = t.amount ? `<AmtDtls><TxAmt><Amt Ccy="${currency}">${t.amount}</Amt></TxAmt></AmtDtls>` : "";
  const parties = t.debtor || t.debtorIban
    ? `<RltdPties>${t.debtor ? `<Dbtr><Nm>${t.debtor}</Nm></Dbtr>` : ""}${
      t.debtorIban ? `<DbtrAcct><Id><IBAN>${t.debtorIban}</IBAN></Id></DbtrAcct>` : ""
    }</RltdPties>`
    : "";
  const strd = t.creditorReference
    ? `<Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry><Issr>ISO</Issr></Tp><Ref>${t.creditorReference}</Ref></CdtrRefInf></Strd>`
    : "";
  const lines = (t.lines ?? []).map((l) => `<Ustrd>${l}</Ustrd>`).join("");
  const remittance = lines || strd ? `<RmtInf>${lines}${strd}</RmtInf>` : "";
  return `<TxDtls>${refs}${amount}${parties}${remittance}</TxDtls>`;
}

function entry(e: Entry): string {
  const currency = e.currency ?? "EUR";
  const booked = e.bookingDateTime
    ? `<BookgDt><DtTm>${e.bookingDateTime}</DtTm></BookgDt>`
    : `<BookgDt><Dt>${e.booking ?? "2026-11-23"}</Dt></BookgDt>`;
  const reference = e.reference === null ? "" : `<AcctSvcrRef>${e.reference ?? "REF-1"}</AcctSvcrRef>`;
  const details = e.txs?.length ? `<NtryDtls>${e.txs.map((t) => tx(t, currency)).join("")}</NtryDtls>` : "";
  return `<Ntry><Amt Ccy="${currency}">${e.amount ?? "100.00"}</Amt><CdtDbtInd>${e.creditDebit ?? "CRDT"}</CdtDbtInd>${
    e.reversal ? "<RvslInd>true</RvslInd>" : ""
  }<Sts>${
    e.status ?? "BOOK"
  }</Sts>${booked}<ValDt><Dt>2026-11-24</Dt></ValDt>${reference}<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>${details}${
    e.info ? `<AddtlNtryInf>${e.info}</AddtlNtryInf>` : ""
  }</Ntry>`;
}

function statement(entries: Entry[], options: { prefix?: string; summary?: string } = {}): string {
  const body =
    `<BkToCstmrStmt><GrpHdr><MsgId>MSG-1</MsgId><CreDtTm>2026-11-24T06:00:00</CreDtTm></GrpHdr><Stmt><Id>STMT-1</Id><CreDtTm>2026-11-24T06:00:00</CreDtTm><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct><Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-23</Dt></Dt></Bal>${
      options.summary ?? ""
    }${entries.map(entry).join("")}</Stmt></BkToCstmrStmt>`;
  const xml =
    `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">${body}</Document>`;
  if (!options.prefix) return xml;
  // The same document with every element in a prefixed namespace, as some banks write it.
  return xml.replace(/<(\/?)([A-Za-z]+)/g, `<$1${options.prefix}:$2`).replace(
    'xmlns="',
    `xmlns:${options.prefix}="`,
  );
}

const BATCH = statement([{
  amount: "60.00",
  reference: "BATCH-7",
  txs: [
    { amount: "10.00", debtor: "Anna Virtanen", lines: ["P12345674"] },
    { amount: "20.00", debtor: "Ben Smith", creditorReference: "RF18539007547034" },
    { amount: "30.00", debtor: "Chloé Dubois", lines: ["Top up", "B76543216"] },
  ],
}]);
const NO_REFERENCES = statement([
  { reference: null, txs: [{ debtor: "Same Payer", lines: ["P12345674"] }] },
  { reference: null, txs: [{ debtor: "Same Payer", lines: ["P12345674"] }] },
  { reference: null, txs: [{ debtor: "Same Payer", lines: ["P12345675"] }] },
]);

describe("the bank's statement file (camt.053.001.02)", () => {
  test(
    "the bank's sample and the statements of these tests are valid camt.053.001.02",
    { timeout: 30_000 },
    async () => {
      const documents = [
        SAMPLE,
        BATCH,
        NO_REFERENCES,
        statement([{ txs: [{ endToEndId: "NOTPROVIDED", debtorIban: "FR1420041010050500013M02606" }] }], {
          prefix: "camt",
        }),
        statement([{ status: "PDNG" }, { currency: "ISK", amount: "1500" }, { reversal: true, info: "Returned" }]),
        statement([{ bookingDateTime: "2026-11-23T14:05:00+01:00" }]),
      ];
      expect(await schemaErrorsOf("camt.053.001.02.xsd", documents)).toEqual(documents.map(() => []));
      // The validator is not blind: the sample with a credit-debit code that does not exist fails.
      const [broken] = await schemaErrorsOf("camt.053.001.02.xsd", [
        SAMPLE.replace("<CdtDbtInd>CRDT", "<CdtDbtInd>CRED"),
      ]);
      expect(broken).not.toEqual([]);
    },
  );

  test("every booked credit of the sample, with what the receipts import needs", () => {
    const read = readBankStatement(SAMPLE);
    expect(read.messageId).toBe("BANKFILEID00001");
    expect(read.statements).toEqual([
      { id: "BANKSTMTID0972010", account: ACCOUNT, createdAt: "2010-10-30T02:00:00+02:00", entries: 10 },
    ]);
    expect(read.credits.map((c) => [c.accountServicerReference, c.amountMinor, c.currency])).toEqual([
      ["091029ACCTSTMTARCH04", 200000, "EUR"],
      ["091029ACCTSTMTARCH21", 50000, "EUR"],
      ["091029ACCTSTMTARCH05", 300000, "EUR"],
      ["091029ACCTSTMTARCH06", 212000, "EUR"],
      ["091029ACCTSTMTARCH07", 545500, "EUR"],
      ["091029ACCTSTMTARCH08", 1000000, "EUR"],
    ]);
    // The statement's own summary: 6 credits for 23075.00.
    expect(read.credits.reduce((sum, c) => sum + c.amountMinor, 0)).toBe(2307500);

    const [, , , foreign, priority, sepa] = read.credits;
    expect(foreign).toMatchObject({
      key: `${ACCOUNT}/2010-10-29/091029ACCTSTMTARCH06`,
      statementId: "BANKSTMTID0972010",
      account: ACCOUNT,
      entryReference: "6",
      bookingDate: "2010-10-29",
      valueDate: "2010-10-30",
      debtorName: "DEBTOR NAME",
      remittanceLines: ["INVOICE US20291092"],
      creditorReferences: [],
      reference: "INVOICE US20291092",
      bankTransactionCode: "PMNT/RCDT/XBCT",
      reversal: false,
    });
    expect(priority).toMatchObject({ debtorName: "PAYERS NAME2", creditorReferences: ["RF98123456789012"] });
    expect(sepa).toMatchObject({
      debtorName: "DEBTOR",
      endToEndId: "EndToEndIdSCT01",
      reference: "RF98123456789012",
      bankTransactionCode: "PMNT/RCDT/ESCT",
    });
  });

  test("debit entries are skipped, and the result says so", () => {
    const { skipped } = readBankStatement(SAMPLE);
    expect(skipped.map((s) => [s.reason, s.accountServicerReference, s.amount])).toEqual([
      ["debit", "091029ACCTSTMTARCH01", "1000.12"],
      ["debit", "091029ACCTSTMTARCH02", "4000.00"],
      ["debit", "091029ACCTSTMTARCH03", "4230.05"],
      ["debit", "091029ACCTSTMTARCH09", "200.00"],
    ]);
  });

  test("each credit has a key of its own, the same every time the file is read", () => {
    const first = readBankStatement(SAMPLE).credits.map((c) => c.key);
    expect(new Set(first).size).toBe(first.length);
    expect(readBankStatement(SAMPLE).credits.map((c) => c.key)).toEqual(first);
  });

  test("without the bank's reference, identical entries still get keys of their own, stable across reads", () => {
    const keys = readBankStatement(NO_REFERENCES).credits.map((c) => c.key);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(3);
    for (const key of keys) expect(key).toMatch(/^DE89370400440532013000\/2026-11-23\/sha256:[0-9a-f]{64}$/);
    expect(readBankStatement(NO_REFERENCES).credits.map((c) => c.key)).toEqual(keys);
    // The same entries in a statement the bank re-sent under another id are the same credits.
    const resent = NO_REFERENCES.replace("<Id>STMT-1</Id>", "<Id>STMT-1-COPY</Id>");
    expect(readBankStatement(resent).credits.map((c) => c.key)).toEqual(keys);
  });

  test("a batch booked as one credit gives one credit per transaction when their amounts add up", () => {
    const { credits } = readBankStatement(BATCH);
    expect(credits.map((c) => [c.key, c.amountMinor, c.debtorName, c.reference])).toEqual([
      ["DE89370400440532013000/2026-11-23/BATCH-7/1", 1000, "Anna Virtanen", "P12345674"],
      ["DE89370400440532013000/2026-11-23/BATCH-7/2", 2000, "Ben Smith", "RF18539007547034"],
      ["DE89370400440532013000/2026-11-23/BATCH-7/3", 3000, "Chloé Dubois", "Top up B76543216"],
    ]);

    const unbalanced = readBankStatement(BATCH.replace(">30.00<", ">31.00<")).credits;
    expect(unbalanced).toHaveLength(1);
    expect(unbalanced[0]).toMatchObject({
      key: "DE89370400440532013000/2026-11-23/BATCH-7",
      amountMinor: 6000,
      debtorName: "Anna Virtanen",
      remittanceLines: ["P12345674", "Top up", "B76543216"],
      creditorReferences: ["RF18539007547034"],
    });
  });

  test("pending entries and currencies we do not hold are skipped; a reversal is marked", () => {
    const read = readBankStatement(
      statement([
        { status: "PDNG", reference: "R1" },
        { currency: "ISK", amount: "1500", reference: "R2" },
        { reversal: true, info: "Returned payment", reference: "R3" },
      ]),
    );
    expect(read.skipped.map((s) => [s.reason, s.accountServicerReference, s.status])).toEqual([
      ["not_booked", "R1", "PDNG"],
      ["unsupported_currency", "R2", "BOOK"],
    ]);
    expect(read.credits).toHaveLength(1);
    expect(read.credits[0]).toMatchObject({
      reversal: true,
      additionalInformation: "Returned payment",
      reference: "Returned payment",
    });
  });

  test("a return of our transfer says so, with the bank's reason; an ordinary credit is no return", () => {
    const returned = statement([
      { reference: "RET-1", txs: [{ endToEndId: "PAYMENT-42", lines: ["Rent"] }] },
      { reference: "RET-2", txs: [{ lines: ["Rent"] }] },
      { reference: "PLAIN", txs: [{ endToEndId: "PAYMENT-43", lines: ["Top up"] }] },
    ])
      // The first two as a bank writes a SEPA return: the code PMNT/ICDT/RRTN, or only the return information.
      .replace("<Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd>", "<Fmly><Cd>ICDT</Cd><SubFmlyCd>RRTN</SubFmlyCd>")
      .replace(
        "<Ustrd>Rent</Ustrd></RmtInf></TxDtls>",
        "<Ustrd>Rent</Ustrd></RmtInf><RtrInf><Rsn><Cd>AC04</Cd></Rsn><AddtlInf>Account closed</AddtlInf></RtrInf></TxDtls>",
      )
      .replace(
        "<Ustrd>Rent</Ustrd></RmtInf></TxDtls>",
        "<Ustrd>Rent</Ustrd></RmtInf><RtrInf><Rsn><Prtry>R17</Prtry></Rsn><AddtlInf>Return of PAYMENT-44</AddtlInf></RtrInf></TxDtls>",
      );
    const read = readBankStatement(returned);
    expect(read.credits.map((c) => [c.accountServicerReference, c.endToEndId, c.bankTransactionCode, c.returned]))
      .toEqual([
        ["RET-1", "PAYMENT-42", "PMNT/ICDT/RRTN", { reasonCode: "AC04", information: "Account closed" }],
        ["RET-2", null, "PMNT/RCDT/ESCT", { reasonCode: "R17", information: "Return of PAYMENT-44" }],
        ["PLAIN", "PAYMENT-43", "PMNT/RCDT/ESCT", null],
      ]);
  });

  test("amounts become exact minor units of their currency", () => {
    const amounts = (entries: Entry[]) => readBankStatement(statement(entries)).credits.map((c) => c.amountMinor);
    expect(amounts([
      { amount: "0.01", reference: "A" },
      { amount: "100.00000", reference: "B" },
      { amount: "999999999.99", reference: "C" },
      { amount: "1500", currency: "JPY", reference: "D" },
      { amount: "1.25", currency: "KWD", reference: "E" },
    ])).toEqual([1, 10000, 99999999999, 1500, 1250]);
    expect(refusal(() => amounts([{ amount: "1.005", reference: "F" }])).message).toBe(
      'The amount "1.005" EUR of credit entry F is not an amount of EUR.',
    );
  });

  test("dates given with a time, a prefixed namespace and NOTPROVIDED end-to-end ids are read as banks mean them", () => {
    expect(readBankStatement(statement([{ bookingDateTime: "2026-11-23T14:05:00+01:00" }])).credits[0].bookingDate)
      .toBe("2026-11-23");
    const prefixed = readBankStatement(
      statement([{ txs: [{ endToEndId: "NOTPROVIDED", debtorIban: "FR1420041010050500013M02606", lines: ["X"] }] }], {
        prefix: "camt",
      }),
    );
    expect(prefixed.credits).toHaveLength(1);
    expect(prefixed.credits[0]).toMatchObject({
      endToEndId: null,
      debtorAccount: "FR1420041010050500013M02606",
      reference: "X",
      bookingDate: "2026-11-23",
      valueDate: "2026-11-24",
    });
  });
});

describe("what the statement reader refuses", () => {
  test("a document that is not camt.053.001.02 says what it is instead", () => {
    const pain = writeSepaCreditTransferFile({
      messageId: "M1",
      createdAt: new Date("2026-11-23T00:00:00Z"),
      executionDate: "2026-11-23",
      debtor: { name: "Example", iban: "DE89370400440532013000", bic: "COBADEFFXXX" },
      payments: [{ endToEndId: "E1", amountMinor: 100, creditorName: "A", creditorIban: "NL91ABNA0417164300" }],
    }).xml;
    const cases: Array<[string, string | RegExp]> = [
      [pain, "The import reads bank statements in ISO 20022 camt.053.001.02 only; this file is pain.001.001.03."],
      [
        SAMPLE.replace("camt.053.001.02", "camt.053.001.08"),
        "The import reads bank statements in ISO 20022 camt.053.001.02 only; this file is camt.053.001.08.",
      ],
      [
        SAMPLE.replace("camt.053.001.02", "camt.054.001.02"),
        "The import reads bank statements in ISO 20022 camt.053.001.02 only; this file is camt.054.001.02.",
      ],
      [
        "<html><body>Statement</body></html>",
        "The import reads bank statements in ISO 20022 camt.053.001.02 only; this file is not one (its root element is html without a namespace).",
      ],
      ["", "The statement file is empty."],
      [
        "<Document><Stmt></Document>",
        /^The statement file is not well-formed XML \(line 1, column \d+: .*'Stmt'.*\)\.$/,
      ],
      [
        '<?xml version="1.0"?><!DOCTYPE lol [<!ENTITY lol "lol">]><Document>&lol;</Document>',
        "The statement file declares a DOCTYPE; bank statements have none.",
      ],
    ];
    for (const [xml, message] of cases) {
      const error = refusal(() => readBankStatement(xml));
      if (typeof message === "string") expect(error.message).toBe(message);
      else expect(error.message).toMatch(message);
      expect(error.field).toBe("file");
    }
  });

  test("an entry that is neither credit nor debit, or two credits with one bank reference, refuse the file", () => {
    const unmarked = statement([{ reference: "A" }]).replace("<CdtDbtInd>CRDT</CdtDbtInd><Sts>", "<Sts>");
    expect(refusal(() => readBankStatement(unmarked)).message).toBe(
      "Statement STMT-1: entry A says neither credit nor debit (CdtDbtInd); the file was not read.",
    );
    const twice = statement([{ reference: "A", amount: "1.00" }, { reference: "A", amount: "2.00" }]);
    expect(refusal(() => readBankStatement(twice)).message).toBe(
      "Two credit entries carry the bank's reference A; the file was not read.",
    );
    // The same reference on another day is another entry.
    const days = statement([{ reference: "A" }, { reference: "A", booking: "2026-11-24" }]);
    expect(readBankStatement(days).credits.map((c) => c.key)).toEqual([
      "DE89370400440532013000/2026-11-23/A",
      "DE89370400440532013000/2026-11-24/A",
    ]);
  });

  test("a statement whose own totals disagree with its entries is not read", () => {
    const totals = (count: number, sum: string) =>
      `<TxsSummry><TtlCdtNtries><NbOfNtries>${count}</NbOfNtries><Sum>${sum}</Sum></TtlCdtNtries></TxsSummry>`;
    const entries: Entry[] = [{ amount: "10.00", reference: "A" }, { amount: "5.50", reference: "B" }];
    expect(readBankStatement(statement(entries, { summary: totals(2, "15.5") })).credits).toHaveLength(2);
    expect(refusal(() => readBankStatement(statement(entries, { summary: totals(3, "15.50") }))).message).toBe(
      "Statement STMT-1 says it has 3 credit entries, but it holds 2; the file was not read.",
    );
    expect(refusal(() => readBankStatement(statement(entries, { summary: totals(2, "15.51") }))).message).toBe(
      "Statement STMT-1 says its credits add up to 15.51, but its credit entries do not; the file was not read.",
    );
  });
});
