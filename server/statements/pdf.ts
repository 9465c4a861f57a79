import transliterate from "@sindresorhus/transliterate";
import {
  beginText,
  endText,
  moveText,
  PDFDocument,
  type PDFFont,
  type PDFName,
  type PDFOperator,
  type PDFPage,
  rgb,
  setFontAndSize,
  showText,
  StandardFonts,
} from "pdf-lib";
import { currencyName, readableAmount, type StatementDocument, statementTime } from "./document.ts";

/**
 * A statement as PDF (decision 037), drawn with pdf-lib in the standard Helvetica fonts, so the text
 * is real text (a reader can select it, a test extracts it) and no font file is embedded. A4
 * portrait: the company and the account at the top of the first page; per currency its opening
 * balance, a table (date, type, description, rate, amount, held, balance) and its closing balance; every
 * page's foot names the account_ref, the period and the page.
 *
 * The table's cells are written as raw text operators, one page's at a time: pdf-lib's drawText
 * costs about 0.13 ms a call here, and a 10,000-line statement has 60,000 cells (8 s); written this
 * way they take about 2 s (docs/PERFORMANCE.md, "Statements").
 */

const A4 = { width: 595.28, height: 841.89 };
const MARGIN = 40;
const SIZE = 8;
const ROW = 12;
const GREY = rgb(0.35, 0.35, 0.35);
const RULE = rgb(0.75, 0.75, 0.75);

/**
 * The table's columns: where each starts and how wide it is; amounts are right-aligned. A statement
 * is a record, so nothing in it is cut: a description or rate longer than its column goes on over
 * further lines of its row. The rate's column takes a six-decimal rate with both currencies
 * ("1 GBP = 203.387372 JPY") on one line. `held` is the part of the balance held for payments, as
 * the CSV's column: a hold or release line moves money between available and held with amount 0.
 */
const COLUMNS = {
  date: { x: MARGIN, width: 64 },
  type: { x: MARGIN + 66, width: 44 },
  description: { x: MARGIN + 114, width: 136 },
  rate: { x: MARGIN + 254, width: 96 },
  amount: { x: MARGIN + 354, width: 54 },
  held: { x: MARGIN + 412, width: 48 },
  balance: { x: MARGIN + 464, width: 51 },
};

/**
 * Helvetica reads WinAnsi only: the Latin-1 letters stay (Müller, José), other letters are
 * transliterated one by one (Łukasz → Lukasz, Δημήτρης → Dimitris), and whatever has no Latin form
 * becomes "?", so that a name in another script never stops a statement.
 */
const WIN_ANSI = /[\u0020-\u007e\u00a0-\u00ff€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ]/;

function winAnsi(text: string): string {
  // Most text is plain ASCII already: nothing to look at (10,000 lines).
  if (/^[\u0020-\u007e]*$/.test(text)) return text;
  let out = "";
  for (const char of text) {
    if (WIN_ANSI.test(char)) out += char;
    else if (/\s/.test(char)) out += " ";
    else {
      const latin = transliterate(char);
      out += /^[\u0020-\u007e]+$/.test(latin) ? latin : "?";
    }
  }
  return out;
}

class Writer {
  page!: PDFPage;
  y = 0;
  pages: PDFPage[] = [];
  /**
   * The table cells of the current page, written to it in one text object when the page is done:
   * each cell is a move from the one before (Td) and its text (Tj), and the font is set only when
   * it changes.
   */
  cells: PDFOperator[] = [];
  at = { x: 0, y: 0, bold: null as boolean | null };
  fontKey!: PDFName;
  boldKey!: PDFName;

  constructor(
    readonly pdf: PDFDocument,
    readonly font: PDFFont,
    readonly bold: PDFFont,
    readonly doc: StatementDocument,
  ) {}

  newPage() {
    this.flush();
    this.page = this.pdf.addPage([A4.width, A4.height]);
    this.fontKey = this.page.node.newFontDictionary("StatementFont", this.font.ref);
    this.boldKey = this.page.node.newFontDictionary("StatementBold", this.bold.ref);
    this.pages.push(this.page);
    this.y = A4.height - MARGIN;
  }

