import { appendFileSync } from "node:fs";
import { relative } from "node:path";

/** What this reporter reads of vitest's TestModule (vitest/node): its file and its project. */
interface TestModuleSeen {
  moduleId: string;
  project: { name: string };
}

/**
 * A vitest reporter that writes each test file's start and end, one line each, to the file named
 * by TEST_PROGRESS_FILE (nothing without it). tests/run.ts reads it when a run goes silent, to say
 * which files were running when it stopped answering: the default reporter names a file only once
 * it has finished.
 */
export default class ProgressReporter {
  readonly #file = process.env.TEST_PROGRESS_FILE;

  #write(event: string, module: TestModuleSeen) {
    if (this.#file) {
      appendFileSync(this.#file, `${event} ${module.project.name} ${relative(process.cwd(), module.moduleId)}\n`);
    }
  }

  onTestModuleStart(module: TestModuleSeen) {
    this.#write("start", module);
  }

  onTestModuleEnd(module: TestModuleSeen) {
    this.#write("end", module);
  }
}
