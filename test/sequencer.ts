// The order test files start in. Vitest runs the slowest first when it has timings from an earlier run; a fresh
// clone (CI) has none, and vitest then orders by file size, which can leave a long end-to-end file (a minute and
// more: kills, reruns, tmux) for the end while the other worker idles. Without timings: the end-to-end files first.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export default class EndToEndFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const timed = (f: TestSpecification): boolean =>
      this.ctx.cache.getFileTestResults(`${f.project.name}:${relative(this.ctx.config.root, f.moduleId)}`) !== undefined;
    if (sorted.some(timed)) return sorted;
    const e2e = (f: TestSpecification): boolean => f.moduleId.includes('/test/e2e/');
    return [...sorted.filter(e2e), ...sorted.filter((f) => !e2e(f))];
  }
}
