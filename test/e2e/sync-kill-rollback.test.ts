// Issue 31, a sync's lost lines: a sync with new, changed and removed users (--remove-missing) SIGKILLed at three
// spread moments, each followed by the same command, then finished; its rollback alone leaves the earlier export
// verifying all ok; the first run's rollback after it leaves the core as it was before the first run, user for user.
// Before write-ahead intents, changes a killed sync applied without their line were met by the rerun as "already
// present", and the sync's rollback left them in place.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CanonicalUser } from '../../src/records/types.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { BIN, cleanEnv, cli, client, LICENSE, summaryOf, waitFor } from '../support/cli.js';
import { coreState } from '../support/core-state.js';
import { generateUsers, SCRYPT_SIGNER_KEY, writeNdjson } from '../support/users.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const env = { AUTH_MIGRATE_LICENSE_KEY: LICENSE };
let dir: string;
let sandbox: RunningSandbox;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-sync-kill-'));
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE, signerKey: SCRYPT_SIGNER_KEY });
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The core's users now (core-state.ts), through a client of its own. */
async function coreNow(): Promise<string[]> {
  const core = client(sandbox.url);
  try {
    return await coreState(core);
  } finally {
    core.close();
  }
}

describe('a sync killed three times, finished, then rolled back newest first', () => {
  it('the sync rollback gives back the earlier export (verify all ok); the full undo the core before the first run', async () => {
    const core = client(sandbox.url);
    await core.importPasswordHash({ email: 'there-before@example.test', passwordHash: BCRYPT });
    core.close();
    const set = generateUsers(300, { prefix: 'sk' });
    const first: CanonicalUser[] = set.users;
    // The newer export: 80 changed (password, metadata, a new device), 40 new, 40 gone.
    const changed = set.users.slice(40, 120).map((u, i) => ({
      ...u,
      ...(u.password ? { password: { hash: BCRYPT } } : {}),
      metadata: { tier: `t${i}` },
    }));
    const newer = [...set.users.slice(120), ...changed, ...generateUsers(40, { prefix: 'sn', simple: true }).users];
    writeNdjson(join(dir, 'one.ndjson'), first);
    writeNdjson(join(dir, 'two.ndjson'), newer);
    const before = await coreNow();

    const run = await cli(['run', 'one.ndjson', '--core', sandbox.url, '--out', 'runs', '--yes', '--json'], dir, env);
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
    const firstJournal = (summaryOf(run.stdout) as { journal: string }).journal;

    const args = ['run', 'two.ndjson', '--sync', '--remove-missing', '--core', sandbox.url, '--out', 'runs', '--yes', '--json'];
    let syncJournal: string | undefined;
    for (const delay of [150, 700, 1_300]) {
      const child = execa(process.execPath, [BIN, ...args, '--concurrency', '4'], {
        cwd: dir,
        reject: false,
        env: cleanEnv(env),
        extendEnv: false,
      });
      let stderr = '';
      child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
      // The sync's run folder is printed right before its first write.
      await waitFor(() => child.exitCode !== null || /runs\/[^\s]*sync[^\s]*/.test(stderr), 'the sync to start writing', 60_000);
      syncJournal ??= join(dir, /(runs\/[^\s]*sync[^\s/]*)/.exec(stderr)?.[1] ?? 'none', 'journal.ndjson');
      await waitFor(() => child.exitCode !== null || (existsSync(syncJournal!) && statSync(syncJournal!).size > 0), 'its journal');
      await sleep(delay);
      child.kill('SIGKILL');
      await child;
    }
    const done = await cli([...args, '--concurrency', '4'], dir, env);
    expect(done.exitCode, done.stderr.slice(-3000)).toBe(0);
    syncJournal = (summaryOf(done.stdout) as { journal?: string }).journal ?? syncJournal!;

    const undoSync = await cli(['rollback', '--journal', syncJournal, '--yes', '--json'], dir, env);
    expect(undoSync.exitCode, undoSync.stderr.slice(-3000)).toBe(0);
    expect(summaryOf(undoSync.stdout)).toMatchObject({ failed: 0, kept: 0 });
    const v = await cli(['verify', 'one.ndjson', '--core', sandbox.url, '--journal', firstJournal, '--json'], dir, env);
    expect(summaryOf(v.stdout), v.stdout.slice(-3000)).toMatchObject({ total: first.length, ok: first.length });

    const undoFirst = await cli(['rollback', '--journal', firstJournal, '--yes', '--json'], dir, env);
    expect(undoFirst.exitCode, undoFirst.stderr.slice(-3000)).toBe(0);
    expect(summaryOf(undoFirst.stdout)).toMatchObject({ failed: 0, kept: 0, undone: 0 });
    expect(await coreNow()).toEqual(before);
  }, 600_000);
});
