import type { Transaction } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import type { Hono } from "hono";
import { type Database, openDatabase } from "../../db/client.ts";
import type { AppEnv } from "../../server/env.ts";
import { testApp } from "./app.ts";

/**
 * A second instance of the portal on another instance's database file, that dies the moment a
 * COMMIT of its makes `diesAfter` true: from then on it does nothing at all (every call it makes to
 * the database never returns, and the COMMIT's caller never hears back), like a process killed
 * right after its transaction reached the disk and before anything else happened. The request
 * that was running never gets an answer; the test retries it on the surviving instance.
 */
export interface DyingInstance {
  app: Hono<AppEnv>;
  /** Resolves when the instance has died. */
  died: Promise<void>;
  /** Closes its database, undoing a transaction its death left open (as the system would). */
  close(): Promise<void>;
}

/** The path of a database's file (for a second connection to it). */
export async function databaseFile(db: Database): Promise<string> {
  const { rows } = await db.$client.execute("PRAGMA database_list");
  return String(rows[0].file);
}

export async function dyingInstance(
  of: Database,
  options: {
    now: () => number;
    diesAfter: () => Promise<boolean>;
    /**
     * Asks `diesAfter` before each COMMIT instead, and dies there, before the COMMIT runs: nothing
     * of that transaction reaches the disk.
     */
    diesBeforeCommit?: boolean;
  },
): Promise<DyingInstance> {
  const database = await openDatabase({ url: `file:${await databaseFile(of)}` });
  const client = database.$client;
  let dead = false;
  const { promise: died, resolve: die } = Promise.withResolvers<void>();
  const never = new Promise<never>(() => {});

  /** Every method of `target`, unless dead; `after` sees each result first. */
  function deadWhenDead<T extends object>(target: T, after: (method: PropertyKey, result: unknown) => unknown): T {
    return new Proxy(target, {
      get(object, property) {
        const value = Reflect.get(object, property, object);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => (dead ? never : after(property, value.apply(object, args)));
      },
    });
  }

  const transaction = (tx: Transaction) =>
    deadWhenDead(
      options.diesBeforeCommit ? dyingAtCommit(tx) : tx,
      (method, result) =>
        method !== "commit" ? result : Promise.resolve(result).then(async (committed) => {
          if (!(await options.diesAfter())) return committed;
          dead = true;
          die();
          return never;
        }),
    );
  /** The transaction left open at the death: undone at close(), as a dead process's would be. */
  let abandoned: Transaction | undefined;
  /** The transaction whose commit (and rollback) never happens: the process is gone. */
  function dyingAtCommit(tx: Transaction): Transaction {
    return new Proxy(tx, {
      get(object, property) {
        const value = Reflect.get(object, property, object);
        if (property !== "commit" && property !== "rollback") {
          return typeof value === "function" ? value.bind(object) : value;
        }
        return async () => {
          if (!(await options.diesAfter())) return await tx.commit();
          abandoned = tx;
          dead = true;
          die();
          return never;
        };
      },
    });
  }
  const dying = deadWhenDead(
    client,
    (method, result) => method === "transaction" ? (result as Promise<Transaction>).then(transaction) : result,
  );

  const { app } = await testApp({
    database: drizzle(dying) as Database,
    sessions: "database",
    now: options.now,
    env: { TRUST_PROXY: "1" },
  });
  return {
    app,
    died,
    close: async () => {
      await abandoned?.rollback().catch(() => {});
      client.close();
    },
  };
}
