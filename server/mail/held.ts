import { Transform, type TransformCallback } from "node:stream";
import type { Transporter } from "nodemailer";

/**
 * A mail handed to nodemailer whose final dot is held back (decision 050, amended 2026-11-28).
 * nodemailer writes the final `<CRLF>.<CRLF>` of DATA only when the message stream ends, and an
 * SMTP server accepts a message only when it reads that dot: a connection closed before it
 * (`abort()`, or the process killed) makes the server discard the message. The message stream of a
 * held mail ends in a gate (`holdingPlugin`) that passes every byte on but withholds the end until
 * `release()`: the mail is on the wire up to its last byte and yet delivered to nobody.
 *
 * `atTheDot` settles once it is there: the gate has passed on the whole message (its end arrived)
 * and the message flows into the connection, which nodemailer lets it do only after the server's
 * 354 to DATA (smtp-connection's `send` pipes the message in `_actionDATA`'s callback); until the
 * 354 the message only fills nodemailer's own buffers. Both are needed: the first alone is true
 * before MAIL FROM for a mail smaller than those buffers.
 */
export class HeldMessage {
  #gate: Gate | null = null;
  #released = false;
  #aborted: Error | null = null;
  readonly #atTheDot = Promise.withResolvers<void>();

  get atTheDot(): Promise<void> {
    return this.#atTheDot.promise;
  }

  /**
   * The gate for one reading of the message. nodemailer's pool reads it again on another connection
   * when one broke before the message (an idle one the server closed): never once at the dot.
   */
  gate(): Gate {
    this.#gate = new Gate(() => this.#atTheDot.resolve(), () => this.#released);
    if (this.#aborted) this.#gate.destroy(this.#aborted);
    return this.#gate;
  }

  /** Ends the message: nodemailer writes the final dot, and the server accepts it. */
  release() {
    this.#released = true;
    this.#gate?.release();
  }

  /** Closes without the dot: nodemailer drops the connection and the server discards the message. */
  abort(reason: string) {
    this.#aborted = new Error(reason);
    this.#gate?.destroy(this.#aborted);
  }
}

/** Passes the message on, and its end only once released. */
class Gate extends Transform {
  #end: TransformCallback | null = null;
  #flowing = false;

  constructor(private readonly atTheDot: () => void, private readonly released: () => boolean) {
    super();
    this.once("resume", () => {
      this.#flowing = true;
      this.#check();
    });
  }

  override _transform(chunk: Uint8Array, _encoding: BufferEncoding, done: TransformCallback) {
    done(null, chunk);
  }

  override _flush(done: TransformCallback) {
    if (this.released()) return done();
    this.#end = done;
    this.#check();
  }

  release() {
    const end = this.#end;
    this.#end = null;
    end?.();
  }

  #check() {
    // A turn later, so that what already flows is passed on first.
    if (this.#end && this.#flowing) setImmediate(() => this.#settle());
  }

  #settle() {
    if (this.destroyed) return;
    // All of it taken by nodemailer's data stream into the socket; a full socket takes a while longer.
    if (this.readableLength === 0) this.atTheDot();
    else setTimeout(() => this.#settle(), 1);
  }
}

/** The key of `sendMail`'s options that carries a HeldMessage to `holdingPlugin`. */
export const HELD = "portalHeldMail";

/**
 * nodemailer's public plugin hook for the "stream" step: a mail sent with a HeldMessage (under HELD)
 * gets a gate at the end of its message stream.
 */
export function holdingPlugin(transport: Transporter) {
  transport.use("stream", (mail, done) => {
    const held = (mail.data as Record<string, unknown>)[HELD];
    if (held instanceof HeldMessage) {
      mail.message.processFunc((input) => {
        const gate = held.gate();
        // A process function reports its input's errors on its output (nodemailer's contract).
        input.once("error", (error) => gate.destroy(error));
        return input.pipe(gate);
      });
    }
    done();
  });
}
