/** A notification (toast) as the queue shows it; the server can queue one across a redirect. */
export interface Notification {
  id: string;
  title: string;
  description?: string;
  color?: "info" | "success" | "warning" | "error";
  /**
   * Where it leads, a page of this site ("/account/pendingpayments/12"): an in-app notification
   * about a payment links to that payment, so the toast is not the end of the road.
   */
  link?: { href: string; text: string };
}

/** The cookie that carries server-queued notifications to the next page. */
export const FLASH_COOKIE = "flash";
