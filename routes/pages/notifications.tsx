import type { Database } from "../../db/client.ts";
import { latestNotifications, linkText } from "../../server/notifications/inbox.ts";

const MOMENT = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });

/** How many the dashboard lists: a glance at what happened lately, not an inbox. */
const RECENT = 5;

/**
 * The dashboard's "Recent notifications": the person's latest five about this account, each with
 * when and a link to what it is about. A toast goes after five seconds and an email may sit unread;
 * this is where one seen too late is found again. Read from the rows the queue and the emails are
 * made of (server/notifications/inbox.ts), with no script: nothing here changes.
 */
export async function recentNotificationsCard(db: Database, userId: number, accountId: number) {
  const recent = await latestNotifications(db, userId, RECENT, accountId);
  return (
    <section aria-labelledby="recent-notifications-heading" className="card">
      <h2 id="recent-notifications-heading" className="mb-4 text-lg font-semibold">Recent notifications</h2>
      {recent.length
        ? (
          <ul className="text-sm">
            {recent.map((n) => (
              <li key={n.id} className="border-t border-neutral-200 py-2 dark:border-neutral-800">
                <p className="font-semibold">{n.title}</p>
                <p className="break-words">{n.body}</p>
                <p className="text-neutral-600 dark:text-neutral-300">
                  {MOMENT.format(new Date(n.created_at))} UTC
                  {n.link
                    ? (
                      <>
                        {" · "}
                        <a className="font-medium text-primary-700 underline dark:text-primary-300" href={n.link}>
                          {linkText(n.kind)}
                        </a>
                      </>
                    )
                    : null}
                </p>
              </li>
            ))}
          </ul>
        )
        : (
          <p className="text-neutral-600 dark:text-neutral-400">
            Nothing yet: you are told here when a payment needs you or moves, and when a rate alert fires.
          </p>
        )}
    </section>
  );
}
