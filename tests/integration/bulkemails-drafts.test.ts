import { and, eq } from "drizzle-orm";
import { describe, expect } from "vitest";
import { bulkEmails } from "../../db/schema-bulkemails.ts";
import { auditLog } from "../../db/schema.ts";
import type { Admin } from "../helpers/client.ts";
import { expectStatus } from "../helpers/client.ts";
import { test } from "../helpers/fixtures.ts";

/**
 * A bulk email draft can be corrected and deleted (decision 050, amended): a typo is fixed before
 * the send, a draft written by mistake is removed from the list; once sent, neither is possible
 * and nothing changes.
 */

async function draft(admin: Admin, subject = "Nwes for {{first_name}}") {
  const res = await admin.client.post("console/bulkemails", {
    subject,
    body: "Hello {{name}},\n\nOur rates got better.",
    segment: { type: "Personal" },
  });
  expectStatus(res, 201);
  return res.json.body as { id: number };
}

async function bulkEmail(admin: Admin, id: number) {
  const res = await admin.client.get(`console/bulkemails/${id}`);
  expectStatus(res, 200);
  return res.json.body;
}

const corrected = {
  subject: "News for {{first_name}}",
  body: "Hello {{name}},\n\nOur rates got better still.",
  segment: { type: "Personal", country: "GB" },
};

describe("a bulk email draft", () => {
  test("is corrected, and its preview and audit entry show the new subject", async ({ app, admin, customer }) => {
    const { id } = await draft(admin);
    const res = await admin.client.put(`console/bulkemails/${id}`, corrected);
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({
      id,
      status: "draft",
      subject: corrected.subject,
      body: corrected.body,
      segment: corrected.segment,
      segment_text: "Personal customers in United Kingdom",
    });
    expect(await bulkEmail(admin, id)).toMatchObject({ subject: corrected.subject, body: corrected.body });

    const preview = await admin.client.get(`console/bulkemails/${id}/preview?user_id=${customer.id}`);
    expectStatus(preview, 200);
    expect(preview.json.body.subject).toMatch(/^News for /);
    expect(preview.json.body.text).toContain("better still");

    const entries = await app.db.select().from(auditLog)
      .where(and(eq(auditLog.action, "bulk-email.update"), eq(auditLog.actorId, admin.id)));
    const entry = entries.find((e) => (e.after as { bulk_email: number }).bulk_email === id);
    expect(entry).toMatchObject({
      before: { bulk_email: id, subject: "Nwes for {{first_name}}", segment: { type: "Personal" } },
      after: { bulk_email: id, subject: corrected.subject, segment: corrected.segment },
    });
  });

  test("refuses bad input with 422 naming the field, and stays as it was", async ({ admin }) => {
    const { id } = await draft(admin);
    const before = await bulkEmail(admin, id);

    const wrongField = await admin.client.put(`console/bulkemails/${id}`, { ...corrected, body: "Hi {{frist_name}}" });
    expectStatus(wrongField, 422);
    expect(wrongField.json.fields.body).toContain("{{frist_name}}");

    const noPartner = await admin.client.put(`console/bulkemails/${id}`, {
      ...corrected,
      segment: { partner_id: 999_999 },
    });
    expectStatus(noPartner, 422);
    expect(noPartner.json.fields).toEqual({ "segment.partner_id": "There is no such partner." });

    const noSubject = await admin.client.put(`console/bulkemails/${id}`, { ...corrected, subject: "" });
    expectStatus(noSubject, 422);
    expect(Object.keys(noSubject.json.fields)).toEqual(["subject"]);

    expect(await bulkEmail(admin, id)).toEqual(before);
  });

  test("is deleted: gone from the list and its page, audited", async ({ app, admin }) => {
    const { id } = await draft(admin, "Written by mistake");
    const gone = await admin.client.delete(`console/bulkemails/${id}`);
    expectStatus(gone, 200);
    expect(gone.json.body).toEqual({ deleted: true });

    const list = await admin.client.get("console/bulkemails?per_page=100");
    expectStatus(list, 200);
    expect(list.json.body.items.map((e: { id: number }) => e.id)).not.toContain(id);
    expectStatus(await admin.client.get(`console/bulkemails/${id}`), 404);
    expectStatus(await admin.client.delete(`console/bulkemails/${id}`), 404);
    expectStatus(await admin.client.put(`console/bulkemails/${id}`, corrected), 404);

    const entries = await app.db.select().from(auditLog)
      .where(and(eq(auditLog.action, "bulk-email.delete"), eq(auditLog.actorId, admin.id)));
    expect(entries.map((e) => e.before)).toContainEqual({
      bulk_email: id,
      subject: "Written by mistake",
      segment: { type: "Personal" },
    });
  });

  test("once sent, can be neither corrected nor deleted, and nothing changes", async ({ app, admin, customer }) => {
    expect(customer.id).toBeGreaterThan(0); // the segment holds someone to send it to
    const { id } = await draft(admin);
    expectStatus(await admin.client.post(`console/bulkemails/${id}/send`, {}), 202);
    const [row] = await app.db.select().from(bulkEmails).where(eq(bulkEmails.id, id));

    const edit = await admin.client.put(`console/bulkemails/${id}`, corrected);
    expectStatus(edit, 409);
    expect(edit.json.error).toMatch(/^This bulk email was sent already: /);
    const remove = await admin.client.delete(`console/bulkemails/${id}`);
    expectStatus(remove, 409);
    expect(remove.json.error).toMatch(/^This bulk email was sent already: /);

    expect(await app.db.select().from(bulkEmails).where(eq(bulkEmails.id, id))).toEqual([row]);
    const audited = await app.db.select().from(auditLog).where(eq(auditLog.actorId, admin.id));
    expect(
      audited.filter((e) =>
        (e.action === "bulk-email.update" || e.action === "bulk-email.delete") &&
        ((e.before as { bulk_email?: number } | null)?.bulk_email === id)
      ),
    ).toEqual([]);
  });

  test("is not there for a customer: 404, and it stays", async ({ admin, customer }) => {
    const { id } = await draft(admin, "Only for administrators");
    expectStatus(await customer.client.put(`console/bulkemails/${id}`, corrected), 404);
    expectStatus(await customer.client.delete(`console/bulkemails/${id}`), 404);
    expect(await bulkEmail(admin, id)).toMatchObject({ subject: "Only for administrators", status: "draft" });
  });
});
