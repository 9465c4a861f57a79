/**
 * The body limit on a running portal (issue 14, finding 3; decision 024), over raw sockets so the
 * test decides what the server receives: a request that declares 10 MB and sends a fraction is
 * answered 413 at once (a server that read bodies in full would wait for the rest for ever), and 20
 * such requests at once leave the server's peak memory where it was. The in-app cases are in
 * tests/integration/body-limits.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type RunningServer, startServer } from "../helpers/server.ts";

let server: RunningServer;
let port: number;

beforeAll(async () => {
  server = await startServer("main.ts");
  port = Number(new URL(server.url).port);
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

const MB = 1024 * 1024;
const encoder = new TextEncoder();

/** The server's peak resident memory so far, in KB (Linux's VmHWM). */
function peakMemoryKb(): number {
  const status = Deno.readTextFileSync(`/proc/${server.process.pid}/status`);
  return Number(/VmHWM:\s+(\d+)/.exec(status)![1]);
}

/** A registration's headers: its body declared as `declared` bytes, or chunked. */
function head(declared: number | "chunked"): Uint8Array {
  const framing = declared === "chunked" ? "Transfer-Encoding: chunked" : `Content-Length: ${declared}`;
  return encoder.encode(
    `POST /api/auth/register HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`,
  );
}

const FILLER = encoder.encode(" ".repeat(64 * 1024));
const CHUNK = new Uint8Array([...encoder.encode(`10000\r\n`), ...FILLER, ...encoder.encode("\r\n")]);

/**
 * Sends a registration of `size` bytes (declared, or chunked), 64 KB at a time, and stops sending
 * as soon as the server answers. Resolves with the answer's status line and how much was sent, or
 * rejects when no answer comes within `deadline` ms.
 */
async function register(framing: "declared" | "chunked", size: number, deadline = 20_000) {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  let answer = "";
  let answered = false;
  const reading = (async () => {
    const buffer = new Uint8Array(16 * 1024);
    while (!answer.includes("\r\n\r\n")) {
      const n = await conn.read(buffer).catch(() => null);
      if (n === null) break;
      answer += new TextDecoder().decode(buffer.subarray(0, n));
    }
    answered = true;
  })();
  let sent = 0;
  try {
    await conn.write(head(framing === "chunked" ? "chunked" : size));
    while (sent < size && !answered) {
      await conn.write(framing === "chunked" ? CHUNK : FILLER);
      sent += FILLER.length;
    }
  } catch {
    // The server may close its side once it has answered: that is not a failure of the test.
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`No answer within ${deadline} ms after sending ${sent} bytes`)),
      deadline,
    );
  });
  try {
    await Promise.race([reading, late]);
  } finally {
    clearTimeout(timer);
    conn.close();
  }
  return { status: answer.split("\r\n")[0], sent };
}

describe("a running portal", () => {
  test("answers 413 to a body declared as 10 MB after the first 64 KB, without waiting for the rest", async () => {
    // 64 KB of a declared 10 MB: a server that reads bodies in full waits for the rest for ever.
    expect(await partialRequest(head(10 * MB), FILLER)).toBe("HTTP/1.1 413 Payload Too Large");
  }, 15_000);

  test("answers 413 to a chunked body once it passes the limit, without waiting for the rest", async () => {
    expect(await partialRequest(head("chunked"), CHUNK)).toBe("HTTP/1.1 413 Payload Too Large");
  }, 15_000);

  test("20 registrations of 10 MB at once: each is 413 and the server's peak memory stays where it was", async () => {
    // A first refusal, so that what one request costs once (code paths, buffers) is counted before.
    await register("declared", 10 * MB);
    const before = peakMemoryKb();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => register(i % 2 ? "chunked" : "declared", 10 * MB)),
    );
    for (const { status } of results) expect(status).toBe("HTTP/1.1 413 Payload Too Large");
    // Read in full, 20 bodies of 10 MB take 200 MB and more; refused early, next to nothing.
    expect(peakMemoryKb() - before).toBeLessThan(64 * 1024);
  }, 60_000);
});

/**
 * Sends headers and one piece of a body that is announced as much larger, then waits for the
 * answer's status line (up to 10 s), never sending the rest.
 */
async function partialRequest(headers: Uint8Array, piece: Uint8Array): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(headers);
    await conn.write(piece);
    const buffer = new Uint8Array(4096);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const n = await Promise.race([
      conn.read(buffer),
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), 10_000))),
    ]);
    clearTimeout(timer);
    return n === null ? "no answer within 10 s" : new TextDecoder().decode(buffer.subarray(0, n)).split("\r\n")[0];
  } finally {
    conn.close();
  }
}
