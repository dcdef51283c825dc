// Issue 33 point 8, headless: `run --via bulk-staged` in a real terminal (tmux) 60 columns wide, waiting on a core
// whose job runs every 300 s. The job's line is redrawn in place within the width: however many updates, one row
// holds it and no row is wider than the terminal (a wider line wraps, and each redraw left a fragment behind).
// A job that never runs is told once.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { cli, LICENSE, stagedRunArgs } from '../support/cli.js';
import { generateUsers, writeNdjson } from '../support/users.js';
import { TMUX, tmuxInTempDir } from './tmux-driver.js';

const { dir, t } = tmuxInTempDir('am-staged-tty-');
let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await t.kill().catch(() => undefined);
  await sandbox?.stop();
  sandbox = undefined;
});

describe.skipIf(!TMUX)('the bulk-import job line on a terminal', () => {
  for (const [columns, rows] of [
    [60, 16],
    [80, 24],
  ] as const) {
    it(`${columns}x${rows}: one row, redrawn in place, within the width`, async () => {
      writeNdjson(join(dir, 'users.ndjson'), generateUsers(20, { prefix: 'w', simple: true }).users);
      sandbox = await startSandbox({ store: join(dir, `store-${columns}.json`), licenseKey: LICENSE, bulkImportIntervalSec: 300 });
      const args = ['run', 'users.ndjson', '--core', sandbox.url, '--yes', '--via', 'bulk-staged', '--job-interval', '300'];
      await t.launch([...args, '--journal', `j-${columns}.ndjson`], { cwd: dir, env: {}, columns, rows });
      // Three different countdowns seen: the line has been redrawn at least twice.
      const seen = new Set<string>();
      const s = await t.untilScreen(
        (screen) => {
          for (const m of screen.matchAll(/next run within (\dm\d\ds)/g)) seen.add(m[1]!);
          return seen.size >= 3;
        },
        'three redraws of the job line',
        30_000,
      );
      const lines = s.replace(/\n+$/, '').split('\n');
      for (const row of lines) expect(row.length, `wider than ${columns}: ${row}`).toBeLessThanOrEqual(columns);
      expect(lines.filter((row) => /next run within/.test(row))).toHaveLength(1);
      expect(lines.filter((row) => /\d+\/20 taken|20 staged/.test(row))).toHaveLength(1);
    }, 60_000);
  }

  it('a job that never runs is told once (it was three times: the warning, the stop, the error)', async () => {
    writeNdjson(join(dir, 'users.ndjson'), generateUsers(20, { prefix: 'w', simple: true }).users);
    sandbox = await startSandbox({ store: join(dir, 'store-off.json'), licenseKey: LICENSE, bulkImportIntervalSec: 0 });
    const r = await cli(
      stagedRunArgs(sandbox.url, ['--stall-after', '3'], '--json').filter((a) => a !== '--json'),
      dir,
    );
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^warning: the core's bulk-import job has not moved for 0m0\ds with 20 users waiting/m);
    expect(r.stderr.match(/BULK_MIGRATION_CRON_ENABLED=false/g)).toHaveLength(1);
    expect(r.stderr.match(/allowed at its/g)).toHaveLength(1);
  }, 60_000);
});
