import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "turso",
  schema: [
    "./db/schema.ts",
    "./db/schema-money.ts",
    "./db/schema-payments.ts",
    "./db/schema-console.ts",
    "./db/schema-jobs.ts",
    "./db/schema-ratealerts.ts",
    "./db/schema-statements.ts",
    "./db/schema-migrations.ts",
    "./db/schema-partners.ts",
    "./db/schema-bulkemails.ts",
  ],
  out: "./db/migrations",
  dbCredentials: { url: process.env.DATABASE_URL || "file:data/portal.db" },
});
