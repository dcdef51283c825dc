// `verify` of the newer export after `run --sync`, without --journal: it finds the sync's journal (a sync's run
// identity names its base too, so the plain run-folder search missed it) and reads the chain of runs behind it,
// so the first run's record of join dates kept by `--via bulk-staged` still counts for the users the sync left
// alone, and the users the sync changed or added are found by what the sync recorded.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { cli, LICENSE, summaryOf } from '../support/cli.js';
import { SCRYPT_SIGNER_KEY, writeNdjson } from '../support/users.js';
import type { CanonicalUser } from '../../src/records/types.js';

vi.setConfig({ testTimeout: 120_000 });

let dir: string;
let sandbox: RunningSandbox | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-verify-sync-'));
});
afterEach(async () => {
  await sandbox?.stop();
  sandbox = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const JOINED = Date.UTC(2017, 0, 1);
const DAY = 86_400_000;
const hash = (pw: string) => bcrypt.hashSync(pw, 4);

describe('verify after a sync', () => {
  it('finds the sync journal by itself and checks join dates through the first run', async () => {
    sandbox = await startSandbox({
      store: join(dir, 'store.json'),
      licenseKey: LICENSE,
      signerKey: SCRYPT_SIGNER_KEY,
      bulkImportIntervalSec: 1,
    });
    const first: CanonicalUser[] = Array.from({ length: 8 }, (_, i) => ({
      id: `u${i}`,
      email: `u${i}@example.test`,
      password: { hash: hash(`pw-${i}`) },
      timeJoined: JOINED + i * DAY,
    }));
    writeNdjson(join(dir, 'v1.ndjson'), first);
    const target = ['--core', sandbox.url, '--out', 'runs'];
    const run = await cli(['run', 'v1.ndjson', ...target, '--yes', '--via', 'bulk-staged', '--job-interval', '1', '--json'], dir);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(summaryOf(run.stdout)).toMatchObject({ imported: 8 });

    // The newer export: u1's password changed, u8 new.
    const newer = [...first.map((u) => (u.id === 'u1' ? { ...u, password: { hash: hash('pw-new') } } : u))];
    newer.push({ id: 'u8', email: 'u8@example.test', password: { hash: hash('pw-8') }, timeJoined: JOINED + 8 * DAY });
    writeNdjson(join(dir, 'v2.ndjson'), newer);
    const sync = await cli(['run', 'v2.ndjson', ...target, '--sync', '--yes', '--json'], dir);
    expect(sync.exitCode, sync.stderr.slice(-1500)).toBe(0);

    const v = await cli(['verify', 'v2.ndjson', ...target, '--json'], dir);
    expect(v.exitCode, v.stderr).toBe(0);
    expect(summaryOf(v.stdout)).toMatchObject({ total: 9, ok: 9, missing: 0, mismatch: 0 });
    expect(v.stderr).toMatch(/^journal .*runs\/[^/]+\/journal\.ndjson$/m);
    expect(v.stderr).not.toMatch(/no journal of this migration found/);

    // The join dates the first run kept are checked for a user the sync left alone: an export that now says
    // another join date for u3 (a change the sync does not carry: the core keeps the join date it has) is a mismatch.
    writeNdjson(
      join(dir, 'v2.ndjson'),
      newer.map((u) => (u.id === 'u3' ? { ...u, timeJoined: JOINED + 100 * DAY } : u)),
    );
    const again = await cli(['verify', 'v2.ndjson', ...target, '--json'], dir);
    expect(summaryOf(again.stdout), again.stderr).toMatchObject({ total: 9, mismatch: 1 });

    // The first run's journal gone: verify still runs on the sync's journal alone and says what it cannot check.
    const firstJournal = /^journal (.*)$/m.exec(run.stderr)![1]!;
    rmSync(firstJournal);
    const alone = await cli(['verify', 'v2.ndjson', ...target, '--json'], dir);
    expect(summaryOf(alone.stdout), alone.stderr).toMatchObject({ total: 9, missing: 0, mismatch: 0 });
    expect(alone.stderr).toMatch(/warning: .*verifying with the sync's journal alone/);
  });
});
