// Done-when of issue 9: `run` of a Firebase export with scrypt hashes succeeds with default flags against a core
// that answers `external_scrypt` with 400 "Unsupported password hashing algorithm" (the reference core: a proxy in
// front of the sandbox answers as it does), and users sign in with their passwords; a core without the signer key
// is refused before any write.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { startReferenceNamesProxy, type ReferenceNamesProxy } from '../support/reference-names-proxy.js';
import { allUsers, cli, client, LICENSE, summaryOf } from '../support/cli.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const EXPORT = join(FIXTURES, 'firebase/export.json');
const HASH_CONFIG = join(FIXTURES, 'firebase/hash-config.txt');
const SIGNER = /base64_signer_key\s+(\S+)/.exec(readFileSync(join(FIXTURES, 'README.md'), 'utf8'))![1]!;

let dir: string;
let sandbox: RunningSandbox;
let reference: ReferenceNamesProxy;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-ref-'));
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE, signerKey: SIGNER });
  reference = await startReferenceNamesProxy(sandbox.url);
});
afterAll(async () => {
  await reference?.stop();
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a core that knows the scrypt variant only as firebase_scrypt', () => {
  it('run with default flags learns the name in the preflight and imports every scrypt user; they sign in', async () => {
    const r = await cli(
      ['run', EXPORT, '--hash-config', HASH_CONFIG, '--core', reference.url, '--yes', '--journal', 'j.ndjson', '--json'],
      dir,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('the core takes external scrypt hashes as "firebase_scrypt"');
    const s = summaryOf(r.stdout);
    expect(s).toMatchObject({ failed: 0, skipped: 0 });
    expect(s.imported).toBe(s.total);
    // Only the preflight's probe met the refusal: every import sent the name the core takes.
    expect(reference.refused).toBe(1);
    const core = client(sandbox.url);
    expect((await core.signIn('ann@example.com', 'ann-ScBeUCCj')).status).toBe('OK');
    expect((await core.signIn('ann@example.com', 'not-her-password')).status).toBe('WRONG_CREDENTIALS_ERROR');
    core.close();
  });

  it('a core without the signer key is refused before any write', async () => {
    const unsigned = await startSandbox({ store: join(dir, 'unsigned.json'), licenseKey: LICENSE });
    try {
      // The hash config holds the signer key, but the core does not: the target is what matters.
      const r = await cli(
        ['run', EXPORT, '--hash-config', HASH_CONFIG, '--core', unsigned.url, '--yes', '--journal', 'u.ndjson', '--json'],
        dir,
      );
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/nothing was written: .*signer key/);
      expect(await allUsers(client(unsigned.url))).toEqual([]);
    } finally {
      await unsigned.stop();
    }
  });
});