  /** Writes the current page's table cells. */
  flush() {
    if (this.page && this.cells.length > 0) this.page.pushOperators(beginText(), ...this.cells, endText());
    this.cells = [];
    this.at = { x: 0, y: 0, bold: null };
  }

  /** A table cell: plain text at (x, the current row), in the table's size. */
  cell(text: string, x: number, bold = false) {
    const font = bold ? this.bold : this.font;
    if (this.at.bold !== bold) this.cells.push(setFontAndSize(bold ? this.boldKey : this.fontKey, SIZE));
    this.cells.push(moveText(x - this.at.x, this.y - this.at.y), showText(font.encodeText(text)));
    this.at = { x, y: this.y, bold };
  }

  text(text: string, x: number, options: { size?: number; bold?: boolean; color?: ReturnType<typeof rgb> } = {}) {
    this.page.drawText(winAnsi(text), {
      x,
      y: this.y,
      size: options.size ?? SIZE,
      font: options.bold ? this.bold : this.font,
      color: options.color,
    });
  }

  /**
   * Text as the lines it takes in a width: broken between words, and a word wider than the width
   * broken where it must; nothing is left out.
   */
  wrapped(text: string, width: number, size = SIZE, bold = false): string[] {
    const t = winAnsi(text);
    const font = bold ? this.bold : this.font;
    // Most cells fit on one line: one measure.
    if (font.widthOfTextAtSize(t, size) <= width) return [t];
    const fits = (s: string) => font.widthOfTextAtSize(s, size) <= width;
    const lines: string[] = [];
    let line = "";
    for (const word of t.split(" ")) {
      const joined = line === "" ? word : `${line} ${word}`;
      if (fits(joined)) {
        line = joined;
        continue;
      }
      if (line !== "") lines.push(line);
      line = word;
      // A word wider than the column on its own: as many characters a line as fit.
      while (!fits(line)) {
        let end = 1;
        while (end < line.length && fits(line.slice(0, end + 1))) end++;
        lines.push(line.slice(0, end));
        line = line.slice(end);
      }
    }
    if (line !== "") lines.push(line);
    return lines;
  }

  right(text: string, column: { x: number; width: number }, bold = false) {
    const font = bold ? this.bold : this.font;
    const t = winAnsi(text);
    this.page.drawText(t, {
      x: column.x + column.width - font.widthOfTextAtSize(t, SIZE),
      y: this.y,
      size: SIZE,
      font,
    });
  }

  /** Room for `rows` more rows, else a new page (with the table's head again when in a table). */
  room(rows: number, head?: () => void) {
    if (this.y - rows * ROW < MARGIN + 24) {
      this.newPage();
      head?.();
    }
  }

  rule() {
    this.page.drawLine({
      start: { x: MARGIN, y: this.y + ROW - 3 },
      end: { x: A4.width - MARGIN, y: this.y + ROW - 3 },
      thickness: 0.5,
      color: RULE,
    });
  }
}

