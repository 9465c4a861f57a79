import { eq } from "drizzle-orm";
import { Buffer } from "node:buffer";
import type { AddressInfo } from "node:net";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";
import { afterEach, describe, expect, test, vi } from "vitest";
import { emails, users } from "../../db/schema.ts";
import type { Config } from "../../server/config.ts";
import {
  accountInvitation,
  accountInvitationWithdrawn,
  accountOpened,
  administratorInvitation,
  createMailer,
  emailValidation,
  passwordChanged,
  passwordReset,
  registrationAttempt,
  type RenderedEmail,
  secondFactorCode,
  signInPaused,
} from "../../server/mail/index.ts";
import { migrationWelcome } from "../../server/migrations/email.tsx";
import { render } from "@react-email/render";
import { testDatabase } from "../helpers/db.ts";
import { codeIn, latestEmail, linkIn } from "../helpers/mailbox.ts";
import {
  CODE_REMOVED,
  CONTENT_NOT_KEPT,
  isSecurityTemplate,
  keptCopy,
  LINK_REMOVED,
} from "../../server/mail/redact.ts";
import { testOutbox } from "../../server/mail/outbox.ts";

const db = await testDatabase();

const TOKEN = "Qk3v_9xZ-long-random-token-of-the-kind-randomToken-makes";
const LINK = `http://localhost:8000/verify?token=${TOKEN}`;
const CODE = "048213";
const SUPPORT = "help@portal.example";
const RESET = `http://localhost:8000/forgot?token=${TOKEN}&username=ada%40example.com`;

const config = (overrides: Partial<Config> = {}) => ({
  smtpUrl: undefined,
  mailFrom: "Portal <no-reply@portal.test>",
  supportEmail: SUPPORT,
  appEnv: "test" as const,
  ...overrides,
});

/** Everything printed to the server log (console.error is already watched by the setup file). */
function spyLog() {
  const lines: string[] = [];
  for (const method of ["log", "info", "warn", "debug"] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
  }
  return lines;
}

