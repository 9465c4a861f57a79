/**
 * /console/migration's latest runs (GET console/migrations), server state in the page's query
 * client (decision 016): the page draws the first answer, and each upload (a dry run or a commit)
 * invalidates the runs, so the run it made is listed without reloading the page.
 */
import { useQuery } from "@tanstack/react-query";
import { latestRunsQuery, type MigrationRunPage } from "./calls.ts";
import { ScrollBox } from "../ui/table.tsx";

const MOMENT = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });
const STATUS_WORDS = { "dry run": "Dry run", queued: "Waiting", running: "Running", done: "Done", failed: "Failed" };
const COLUMNS = ["Run", "File", "When", "By", "Status", "Created", "Skipped", "Refused"];

export function LatestRuns({ initial }: { initial: MigrationRunPage }) {
  const runs = useQuery({ ...latestRunsQuery(), initialData: initial }).data;
  return (
    <div>
      <h2 id="latest-runs-heading" className="mb-2 text-xl font-semibold">Latest runs</h2>
      {runs.items.length
        ? (
          <ScrollBox
            labelledBy="latest-runs-heading"
            className="rounded-xl border border-neutral-200 dark:border-neutral-800"
          >
            <table aria-labelledby="latest-runs-heading" className="w-full text-left text-sm">
              <thead className="bg-neutral-50 dark:bg-neutral-900">
                <tr>
                  {COLUMNS.map((label) => <th key={label} scope="col" className="px-4 py-3 font-semibold">{label}</th>)}
                </tr>
              </thead>
              <tbody className="divide-y divide-neutral-200 dark:divide-neutral-800">
                {runs.items.map((run) => (
                  <tr key={run.id}>
                    <td className="px-4 py-3">
                      <a className="underline" href={`/console/migration/${run.id}`}>#{run.id}</a>
                    </td>
                    <td className="px-4 py-3 break-all">{run.file_name}</td>
                    <td className="px-4 py-3">{MOMENT.format(new Date(run.created_at))} UTC</td>
                    <td className="px-4 py-3 break-all">{run.created_by}</td>
                    <td className="px-4 py-3">{STATUS_WORDS[run.status]}</td>
                    <td className="px-4 py-3 tabular-nums">{run.counts.created}</td>
                    <td className="px-4 py-3 tabular-nums">{run.counts.skipped}</td>
                    <td className="px-4 py-3 tabular-nums">{run.counts.refused}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollBox>
        )
        : <p className="text-neutral-600 dark:text-neutral-300">No file has been uploaded yet.</p>}
    </div>
  );
}
