// The operator's view of the core's bulk-import job on `--via bulk-staged` (issue 24), on the sandbox as the
// reference runs its job: every 300 s after a run at start-up (the run says when it runs next, bounded by the
// interval, and gives no ETA before there is a rate), and not at all (BULK_MIGRATION_CRON_ENABLED=false on the
// reference; `--bulk-import-interval 0` here): after the time the run was told (--stall-after) without a move, a
// warning and a stop, not an endless wait, with the run's staged rows taken back out of the list.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RunEvent } from '../../src/engine/events.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { BIN, cleanEnv, cli, client, LICENSE, stagedRunArgs, waitFor } from '../support/cli.js';
import { generateUsers, writeNdjson } from '../support/users.js';

vi.setConfig({ testTimeout: 120_000 });

let dir: string;
let sandbox: RunningSandbox | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-staged-view-'));
  writeNdjson(join(dir, 'users.ndjson'), generateUsers(20, { prefix: 'v', simple: true }).users);
});
afterEach(async () => {
  await sandbox?.stop();
  sandbox = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const events = (stderr: string): RunEvent[] =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as RunEvent);
const progress = (stderr: string) =>
  events(stderr).filter((e): e is Extract<RunEvent, { type: 'staged-progress' }> => e.type === 'staged-progress');

describe('the bulk-import job as the run shows it', () => {
  it('a job every 300 s: the next run within the interval, no rate and no ETA before it runs', async () => {
    sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE, bulkImportIntervalSec: 300 });
    const args = [
      'run',
      'users.ndjson',
      '--core',
      sandbox.url,
      '--yes',
      '--via',
      'bulk-staged',
      '--job-interval',
      '300',
      '--journal',
      'j.ndjson',
    ];
    const child = execa(process.execPath, [BIN, ...args, '--json-events'], { cwd: dir, reject: false, env: cleanEnv(), extendEnv: false });
    let stderr = '';
    child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
    await waitFor(() => progress(stderr).filter((e) => e.staged === 20).length >= 3, 'three looks at the waiting job');
    const seen = progress(stderr).filter((e) => e.staged === 20);
    for (const e of seen) {
      expect(e).toMatchObject({ running: false, processing: 0, imported: 0, of: 20, intervalMs: 300_000, nextRunExact: false });
      expect(e.nextRunInMs).toBeGreaterThan(250_000);
      expect(e.nextRunInMs).toBeLessThanOrEqual(300_000);
      expect(e.rate).toBeUndefined();
      expect(e.etaMs).toBeUndefined();
    }
    // Counting down as time passes.
    expect(seen.at(-1)!.nextRunInMs!).toBeLessThan(seen[0]!.nextRunInMs!);
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode).toBe(130);
    expect((await client(sandbox.url).bulkImport.countUsers()).count).toBe(0);

    // The same line in plain text (what a terminal, a log and the wizard show).
    const plain = cli([...args, '--job-interval', '300'], dir);
    let text = '';
    plain.stderr?.on('data', (b: Buffer) => (text += b.toString()));
    await waitFor(() => /core's bulk-import job: next run within 4m\d\ds \(it runs every 5m00s\); 20 staged/.test(text), 'the plain line');
    expect(text).toMatch(/ETA once the job has run/);
    expect(text).not.toMatch(/ETA \d+h/);
    plain.kill('SIGINT');
    await plain;
  });

  it('a job that never runs: a warning after --stall-after without a move, then a stop with the staged rows taken back', async () => {
    sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE, bulkImportIntervalSec: 0 });
    const started = Date.now();
    // Told 3 s (by default it is two intervals and a margin, never under a minute: job.test.ts).
    const r = await cli(stagedRunArgs(sandbox.url, ['--stall-after', '3'], '--json-events'), dir);
    expect(r.exitCode).toBe(2);
    expect(Date.now() - started).toBeGreaterThan(3_000);
    const stalled = events(r.stderr).find((e) => e.type === 'staged-stalled');
    expect(stalled).toMatchObject({ type: 'staged-stalled', intervalMs: 1_000, afterMs: 3_000, waiting: 20 });
    expect((stalled as { idleMs: number }).idleMs).toBeGreaterThan(3_000);
    expect(r.stderr).toMatch(
      /has not moved for 0m0\ds \(more than the 0m03s allowed at its 0m01s interval\).*BULK_MIGRATION_CRON_ENABLED=false/,
    );
    expect(events(r.stderr).find((e) => e.type === 'staged-removed')).toMatchObject({ removed: 20, left: 0 });
    expect((await client(sandbox.url).bulkImport.countUsers()).count).toBe(0);
    // The journal says what was in flight: the same command settles it once the job runs.
    expect(readFileSync(join(dir, 'j.ndjson'), 'utf8').match(/"staged":/g)).toHaveLength(20);
  });
});
