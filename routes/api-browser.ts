import { Hono } from "hono";
import { html } from "hono/html";
import type { AppEnv } from "../server/env.ts";
import { servedDocument } from "./api/openapi.ts";

/**
 * GET /dev/api, outside production: the calls of the OpenAPI document as a page a developer can
 * read (method, path, summary, who may call it, what it takes). Plain server-rendered HTML, so no
 * API browser library reaches any bundle (decision 042); a full browser can load
 * /api/openapi.json instead.
 */
export const apiBrowser = new Hono<AppEnv>();

interface Operation {
  summary: string;
  "x-guards": string[];
  "x-permission"?: string;
  parameters: { name: string; in: string; required: boolean }[];
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
}

apiBrowser.get("/dev/api", async (c) => {
  // Every call, the console's included: this page is never served in production.
  const document = JSON.parse((await servedDocument("whole")).json) as {
    paths: Record<string, Record<string, Operation>>;
  };
  const rows = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const takes = [
        ...op.parameters.map((p) => `${p.name}${p.required ? "" : "?"}`),
        ...Object.keys(op.requestBody?.content["application/json"]?.schema.properties ?? {}).map((f) => `body.${f}`),
        // A document as the body (a bank statement): its media types.
        ...Object.keys(op.requestBody?.content ?? {}).filter((type) => type !== "application/json")
          .map((type) => `body: ${type}`),
      ];
      const who = op["x-guards"].length ? op["x-guards"].join(", ") : "anyone";
      return html`
        <tr>
          <td><code>${method.toUpperCase()}</code></td>
          <td><code>${path}</code></td>
          <td>${op.summary}</td>
          <td>${op["x-permission"] ? `${who}; ${op["x-permission"]}` : who}</td>
          <td>${takes.join(", ")}</td>
        </tr>
      `;
    })
  );
  return c.html(
    html`
      <!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8">
          <title>Portal API: ${rows.length} calls</title>
        </head>
        <body>
          <h1>Portal API</h1>
          <p>${rows
            .length} calls, from their contracts. The document: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1; the console's calls are only in
            <a href="/api/console/openapi.json">/api/console/openapi.json</a>, for administrators).</p>
          <table>
            <thead>
              <tr>
                <th>Method</th>
                <th>Path</th>
                <th>What it does</th>
                <th>Who may call it</th>
                <th>What it takes</th>
              </tr>
            </thead>
            <tbody>${rows}</tbody>
          </table>
        </body>
      </html>
    `,
  );
});
