import { afterAll, describe, expect, test } from "vitest";
import { createMailer } from "../../server/mail/index.ts";
import { testDatabase } from "../helpers/db.ts";
import { readable, startSmtp } from "../helpers/smtp.ts";

/**
 * The mailer's hand-over of a wave (decision 050, amended 2026-11-28), against a real SMTP server:
 * a mail held at its final dot has reached the server whole but is received by nobody until it is
 * delivered; one aborted there is discarded by the server; one refused before its dot says why.
 */

const smtp = await startSmtp(undefined, (address) => address.startsWith("nobody"));
afterAll(() => smtp.close());
const mailer = createMailer({
  db: await testDatabase(),
  config: { smtpUrl: smtp.url, mailFrom: "news@portal.test", supportEmail: "help@portal.test", appEnv: "test" },
});
const mail = (to: string) => ({
  to,
  subject: `News for ${to}`,
  html: `<p>Hello ${to}</p>`,
  text: `Hello ${to}\n.\nA line with a dot alone, which SMTP must not take for the end.`,
  headers: { "List-Unsubscribe": "<https://portal.test/unsubscribe?token=t>" },
});

describe("a wave handed over up to its final dots", () => {
  test("is received by nobody until delivered; an aborted mail is never received, a delivered one is, whole", async () => {
    const held = await mailer.handOver([mail("ada@held.test"), mail("bob@held.test"), mail("cy@held.test")]);
    expect(held.map((h) => h.early)).toEqual([null, null, null]);
    // The server has their DATA, and no mail.
    expect(smtp.begun.flatMap((m) => m.to).filter((to) => to.endsWith("@held.test")).sort())
      .toEqual(["ada@held.test", "bob@held.test", "cy@held.test"]);
    expect(smtp.received.filter((m) => m.to[0].endsWith("@held.test"))).toEqual([]);

    const [ada, bob] = await Promise.all([held[0].deliver(), held[1].deliver(), held[2].abort()]);
    expect([ada, bob]).toEqual([{ status: "sent", error: null }, { status: "sent", error: null }]);
    const got = smtp.received.filter((m) => m.to[0].endsWith("@held.test"));
    expect(got.map((m) => m.to[0]).sort()).toEqual(["ada@held.test", "bob@held.test"]);
    // Whole, as composed: its subject, its headers, its text with the lone dot kept.
    const adaMail = readable(got.find((m) => m.to[0] === "ada@held.test")!);
    expect(adaMail).toContain("Subject: News for ada@held.test");
    expect(adaMail).toContain("List-Unsubscribe: <https://portal.test/unsubscribe?token=t>");
    expect(adaMail.replace(/\r\n/g, "\n")).toContain("Hello ada@held.test\n.\nA line with a dot alone");

    // The pool goes on after the aborted mail's connection was closed.
    const [next] = await mailer.handOver([mail("dee@held.test")]);
    expect(await next.deliver()).toEqual({ status: "sent", error: null });
    expect(smtp.perRecipient().get("cy@held.test")).toBeUndefined();
    expect(smtp.perRecipient().get("dee@held.test")).toBe(1);
  });

  test("answers at once for a mail the server refuses before its dot, and holds the others", async () => {
    const [refused, held] = await mailer.handOver([mail("nobody@refused.test"), mail("eve@refused.test")]);
    expect(refused.early).toMatchObject({ status: "failed", error: expect.stringContaining("No such mailbox here") });
    expect(held.early).toBeNull();
    expect(await refused.deliver()).toEqual(refused.early);
    expect(await held.deliver()).toEqual({ status: "sent", error: null });
    expect(smtp.perRecipient().get("nobody@refused.test")).toBeUndefined();
    expect(smtp.perRecipient().get("eve@refused.test")).toBe(1);
  });
});