/** A real SMTP server on a free port of 127.0.0.1 that keeps what it receives. */
async function startSmtp(options: SMTPServerOptions = {}) {
  const received: { from: string; to: string[]; raw: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((a) => a.address),
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
    ...options,
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
let smtp: Awaited<ReturnType<typeof startSmtp>> | undefined;
afterEach(async () => {
  await smtp?.close();
  smtp = undefined;
});

/** The MIME source with quoted-printable soft line breaks and escapes undone (ASCII content). */
const decodeQuotedPrintable = (raw: string) =>
  raw.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

const renderBoth = async ({ element }: RenderedEmail) => ({
  html: await render(element),
  text: await render(element, { plainText: true }),
});
const linesOf = (text: string) => text.split("\n").map((line) => line.trim());

describe("templates", () => {
  const all: [string, RenderedEmail][] = [
    ["email-validation", emailValidation({ name: "Ada", link: LINK, code: CODE })],
    ["second-factor-code", secondFactorCode({ code: "042917" })],
    ["password-reset", passwordReset({ link: RESET, token: TOKEN })],
    ["password-changed", passwordChanged({ supportEmail: SUPPORT })],
    [
      "account-opened",
      accountOpened({ name: "Ada Lovelace", accountRef: "P1000001", link: "https://portal.example/account" }),
    ],
  ];

  test.each(all)("%s renders an HTML and a text part, branded Portal", async (_name, rendered) => {
    const { html, text } = await renderBoth(rendered);
    expect(rendered.subject).not.toBe("");
    expect(html).toMatch(/^<!DOCTYPE html/);
    expect(html).toContain(`>${rendered.subject}</h1>`);
    expect(html).toContain("Portal");
    expect(text).not.toMatch(/<[a-z][^>]*>/i);
    expect(text.toLowerCase()).toContain(rendered.subject.toLowerCase());
    expect(text).toContain("Portal");
  });

  test.each([
    ...all,
    [
      "registration-attempt",
      registrationAttempt({ signInLink: "http://localhost:8000/", forgotLink: "http://localhost:8000/forgot" }),
    ] as [string, RenderedEmail],
  ])("%s: every address it writes out can be clicked in the HTML", async (_name, rendered) => {
    const { html, text } = await renderBoth(rendered);
    const hrefs = [...html.matchAll(/href="([^"]+)"/g)].map(([, href]) => href.replaceAll("&amp;", "&"));
    for (const [address] of text.matchAll(/https?:\/\/\S+/g)) expect(hrefs).toContain(address);
  });

  test("the validation email has the link verbatim on its own line, first, and the 6-digit code to type", async () => {
    const { html, text } = await renderBoth(emailValidation({ link: LINK, code: CODE }));
    expect(linesOf(text)).toContain(LINK);
    expect(linkIn(text)).toBe(LINK);
    expect(text.split(LINK)).toHaveLength(2); // once: the button is left out of the text part
    expect(linesOf(text)).toContain(CODE);
    expect(text).toContain("Hello,");
    expect(html).toContain(`href="${LINK}"`);
  });

  test("the sign-in code email shows the code, its 10 minutes, and what to do if it wasn't you", async () => {
    const { text } = await renderBoth(secondFactorCode({ code: "042917" }));
    expect(codeIn(text)).toBe("042917");
    expect(text).toContain("10 minutes");
    // What to do, not only that it should be done: where the password is changed from.
    expect(text.replace(/\s+/g, " ")).toMatch(
      /wasn't you, someone knows your password: change it now\. On Portal's sign-in page, choose "Forgotten password\?"/,
    );
  });

  test("the reset email carries its link on its own line, valid one hour, single use", async () => {
    const { html, text } = await renderBoth(passwordReset({ link: RESET, token: TOKEN }));
    expect(linesOf(text)).toContain(RESET);
    expect(linkIn(text)).toBe(RESET);
    expect(text).toContain("one hour");
    expect(text).toContain("works once");
    expect(html).toContain(`href="${RESET.replace("&", "&amp;")}"`);
  });

  test("the password-changed notice says every session ended", async () => {
    const { text } = await renderBoth(passwordChanged({ supportEmail: SUPPORT }));
    expect(text).toContain("every session was signed out");
  });

  test("the account-opened email gives the account_ref to quote when funding", async () => {
    const { text } = await renderBoth(
      accountOpened({ name: "Ada Lovelace", accountRef: "P1000001", link: "https://portal.example/account" }),
    );
    expect(text).toContain("Hello Ada Lovelace,");
    expect(text).toMatch(/quote P1000001 as the payment reference/);
  });

  test("an invitation's footer says who invited them to what, not 'your Portal account' they may not have", async () => {
    const expiresAt = new Date("2026-12-05T10:30:00Z");
    const footers: [RenderedEmail, string][] = [
      [
        accountInvitation({
          invitedBy: "Olga Owner",
          accountName: "Acme Trading Ltd",
          role: "payer",
          link: LINK,
          expiresAt,
        }),
        "You receive this email because Olga Owner invited you to Acme Trading Ltd on Portal.",
      ],
      [
        accountInvitationWithdrawn({ accountName: "Acme Trading Ltd", withdrawnBy: "Olga Owner" }),
        "You receive this email because you were invited to Acme Trading Ltd on Portal.",
      ],
      [
        administratorInvitation({ invitedBy: "Ada Admin", link: LINK, expiresAt }),
        "You receive this email because Ada Admin invited you to be an administrator of Portal.",
      ],
      [
        migrationWelcome({ link: LINK, days: 14 }),
        "You receive this email because your account with us moved to the new Portal.",
      ],
    ];
    for (const [rendered, footer] of footers) {
      const { html, text } = await renderBoth(rendered);
      expect(text.replace(/\s+/g, " ")).toContain(footer);
      expect(html).not.toContain("because of your Portal account");
    }
    // Everyone else receives it because of their account.
    const { text } = await renderBoth(
      accountOpened({ name: "Ada Lovelace", accountRef: "P1000001", link: "https://portal.example/account" }),
    );
    expect(text.replace(/\s+/g, " ")).toContain("You receive this email because of your Portal account.");
  });

  test("names are escaped in the HTML part", async () => {
    const { html } = await renderBoth(
      emailValidation({ name: "<img src=x onerror=alert(1)>", link: LINK, code: CODE }),
    );
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;img src=x");
  });
});

describe("without SMTP_URL", () => {
  test("the message is kept with status stored, its link and code taken out, and in development its link is printed once", async () => {
    const log = spyLog();
    const [user] = await db.insert(users).values({ username: "dev@example.com" }).returning();
    const mailer = createMailer({ db, config: config({ appEnv: "development" }) });
    const result = await mailer.send({
      to: "dev@example.com",
      userId: user.id,
      template: "email-validation",
      rendered: emailValidation({ link: LINK, code: CODE }),
    });

    expect(result.status).toBe("stored");
    const row = await db.select().from(emails).where(eq(emails.id, result.id)).get();
    expect(row).toMatchObject({
      userId: user.id,
      to: "dev@example.com",
      subject: "Confirm your email address",
      template: "email-validation",
      status: "stored",
      error: null,
    });
    // A security email is kept without what signs in (decision 057): the console shows a note instead.
    expect(row!.html).not.toContain(TOKEN);
    expect(row!.text).not.toContain(TOKEN);
    expect(row!.text).not.toContain(CODE);
    expect(row!.html).not.toContain(CODE);
    expect(row!.text).toContain(LINK_REMOVED);
    expect(row!.text).toContain(CODE_REMOVED);
    expect(log).toHaveLength(1);
    expect(log[0]).toContain("dev@example.com");
    expect(log[0]).toContain("Confirm your email address");
    expect(log[0]).toContain(LINK);
  });

  test("in development the sign-in code is printed; a caller's logHint wins over the template's", async () => {
    const log = spyLog();
    const mailer = createMailer({ db, config: config({ appEnv: "development" }) });
    await mailer.send({
      to: "code@example.com",
      template: "second-factor-code",
      rendered: secondFactorCode({ code: "734021" }),
    });
    await mailer.send({
      to: "code@example.com",
      template: "password-changed",
      rendered: passwordChanged({ supportEmail: SUPPORT }),
      logHint: "see /console",
    });
    expect(log).toHaveLength(2);
    expect(log[0]).toContain("734021");
    expect(log[1]).toContain("see /console");
  });

  test.each(["production", "test"] as const)(
    "in %s the message is kept but no link or code is printed",
    async (appEnv) => {
      const log = spyLog();
      const mailer = createMailer({ db, config: config({ appEnv }) });
      const a = await mailer.send({
        to: `${appEnv}@example.com`,
        template: "password-reset",
        rendered: passwordReset({ link: RESET, token: TOKEN }),
      });
      const b = await mailer.send({
        to: `${appEnv}@example.com`,
        template: "second-factor-code",
        rendered: secondFactorCode({ code: "555123" }),
      });
      expect([a.status, b.status]).toEqual(["stored", "stored"]);
      expect(log.join("\n")).not.toContain(TOKEN);
      expect(log.join("\n")).not.toContain("555123");
      // Production says once, at start, that nobody receives mail; test stays quiet.
      expect(log).toHaveLength(appEnv === "production" ? 1 : 0);
      expect((await latestEmail(db, `${appEnv}@example.com`))?.id).toBe(b.id);
    },
  );
});

describe("with SMTP_URL (a real SMTP server)", () => {
  test("the message is sent to the right address with its subject and link, and kept as sent", async () => {
    smtp = await startSmtp();
    const log = spyLog();
    const mailer = createMailer({ db, config: config({ smtpUrl: smtp.url, appEnv: "development" }) });
    const result = await mailer.send({
      to: "ada@example.com",
      template: "email-validation",
      rendered: emailValidation({ name: "Ada", link: LINK, code: CODE }),
    });

    expect(result.status).toBe("sent");
    expect(smtp.received).toHaveLength(1);
    const [message] = smtp.received;
    expect(message.from).toBe("no-reply@portal.test");
    expect(message.to).toEqual(["ada@example.com"]);
    expect(message.raw).toMatch(/^Subject: Confirm your email address\r?$/m);
    expect(message.raw).toMatch(/^To: ada@example.com\r?$/m);
    expect(message.raw).toMatch(/^Content-Type: text\/plain/m);
    expect(message.raw).toMatch(/^Content-Type: text\/html/m);
    expect(decodeQuotedPrintable(message.raw)).toContain(LINK);

    const row = await db.select().from(emails).where(eq(emails.id, result.id)).get();
    expect(row).toMatchObject({ to: "ada@example.com", status: "sent", error: null, template: "email-validation" });
    // A message that really went out is not printed, even in development.
    expect(log).toEqual([]);
  });

  test("a reply goes to support, not to the no-reply address it came from", async () => {
    // "Write to us at help@..." is in the email: the customer's Reply must reach the same people.
    smtp = await startSmtp();
    const mailer = createMailer({ db, config: config({ smtpUrl: smtp.url }) });
    await mailer.send({
      to: "ada@example.com",
      template: "password-changed",
      rendered: passwordChanged({ how: "change", supportEmail: SUPPORT }),
    });
    const [message] = smtp.received;
    expect(message.from).toBe("no-reply@portal.test");
    expect(message.raw).toMatch(new RegExp(`^Reply-To: ${SUPPORT}\\r?$`, "m"));
  });

  test("a refused recipient gives status failed, keeps the row with the error, and does not throw", async () => {
    smtp = await startSmtp({
      onRcptTo(_address, _session, callback) {
        const refusal = Object.assign(new Error("Mailbox unavailable"), { responseCode: 550 });
        callback(refusal);
      },
    });
    const log = spyLog();
    const mailer = createMailer({ db, config: config({ smtpUrl: smtp.url }) });
    const result = await mailer.send({
      to: "nobody@example.com",
      template: "second-factor-code",
      rendered: secondFactorCode({ code: "123456" }),
    });

    expect(result.status).toBe("failed");
    expect(smtp.received).toHaveLength(0);
    const row = await latestEmail(db, "nobody@example.com");
    expect(row).toMatchObject({ id: result.id, status: "failed", template: "second-factor-code" });
    expect(row!.error).toContain("Mailbox unavailable");
    expect(row!.text).not.toContain("123456");
    expect(row!.text).toContain(CODE_REMOVED);
    // One warning for operators, naming the row, without the address or the code.
    expect(log).toHaveLength(1);
    expect(log[0]).toContain(`email ${result.id}`);
    expect(log[0]).not.toContain("nobody@example.com");
    expect(log[0]).not.toContain("123456");
  });

  test("an SMTP server that is down gives status failed too", async () => {
    smtp = await startSmtp();
    const url = smtp.url;
    await smtp.close();
    smtp = undefined;
    const log = spyLog();
    const mailer = createMailer({ db, config: config({ smtpUrl: url }) });
    const result = await mailer.send({
      to: "down@example.com",
      template: "password-changed",
      rendered: passwordChanged({ supportEmail: SUPPORT }),
    });
    expect(result.status).toBe("failed");
    expect((await latestEmail(db, "down@example.com"))?.error).toMatch(/ECONNREFUSED|refused/i);
    expect(log).toHaveLength(1);
  });
});

describe("mailbox helpers", () => {
  test("latestEmail finds the newest message for an address, whatever its case, as it was sent", async () => {
    const mailer = createMailer({ db, config: config(), outbox: testOutbox(db) });
    await mailer.send({
      to: "reader@example.com",
      template: "second-factor-code",
      rendered: secondFactorCode({ code: "111111" }),
    });
    await mailer.send({
      to: "other@example.com",
      template: "second-factor-code",
      rendered: secondFactorCode({ code: "333333" }),
    });
    await mailer.send({
      to: "reader@example.com",
      template: "second-factor-code",
      rendered: secondFactorCode({ code: "222222" }),
    });
    expect(codeIn((await latestEmail(db, "Reader@Example.com"))!.text)).toBe("222222");
    expect(await latestEmail(db, "nobody-at-all@example.com")).toBeUndefined();
  });

  test("linkIn and codeIn take the first link and the first standalone 6-digit code", () => {
    expect(linkIn("Open\n\nhttps://a.test/x?y=1&z=2\n\nthen http://b.test")).toBe("https://a.test/x?y=1&z=2");
    expect(linkIn("no link here")).toBeUndefined();
    expect(codeIn("ref P1000001, code 1234567, then 004512 and 999999")).toBe("004512");
    expect(codeIn("12345")).toBeUndefined();
  });
});

describe("security emails (decision 057)", () => {
  const SECURITY: [string, RenderedEmail, string[]][] = [
    ["password-reset", passwordReset({ link: RESET }), [TOKEN]],
    ["second-factor-code", secondFactorCode({ code: CODE }), [CODE]],
    ["email-validation", emailValidation({ link: LINK, code: CODE }), [TOKEN, CODE]],
    ["sign-in-paused", signInPaused({ guessed: "password", link: RESET, supportEmail: SUPPORT }), [TOKEN]],
    [
      "account-invitation",
      accountInvitation({
        invitedBy: "Ada Lovelace",
        accountName: "Lovelace Ltd",
        role: "viewer",
        link: `http://localhost:8000/invite?token=${TOKEN}`,
        expiresAt: new Date("2026-12-01T00:00:00Z"),
      }),
      [TOKEN],
    ],
    [
      "administrator-invitation",
      administratorInvitation({ invitedBy: "Olive Ops", link: RESET, expiresAt: new Date("2026-12-01T00:00:00Z") }),
      [TOKEN],
    ],
    ["migration-welcome", migrationWelcome({ link: RESET, days: 14 }), [TOKEN]],
  ];

  test.each(SECURITY)(
    "%s reaches the customer whole and is kept without its link or code",
    async (template, rendered, secrets) => {
      const sent: { html: string; text: string }[] = [];
      const transport = { sendMail: (mail: { html: string; text: string }) => Promise.resolve(sent.push(mail)) };
      const mailer = createMailer({ db, config: config({ smtpUrl: undefined }), transport });
      const result = await mailer.send({ to: "secure@example.com", template, rendered });
      expect(isSecurityTemplate(template)).toBe(true);
      const row = await db.select().from(emails).where(eq(emails.id, result.id)).get();
      for (const secret of secrets) {
        expect(sent[0].text).toContain(secret);
        expect(row!.html).not.toContain(secret);
        expect(row!.text).not.toContain(secret);
      }
      expect(row!.text).toMatch(/\[(link|code) removed/);
    },
  );

  test("an email that signs nobody in is kept whole", async () => {
    const mailer = createMailer({ db, config: config() });
    const result = await mailer.send({
      to: "notice@example.com",
      template: "password-changed",
      rendered: passwordChanged({ supportEmail: SUPPORT }),
    });
    const row = await db.select().from(emails).where(eq(emails.id, result.id)).get();
    expect(row!.text).toContain(SUPPORT);
    expect(isSecurityTemplate("password-changed")).toBe(false);
  });

  test("a security template that names no secret keeps no body at all (fails closed)", () => {
    const kept = keptCopy("password-reset", { html: `<a href="${RESET}">x</a>`, text: RESET });
    expect(kept.text).toBe(CONTENT_NOT_KEPT);
    expect(kept.html).not.toContain(TOKEN);
  });
});
