/** A notification (toast) as the queue shows it; the server can queue one across a redirect. */
export interface Notification {
  id: string;
  title: string;
  description?: string;
  color?: "info" | "success" | "warning" | "error";
}

/** The cookie that carries server-queued notifications to the next page. */
export const FLASH_COOKIE = "flash";
