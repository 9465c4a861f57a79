import process from "node:process";

/** Runtime configuration, read once from the environment; every setting has a working default. */
export interface Config {
  port: number;
  databaseUrl: string;
  databaseAuthToken: string | undefined;
  publicUrl: string;
  appEnv: "development" | "production" | "test";
  /** Where the Vite build lives (manifest and assets). */
  distDir: string;
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const port = Number(env.PORT ?? 8000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be a port number, got "${env.PORT}"`);
  }
  const appEnv = env.APP_ENV || (env.NODE_ENV === "production" ? "production" : "development");
  if (appEnv !== "development" && appEnv !== "production" && appEnv !== "test") {
    throw new Error(`APP_ENV must be development, production or test, got "${appEnv}"`);
  }
  return {
    port,
    databaseUrl: env.DATABASE_URL || "file:data/portal.db",
    databaseAuthToken: env.DATABASE_AUTH_TOKEN || undefined,
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/$/, ""),
    appEnv,
    distDir: env.DIST_DIR || "dist",
  };
}
