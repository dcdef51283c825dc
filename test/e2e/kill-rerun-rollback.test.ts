// Issue 31, the journal before the write: on each `--via` path, runs SIGKILLed at random moments, each followed by
// the same command and a rollback, leave the core exactly as it was before the run, user for user (ids, login
// methods, verified flags, mappings, metadata, roles, TOTP devices), and the rollback takes no user of the run for
// one that was there before. Before write-ahead intents, a kill between a request and its journal line left users
// the rerun then met as "already present", and the rollback kept them as "there before".
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CoreClient } from '../../src/core-client/types.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { BIN, cleanEnv, cli, client, LICENSE, summaryOf, waitFor } from '../support/cli.js';
import { coreState } from '../support/core-state.js';
import { generateUsers, SCRYPT_SIGNER_KEY, writeNdjson } from '../support/users.js';
import { existsSync, statSync } from 'node:fs';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const KILLS = 5;

let dir: string;
let sandbox: RunningSandbox;
let core: CoreClient;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-kill-rollback-'));
  sandbox = await startSandbox({
    store: join(dir, 'store.json'),
    licenseKey: LICENSE,
    signerKey: SCRYPT_SIGNER_KEY,
    bulkImportIntervalSec: 1,
  });
  core = client(sandbox.url);
  // Users that were there before every run: one the exports name too (found, left as it is), one they do not.
  const before = await core.importPasswordHash({ email: 'there-before@example.test', passwordHash: BCRYPT });
  await core.updateUserMetadata(before.user.id, { plan: 'gold' });
  await core.importPasswordHash({ email: 'bystander@example.test', passwordHash: BCRYPT });
});
afterEach(async () => {
  core?.close();
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A deterministic spread of kill moments over the run's first seconds (ms after its first journal line). */
const killDelay = (via: string, k: number): number => ((k * 977 + via.length * 131) % 1400) + 40;

describe.each(['steps', 'bulk', 'bulk-staged'] as const)('--via %s', (via) => {
  it(`${KILLS} runs SIGKILLed at random moments, each rerun then rolled back: the core as before, none of the run's users "there before"`, async () => {
    for (let k = 0; k < KILLS; k++) {
      const prefix = `${via.replace('-', '')}${k}x`;
      const set = generateUsers(120, { prefix });
      // One user of the export was in the core before the run; one has metadata and a role the run gives.
      const users = [
        ...set.users.map((u, i) => (i === 1 ? { ...u, metadata: { tier: 'vip' }, roles: ['migrated'] } : u)),
        { id: `${prefix}-before`, email: 'there-before@example.test', password: { hash: BCRYPT } },
      ];
      const sub = join(dir, `${via}-${k}`);
      rmSync(sub, { recursive: true, force: true });
      await execa('mkdir', ['-p', sub]);
      writeNdjson(join(sub, 'users.ndjson'), users);
      const before = await coreState(core);
      const args = [
        'run',
        'users.ndjson',
        '--core',
        sandbox.url,
        '--via',
        via,
        '--journal',
        'j.ndjson',
        '--concurrency',
        '8',
        '--yes',
        '--json',
      ];
      if (via === 'bulk-staged') args.push('--job-interval', '1', '--batch-size', '40');

      const child = execa(process.execPath, [BIN, ...args], { cwd: sub, reject: false, env: cleanEnv(), extendEnv: false });
      const journal = join(sub, 'j.ndjson');
      await waitFor(() => child.exitCode !== null || (existsSync(journal) && statSync(journal).size > 0), 'the journal to start');
      await sleep(killDelay(via, k));
      child.kill('SIGKILL');
      await child;

      const rerun = await cli(args, sub);
      expect(rerun.exitCode, `${via} kill ${k}: ${rerun.stderr}`).toBe(0);
      const s = summaryOf(rerun.stdout);
      expect(s.failed, `${via} kill ${k}`).toBe(0);
      expect((s.imported as number) + (s.alreadyPresent as number)).toBe(users.length);

      const undo = await cli(['rollback', '--journal', 'j.ndjson', '--yes', '--json'], sub);
      expect(undo.exitCode, `${via} kill ${k}: ${undo.stderr}`).toBe(0);
      const r = summaryOf(undo.stdout);
      // No user of the run is taken for one that was there before, or kept as changed since.
      expect({ kept: r.kept, undone: r.undone, failed: r.failed }, `${via} kill ${k}: ${undo.stdout}`).toEqual({
        kept: 0,
        undone: 0,
        failed: 0,
      });
      expect(await coreState(core), `${via} kill ${k}: the core as before the run`).toEqual(before);
    }
  }, 400_000);
});
