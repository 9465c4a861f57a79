/**
 * What an instance on Deno Deploy (deploy.ts) needs besides what every deployment needs
 * (deploymentCheck, server/config.ts): it has no disk of its own to write and several instances
 * run at once, anywhere (decision 043).
 */
type Env = Record<string, string | undefined>;

/** The least length of APP_SECRET: 32 characters, the 256 bits of the key it stands for. */
export const MIN_APP_SECRET_LENGTH = 32;

/** Why deploy.ts will not start with these settings (none: it may). */
export function edgeProblems(env: Env): string[] {
  const problems: string[] = [];
  const url = env.DATABASE_URL ?? "";
  if (!url) {
    problems.push("DATABASE_URL is not set: give the Turso database's address (libsql://…).");
  } else if (!/^(libsql|https?|wss?):\/\//.test(url)) {
    problems.push(
      `DATABASE_URL is ${url.split(":")[0]}:, a file on this instance's disk: on Deno Deploy there is none to keep, ` +
        "and every instance would have its own. Give a Turso database's address (libsql://…).",
    );
  }
  if (url && !env.DATABASE_AUTH_TOKEN) {
    problems.push("DATABASE_AUTH_TOKEN is not set: the database refuses a client without its token.");
  }
  if (!env.APP_SECRET) {
    problems.push(
      "APP_SECRET is not set: without it the key that seals secrets would be written to a file, which an " +
        "instance cannot keep, and each instance would have its own.",
    );
  } else if (env.APP_SECRET.length < MIN_APP_SECRET_LENGTH) {
    problems.push(`APP_SECRET must have at least ${MIN_APP_SECRET_LENGTH} characters.`);
  }
  return problems;
}