export async function statementPdf(
  doc: StatementDocument,
  onRows: (done: number) => Promise<void> = async () => {},
  every = 500,
): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.setTitle(`Statement ${doc.account.ref} ${doc.from} to ${doc.to}`);
  pdf.setAuthor(doc.company.name);
  pdf.setCreationDate(doc.generatedAt);
  pdf.setModificationDate(doc.generatedAt);
  const w = new Writer(
    pdf,
    await pdf.embedFont(StandardFonts.Helvetica),
    await pdf.embedFont(StandardFonts.HelveticaBold),
    doc,
  );
  w.newPage();

  // The head: who issues it (right), whose it is (left).
  w.text(doc.company.name, A4.width - MARGIN - 240, { size: 12, bold: true });
  w.text("Statement", MARGIN, { size: 18, bold: true });
  w.y -= 16;
  for (const line of doc.company.details.flatMap((detail) => w.wrapped(detail, 240, 7))) {
    w.text(line, A4.width - MARGIN - 240, { size: 7, color: GREY });
    w.y -= 10;
  }
  w.y -= 4;
  // An account's name may be 200 characters: over as many lines as it takes, not off the page.
  for (const line of w.wrapped(doc.account.name, A4.width - 2 * MARGIN, 11, true)) {
    w.text(line, MARGIN, { size: 11, bold: true });
    w.y -= 14;
  }
  w.text(`Account reference: ${doc.account.ref}`, MARGIN, { size: 10 });
  w.y -= 13;
  w.text(`Period: ${doc.from} to ${doc.to} (UTC)`, MARGIN, { size: 10 });
  w.y -= 13;
  w.text(
    `Closing balances at ${statementTime(doc.closingAt)} UTC; made ${statementTime(doc.generatedAt)} UTC`,
    MARGIN,
    { size: 8, color: GREY },
  );
  w.y -= 22;

  if (doc.sections.length === 0) {
    w.text("The account held no money and had no movements in this period.", MARGIN, { size: 10 });
  }

  let done = 0;
  for (const section of doc.sections) {
    const money = (minor: number) => readableAmount(section.currency, minor);
    const head = () => {
      w.cell("Date (UTC)", COLUMNS.date.x, true);
      w.cell("Type", COLUMNS.type.x, true);
      w.cell("Description", COLUMNS.description.x, true);
      w.cell("Rate", COLUMNS.rate.x, true);
      w.right("Amount", COLUMNS.amount, true);
      w.right("Held", COLUMNS.held, true);
      w.right("Balance", COLUMNS.balance, true);
      w.y -= ROW;
      w.rule();
    };
    w.room(6);
    w.text(`${section.currency} - ${currencyName(section.currency)}`, MARGIN, { size: 12, bold: true });
    w.y -= 16;
    w.text(`Opening balance on ${doc.from}: ${money(section.opening)} ${section.currency}`, MARGIN, { size: 9 });
    if (section.openingHeld !== 0) {
      w.text(`(held for payments: ${money(section.openingHeld)})`, MARGIN + 300, { size: 9, color: GREY });
    }
    w.y -= 16;
    head();
    if (section.lines.length === 0) {
      w.text("No movements in this period.", COLUMNS.description.x, { color: GREY });
      w.y -= ROW;
    }
    for (const line of section.lines) {
      const description = w.wrapped(line.description, COLUMNS.description.width);
      const rate = line.rate ? w.wrapped(line.rate, COLUMNS.rate.width) : [];
      const rows = Math.max(description.length, rate.length, 1);
      // A row's lines stay on one page.
      w.room(rows, head);
      w.cell(statementTime(line.at), COLUMNS.date.x);
      w.cell(line.kind, COLUMNS.type.x);
      w.right(money(line.amount), COLUMNS.amount);
      w.right(money(line.held), COLUMNS.held);
      w.right(money(line.balance), COLUMNS.balance);
      const top = w.y;
      for (let i = 0; i < rows; i++) {
        w.y = top - i * ROW;
        if (description[i]) w.cell(description[i], COLUMNS.description.x);
        if (rate[i]) w.cell(rate[i], COLUMNS.rate.x);
      }
      w.y = top - rows * ROW;
      if (++done % every === 0) await onRows(done);
    }
    w.room(3);
    w.y -= 4;
    w.text(`Closing balance on ${doc.to}: ${money(section.closing)} ${section.currency}`, MARGIN, {
      size: 9,
      bold: true,
    });
    if (section.closingHeld !== 0) {
      w.text(`(held for payments: ${money(section.closingHeld)})`, MARGIN + 300, { size: 9, color: GREY });
    }
    w.y -= 28;
  }

  w.flush();
  // Every page's foot: the account, the period, the page.
  w.pages.forEach((page, i) => {
    page.drawText(
      winAnsi(
        `${doc.company.name} - statement of ${doc.account.ref}, ${doc.from} to ${doc.to} - page ${
          i + 1
        } of ${w.pages.length}`,
      ),
      { x: MARGIN, y: MARGIN - 16, size: 7, font: w.font, color: GREY },
    );
  });
  await onRows(done);
  return await pdf.save({ useObjectStreams: true });
}
