/** The statements calls the reports page makes, typed by their contracts (lib/contracts/statements.ts, jobs.ts). */
import type * as jobs from "../../lib/contracts/jobs.ts";
import type * as statements from "../../lib/contracts/statements.ts";
import { type AnswerOf, type BodyOf, call } from "../lib/api.ts";
import { read } from "../lib/query-client.tsx";
import { statementKeys } from "../lib/query-keys.ts";

export const requestStatement = call<typeof statements.requestStatement>("POST", "/account/statements");
export const listStatements = call<typeof statements.listStatements>("GET", "/account/statements");
export const getAccountJob = call<typeof jobs.getAccountJob>("GET", "/account/jobs/:id");

export type Statement = AnswerOf<typeof statements.listStatements>["items"][number];
export type Job = AnswerOf<typeof jobs.getAccountJob>;
export type StatementBody = NonNullable<BodyOf<typeof statements.requestStatement>>;

export const statementsQuery = (accountRef: string) => read(statementKeys.of(accountRef), listStatements);
export const jobQuery = (accountRef: string, id: number) =>
  read(statementKeys.job(accountRef, id), getAccountJob, { params: { id } });
