import { type Context, Hono } from "hono";
import * as calls from "../../lib/contracts/bulkemails.ts";
import {
  bulkEmailWithRecipients,
  createBulkEmail,
  deleteBulkEmail,
  listBulkEmails,
  previewBulkEmail,
  sendBulkEmail,
  sendToInDoubt,
  updateBulkEmail,
} from "../../server/bulkemails/service.ts";
import { unsubscribe } from "../../server/bulkemails/unsubscribe.ts";
import type { AppEnv } from "../../server/env.ts";
import { reply, route } from "../../server/http/route.ts";

/** The console's bulk emails and the public unsubscribe (issue 11 item 5, decision 050). */

export const bulkEmailCalls = new Hono<AppEnv>();

const now = (c: Context<AppEnv>) => new Date(c.get("services").now());
/** The administrator making the call: the guards let nobody else through. */
const administrator = (c: Context<AppEnv>) => c.get("user")!.id;

route(bulkEmailCalls, calls.createBulkEmail, async (c, { body }, answer) => {
  const email = await createBulkEmail(
    c.get("db"),
    administrator(c),
    body,
    now(c),
    (tx, made) => answer.storeWith(tx, made),
  );
  return reply(email, { status: 201 });
});

route(bulkEmailCalls, calls.listBulkEmails, (c, { query }) => listBulkEmails(c.get("db"), query));

route(
  bulkEmailCalls,
  calls.getBulkEmail,
  (c, { params, query }) => bulkEmailWithRecipients(c.get("db"), params.id, query),
);

route(
  bulkEmailCalls,
  calls.previewBulkEmail,
  (c, { params, query }) => previewBulkEmail(c.get("db"), c.get("config").publicUrl, params.id, query.user_id),
);

route(bulkEmailCalls, calls.updateBulkEmail, (c, { params, body }, answer) =>
  updateBulkEmail(
    c.get("db"),
    administrator(c),
    params.id,
    body,
    now(c),
    (tx, changed) => answer.storeWith(tx, changed),
  ));

route(bulkEmailCalls, calls.deleteBulkEmail, (c, { params }, answer) =>
  deleteBulkEmail(
    c.get("db"),
    administrator(c),
    params.id,
    now(c),
    (tx, gone) => answer.storeWith(tx, gone),
  ));

route(bulkEmailCalls, calls.sendBulkEmail, async (c, { params }, answer) => {
  const email = await sendBulkEmail(
    c.get("db"),
    administrator(c),
    params.id,
    c.get("config").bulkEmailRate ?? 50,
    now(c),
    (tx, sent) => answer.storeWith(tx, sent),
  );
  return reply(email, { status: 202 });
});

route(bulkEmailCalls, calls.sendToInDoubt, async (c, { params }, answer) => {
  const email = await sendToInDoubt(
    c.get("db"),
    administrator(c),
    params.id,
    now(c),
    (tx, sent) => answer.storeWith(tx, sent),
  );
  return reply(email, { status: 202 });
});

route(
  bulkEmailCalls,
  calls.unsubscribe,
  (c, { body }) => unsubscribe(c.get("db"), c.get("services").secretBox, body.token, now(c)),
);
