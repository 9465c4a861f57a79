/**
 * A minimal HTTP/1.1 client on one raw keep-alive TCP connection, for any method, headers and body
 * (bench/load.ts has the GET-only twin). fetch() costs a load generator 3 to 4 times more CPU per
 * request (docs/PERFORMANCE.md, "The load generator"); on 2 cores that CPU is taken from the server
 * being measured. Answers with Content-Length or chunked encoding; one request at a time.
 */

const CRLF = [13, 10];
const CRLFCRLF = [13, 10, 13, 10];

function indexOfSeq(buf: Uint8Array, seq: number[], from: number, to: number): number {
  outer: for (let i = from; i <= to - seq.length; i++) {
    for (let j = 0; j < seq.length; j++) if (buf[i + j] !== seq[j]) continue outer;
    return i;
  }
  return -1;
}

export interface Http1Answer {
  status: number;
  body: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const latin1 = new TextDecoder("latin1");

export class Http1Connection {
  private conn: Deno.TcpConn | null = null;
  private buf = new Uint8Array(16 * 1024);
  private readonly host: string;
  private readonly hostname: string;
  private readonly port: number;

  constructor(baseUrl: string) {
    const url = new URL(baseUrl);
    this.host = url.host;
    this.hostname = url.hostname;
    this.port = Number(url.port || 80);
  }

  /** Sends one request and reads the whole answer. `headers` are sent as given (no defaults but Host and Content-Length). */
  async request(
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body?: string,
  ): Promise<Http1Answer> {
    if (!this.conn) {
      this.conn = await Deno.connect({ hostname: this.hostname, port: this.port });
      this.conn.setNoDelay(true);
    }
    const conn = this.conn;
    const payload = body === undefined ? null : encoder.encode(body);
    let head = `${method} ${path} HTTP/1.1\r\nHost: ${this.host}\r\n`;
    for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
    if (payload) head += `Content-Length: ${payload.length}\r\n`;
    head += "\r\n";
    const headBytes = encoder.encode(head);
    let out = headBytes;
    if (payload) {
      out = new Uint8Array(headBytes.length + payload.length);
      out.set(headBytes);
      out.set(payload, headBytes.length);
    }
    for (let written = 0; written < out.length;) written += await conn.write(out.subarray(written));

    let len = 0;
    let headerEnd = -1;
    let status = 0;
    let bodyStart = 0;
    let contentLength = -1;
    let chunked = false;
    let close = false;
    for (;;) {
      if (headerEnd >= 0) {
        const end = chunked
          ? this.chunkedEnd(bodyStart, len)
          : len >= bodyStart + contentLength
          ? bodyStart + contentLength
          : -1;
        if (end >= 0) {
          const text = chunked ? this.dechunk(bodyStart, end) : decoder.decode(this.buf.subarray(bodyStart, end));
          if (close) this.close();
          return { status, body: text };
        }
      }
      if (len === this.buf.length) {
        const bigger = new Uint8Array(this.buf.length * 2);
        bigger.set(this.buf);
        this.buf = bigger;
      }
      const n = await conn.read(this.buf.subarray(len));
      if (n === null) {
        this.close();
        throw new Error("The server closed the connection in the middle of an answer");
      }
      len += n;
      if (headerEnd < 0) {
        headerEnd = indexOfSeq(this.buf, CRLFCRLF, 0, len);
        if (headerEnd < 0) continue;
        const lines = latin1.decode(this.buf.subarray(0, headerEnd)).split("\r\n");
        status = Number(lines[0].slice(9, 12));
        bodyStart = headerEnd + 4;
        for (const line of lines.slice(1)) {
          const colon = line.indexOf(":");
          const name = line.slice(0, colon).trim().toLowerCase();
          const value = line.slice(colon + 1).trim().toLowerCase();
          if (name === "content-length") contentLength = Number(value);
          else if (name === "transfer-encoding" && value.includes("chunked")) chunked = true;
          else if (name === "connection" && value === "close") close = true;
        }
        if (!chunked && contentLength < 0) {
          throw new Error("Answers without Content-Length or chunked encoding are not supported");
        }
      }
    }
  }

  close(): void {
    try {
      this.conn?.close();
    } catch { /* already closed */ }
    this.conn = null;
  }

  /** Where a chunked body ends (index after the final CRLF), or -1 if it is not all in yet. */
  private chunkedEnd(start: number, len: number): number {
    let i = start;
    for (;;) {
      const lineEnd = indexOfSeq(this.buf, CRLF, i, len);
      if (lineEnd < 0) return -1;
      const size = parseInt(latin1.decode(this.buf.subarray(i, lineEnd)), 16);
      if (!Number.isFinite(size)) throw new Error("Malformed chunked answer");
      if (size === 0) {
        const end = indexOfSeq(this.buf, CRLF, lineEnd + 2, len);
        return end < 0 ? -1 : end + 2;
      }
      i = lineEnd + 2 + size + 2;
      if (i > len) return -1;
    }
  }

  private dechunk(start: number, end: number): string {
    const parts: Uint8Array[] = [];
    let i = start;
    while (i < end) {
      const lineEnd = indexOfSeq(this.buf, CRLF, i, end);
      const size = parseInt(latin1.decode(this.buf.subarray(i, lineEnd)), 16);
      if (!size) break;
      parts.push(this.buf.subarray(lineEnd + 2, lineEnd + 2 + size));
      i = lineEnd + 2 + size + 2;
    }
    let total = 0;
    for (const p of parts) total += p.length;
    const joined = new Uint8Array(total);
    let at = 0;
    for (const p of parts) {
      joined.set(p, at);
      at += p.length;
    }
    return decoder.decode(joined);
  }
}

/** utime + stime of a process in seconds, from /proc (Linux); null elsewhere. */
export function cpuSeconds(pid: number | "self"): number | null {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** Busy CPU seconds of the whole machine (all cores), from /proc/stat; null elsewhere. */
export function machineBusySeconds(): number | null {
  try {
    const line = Deno.readTextFileSync("/proc/stat").split("\n")[0];
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return (user + nice + system + irq + softirq + (steal || 0)) / 100;
  } catch {
    return null;
  }
}
