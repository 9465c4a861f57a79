import { describe, expect, test } from "vitest";
import { MERGE_FIELDS, type MergeValues, personalise, renderBulkEmail } from "../../server/bulkemails/template.tsx";

/**
 * A bulk email's merge fields (decision 050) are filled for each recipient in both of the mail's
 * parts: a customer whose mail program shows the plain text reads their name, not "{{FIRST_NAME}}".
 */

const values: MergeValues = {
  name: "Ada Lovelace",
  first_name: "Ada",
  email: "ada@example.test",
  account_ref: "ACC-42",
  unsubscribe_url: "https://portal.test/unsubscribe?token=t1",
};

describe("a bulk email's merge fields", () => {
  test("are filled in the heading of the HTML and of the plain text", async () => {
    const mail = personalise(await renderBulkEmail({ subject: "News for {{first_name}}", body: "Hello." }), values);
    expect(mail.subject).toBe("News for Ada");
    expect(mail.html).toContain("News for Ada");
    expect(mail.text).toContain("News for Ada");
    expect(mail.text).not.toMatch(/\{\{/);
  });

  test("the composer offers are all filled in the subject, the HTML and the plain text", async () => {
    const all = Object.keys(MERGE_FIELDS).map((name) => `{{${name}}}`).join(" / ");
    const mail = personalise(await renderBulkEmail({ subject: `Hi ${all}`, body: `Dear ${all},\n\nBye.` }), values);
    const filled = "Ada Lovelace / Ada / ada@example.test / ACC-42";
    expect(mail.subject).toBe(`Hi ${filled}`);
    for (const part of [mail.html, mail.text]) {
      expect(part).not.toMatch(/\{\{/);
      expect(part).toContain(`Dear ${filled},`);
      expect(part).toContain(`Hi ${filled}`);
      expect(part).toContain(values.unsubscribe_url);
    }
  });
});

describe("a bulk email's foot", () => {
  test("says once why the person gets it, and how to get no more", async () => {
    const mail = personalise(await renderBulkEmail({ subject: "News", body: "Hello." }), values);
    const text = mail.text.replace(/\s+/g, " ");
    expect(text.match(/You receive/g)).toHaveLength(1);
    expect(text).toContain("You receive this email because you are a Portal customer who receives our news.");
    expect(text).toContain("To receive no more of our news, unsubscribe");
  });
});
