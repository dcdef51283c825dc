// On a live core (issue 13): a rerun never gives a user the export's old password back (unless asked with
// --update-existing), and mangled answers (a 200 that is not JSON, after the core applied the write) need no
// manual resume: every user exactly once, with exact counts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { startFaultProxy } from '../support/fault-proxy.js';
import { allUsers, cli, client, LICENSE, summaryOf } from '../support/cli.js';
import { generateUsers, SCRYPT_SIGNER_KEY, writeNdjson } from '../support/users.js';

let dir: string;
let sandbox: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-live-'));
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE, signerKey: SCRYPT_SIGNER_KEY });
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a rerun after users changed their password', () => {
  it('keeps the new password by default; --update-existing puts the export hash back, as asked', async () => {
    const oldHash = bcrypt.hashSync('old-Password1', 4);
    writeFileSync(join(dir, 'pw.ndjson'), JSON.stringify({ id: 'pw1', email: 'changer@example.test', password: { hash: oldHash } }) + '\n');
    const first = await cli(['run', 'pw.ndjson', '--core', sandbox.url, '--yes', '--journal', 'pw-1.journal.ndjson', '--json'], dir);
    expect(summaryOf(first.stdout)).toMatchObject({ imported: 1 });
    const core = client(sandbox.url);
    const signedIn = await core.signIn('changer@example.test', 'old-Password1');
    expect(signedIn.status).toBe('OK');
    if (signedIn.status !== 'OK') return;
    // The user changes their password in the new system.
    const changed = await core.raw({
      method: 'PUT',
      path: '/recipe/user',
      scope: 'app',
      body: { recipeUserId: signedIn.recipeUserId, password: 'new-Password2' },
    });
    expect(JSON.parse(changed.text)).toEqual({ status: 'OK' });
    // A delta run with a new journal: found first, left unchanged.
    const rerun = await cli(['run', 'pw.ndjson', '--core', sandbox.url, '--yes', '--journal', 'pw-2.journal.ndjson', '--json'], dir);
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    expect(summaryOf(rerun.stdout)).toMatchObject({ imported: 0, alreadyPresent: 1 });
    expect((await core.signIn('changer@example.test', 'new-Password2')).status).toBe('OK');
    expect((await core.signIn('changer@example.test', 'old-Password1')).status).toBe('WRONG_CREDENTIALS_ERROR');
    // Asked for: the export's hash replaces the current one.
    const update = await cli(
      ['run', 'pw.ndjson', '--core', sandbox.url, '--yes', '--journal', 'pw-3.journal.ndjson', '--update-existing', '--json'],
      dir,
    );
    expect(update.exitCode, update.stderr).toBe(0);
    expect((await core.signIn('changer@example.test', 'old-Password1')).status).toBe('OK');
    core.close();
  });
});

describe('a 200 that is not JSON, after the core applied the write', () => {
  it('at 1% of requests: no manual resume, every user exactly once, exact counts', async () => {
    const store = await startSandbox({ store: join(dir, 'garbled.json'), licenseKey: LICENSE, signerKey: SCRYPT_SIGNER_KEY });
    const proxy = await startFaultProxy({ target: store.url, faultRate: 0.01, seed: 5, faults: ['garbage-after-forward'] });
    try {
      const set = generateUsers(600, { prefix: 'gb' });
      writeNdjson(join(dir, 'garbled.ndjson'), set.users);
      const r = await cli(
        ['run', 'garbled.ndjson', '--core', proxy.url, '--yes', '--concurrency', '12', '--journal', 'garbled.journal.ndjson', '--json'],
        dir,
      );
      expect(r.exitCode, r.stderr.slice(-1500)).toBe(0);
      expect(summaryOf(r.stdout)).toMatchObject({ total: 600, imported: 600, alreadyPresent: 0, failed: 0 });
      expect(proxy.stats.faults['garbage-after-forward']).toBeGreaterThan(10);
      expect((await allUsers(client(store.url))).length).toBe(600);
      const v = await cli(['verify', 'garbled.ndjson', '--core', store.url, '--json'], dir);
      expect(summaryOf(v.stdout)).toMatchObject({ total: 600, ok: 600 });
    } finally {
      await proxy.stop();
      await store.stop();
    }
  });
});
