import { withQueries } from "./lib/query-client.tsx";
import type { MigrationRunWithRows } from "./migrations/calls.ts";
import { RunView } from "./migrations/run-view.tsx";

export interface ConsoleMigrationRunProps {
  /** The run with its first page of lines, as the server rendered it. */
  run: MigrationRunWithRows;
}

/** /console/migration/{id}: a run's counts, its commit's progress (polled) and its lines. */
function ConsoleMigrationRun({ run }: ConsoleMigrationRunProps) {
  return <RunView initial={run} />;
}

export default withQueries(ConsoleMigrationRun);
