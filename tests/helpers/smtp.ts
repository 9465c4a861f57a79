import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

/** One mail as a local SMTP server received it. */
export interface ReceivedMail {
  to: string[];
  raw: string;
  /** When it arrived (performance.now()). */
  at: number;
}

/**
 * A real SMTP server (smtp-server) on a free local port, keeping what it receives: the bulk email
 * tests and benchmark send to it through nodemailer as to any mail server. `onMail` sees each mail
 * as it arrives (a test kills a runner after some); when it answers a promise, the server keeps the
 * mail but answers the sender only once it settles (a mail accepted whose answer never arrives).
 * A mail whose connection closes before the final dot of its DATA is not received (smtp-server
 * discards it, as every mail server does); `begun` lists the mails whose DATA began, received or not.
 */
export async function startSmtp(
  onMail: (mail: ReceivedMail, count: number) => void | Promise<void> = () => {},
  /** Addresses the server refuses (550), as a real one refuses a mailbox that does not exist. */
  refuses: (address: string) => boolean = () => false,
  /**
   * Sees each RCPT TO as it arrives; when it answers a promise, the server answers the sender only
   * once it settles (a mail held before its DATA).
   */
  onRcpt: (address: string, count: number) => void | Promise<void> = () => {},
) {
  const received: ReceivedMail[] = [];
  const begun: { to: string[] }[] = [];
  let rcpts = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    // A pool of connections, each many mails: no limit of the server's own stands in the way.
    maxClients: 50,
    // The sender's pool keeps its connections open between mails: closing does not wait for them.
    closeTimeout: 100,
    onRcptTo(address, _session, callback) {
      if (refuses(address.address)) {
        return callback(Object.assign(new Error("No such mailbox here"), { responseCode: 550 }));
      }
      const held = onRcpt(address.address, ++rcpts);
      if (held) held.then(() => callback(), () => callback());
      else callback();
    },
    onData(stream, session, callback) {
      begun.push({ to: session.envelope.rcptTo.map((a) => a.address) });
      const chunks: Uint8Array[] = [];
      stream.on("data", (chunk: Uint8Array) => chunks.push(chunk));
      stream.on("end", () => {
        const mail = {
          to: session.envelope.rcptTo.map((a) => a.address),
          raw: new TextDecoder().decode(concat(chunks)),
          at: performance.now(),
        };
        received.push(mail);
        const held = onMail(mail, received.length);
        if (held) held.then(() => callback(), () => callback());
        else callback();
      });
    },
  });
  // A sender killed in the middle of a mail resets its connections (ECONNRESET): the server drops
  // that session and its unfinished mail and goes on, as a mail server does; anything else is kept.
  const errors: Error[] = [];
  server.on("error", (error: Error & { code?: string }) => {
    if (error.code !== "ECONNRESET" && error.code !== "EPIPE") errors.push(error);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    begun,
    /** The server's errors other than a sender's reset connection. */
    errors,
    /** How many mails each address received. */
    perRecipient(): Map<string, number> {
      const counts = new Map<string, number>();
      for (const mail of received) for (const to of mail.to) counts.set(to, (counts.get(to) ?? 0) + 1);
      return counts;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/**
 * A mail's source as a person would read it: its headers unfolded, and its base64 and
 * quoted-printable parts decoded (the Subject and List-Unsubscribe headers, the text part).
 */
export function readable(mail: ReceivedMail): string {
  const decodeBase64 = (block: string) =>
    new TextDecoder().decode(Uint8Array.from(atob(block.replace(/\s+/g, "")), (c) => c.charCodeAt(0)));
  return mail.raw
    .replace(
      /(Content-Transfer-Encoding: base64\r?\n(?:[^\r\n]+\r?\n)*\r?\n)([A-Za-z0-9+/=\r\n]+)/g,
      (_all, head: string, block: string) => head + decodeBase64(block) + "\r\n",
    )
    .replace(/=\r?\n/g, "").replace(/=3D/g, "=").replace(/\r?\n[ \t]+/g, " ");
}
