// A damaged companion row, end to end (issue 21): Supabase's mfa_factors.csv cut inside fay's TOTP row. The first run
// leaves fay waiting (an error of hers, by the row's user_id) and imports the others whole; the same command with the
// file fixed imports fay with her password and her TOTP device, and nobody twice. Before, fay was imported without
// her TOTP and the fixed rerun said "already present" and added nothing.
import { createHmac } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import base32 from 'hi-base32';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { allUsers, cli, client, LICENSE, summaryOf } from '../support/cli.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const readme = readFileSync(join(FIXTURES, 'README.md'), 'utf8');
const SIGNER_KEY = /base64_signer_key\s+(\S+)/.exec(readme)![1]!;
const FAY_PASSWORD = /\| fay\.sb@example\.com \| `([^`]+)`/.exec(readme)![1]!;

/** RFC 6238 (HMAC-SHA1, 6 digits, 30 s), independent of the workbench's own code. */
function totp(key: Buffer, now = Date.now()): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(now / 30_000)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

let dir: string;
let sandbox: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-damaged-'));
  for (const t of ['users', 'identities', 'mfa_factors']) copyFileSync(join(FIXTURES, `supabase/${t}.csv`), join(dir, `${t}.csv`));
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE, signerKey: SIGNER_KEY });
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a damaged companion row', () => {
  it('leaves its user waiting, whole; the fixed file completes it on the next run', async () => {
    const factors = readFileSync(join(dir, 'mfa_factors.csv'), 'utf8');
    const rows = factors.trimEnd().split('\n');
    const fayRow = rows.at(-1)!;
    const [, fayId, , , , secret] = fayRow.split(',') as string[];
    // The file ends inside fay's secret: 6 of 8 cells.
    writeFileSync(join(dir, 'mfa_factors.csv'), [...rows.slice(0, -1), fayRow.slice(0, fayRow.indexOf(secret!) + 10)].join('\n'));
    const command = [
      'run',
      ...['users', 'identities', 'mfa_factors'].map((t) => join(dir, `${t}.csv`)),
      '--hash-config',
      join(FIXTURES, 'firebase/hash-config.txt'),
      '--core',
      sandbox.url,
      '--yes',
      '--keep-source-ids',
      '--disabled',
      'import',
      '--journal',
      'sb.journal.ndjson',
      '--json',
    ];
    const first = await cli(command, dir, { AUTH_MIGRATE_LICENSE_KEY: LICENSE });
    expect(first.exitCode, first.stderr).toBe(1);
    expect(summaryOf(first.stdout)).toMatchObject({ total: 6, imported: 5, skipped: 1, failed: 0 });
    const report = readFileSync(join(dir, 'sb.report.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; outcome: string; status?: string; message?: string });
    expect(report.find((r) => r.id === fayId)).toMatchObject({ outcome: 'skipped', status: 'source.csv' });
    const core = client(sandbox.url);
    // Not imported at all: never a fay without her TOTP device.
    expect((await allUsers(core)).some((u) => u.id === fayId)).toBe(false);
    expect((await core.signIn('fay.sb@example.com', FAY_PASSWORD)).status).toBe('WRONG_CREDENTIALS_ERROR');

    // The file fixed, the same command: fay comes in with her password and TOTP device, the others stay as they were.
    writeFileSync(join(dir, 'mfa_factors.csv'), factors);
    const second = await cli(command, dir, { AUTH_MIGRATE_LICENSE_KEY: LICENSE });
    expect(second.exitCode, second.stderr).toBe(0);
    expect(summaryOf(second.stdout)).toMatchObject({ total: 6, imported: 1, alreadyPresent: 5, failed: 0, skipped: 0 });
    expect((await core.signIn('fay.sb@example.com', FAY_PASSWORD)).status).toBe('OK');
    expect((await core.verifyTotp(fayId!, totp(Buffer.from(base32.decode.asBytes(secret!))))).status).toBe('OK');
    expect(await allUsers(core)).toHaveLength(6);
    core.close();
  }, 120_000);
});
