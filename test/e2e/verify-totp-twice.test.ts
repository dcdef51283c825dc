// verify --totp-codes run again and again (issue 13): never a false mismatch from the core's replay protection,
// and never more than one failed attempt per device and run; a wrong secret is still found.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { cli, client, LICENSE, summaryOf } from '../support/cli.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const SECRET = 'JBSWY3DPEHPK3PXP';
let dir: string;
let sandbox: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-totp2-'));
  const users = [0, 1, 2, 3].map((i) => ({
    id: `t${i}`,
    email: `t${i}@example.test`,
    password: { hash: BCRYPT },
    totp: [{ secret: SECRET, deviceName: 'phone' }],
  }));
  writeFileSync(join(dir, 'users.ndjson'), users.map((u) => JSON.stringify(u)).join('\n') + '\n');
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE });
  expect((await cli(['run', 'users.ndjson', '--core', sandbox.url, '--yes', '--journal', 'j.ndjson', '--json'], dir)).exitCode).toBe(0);
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('verify --totp-codes, repeated', () => {
  it('four runs in a row all pass, and the spent steps are kept 0600 with no code or secret', async () => {
    for (let run = 0; run < 4; run++) {
      const v = await cli(
        ['verify', 'users.ndjson', '--core', sandbox.url, '--journal', 'j.ndjson', '--totp-codes', '--limit', '3', '--json'],
        dir,
      );
      expect(v.exitCode, `run ${run}: ${v.stdout}`).toBe(0);
      expect(summaryOf(v.stdout)).toMatchObject({ total: 3, ok: 3, mismatch: 0 });
    }
    const log = join(dir, 'j.ndjson.totp-checks.ndjson');
    expect(statSync(log).mode & 0o777).toBe(0o600);
    expect(readFileSync(log, 'utf8')).not.toContain(SECRET);
  });

  it('a device whose secret differs is reported, with one failed attempt counted', async () => {
    const core = client(sandbox.url);
    const u = await core.listUsersByAccountInfo({ email: 't3@example.test' });
    const id = u.users[0]!.id;
    await core.removeTotpDevice(id, 'phone');
    await core.importTotpDevice({ userId: id, deviceName: 'phone', secretKey: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', period: 30, skew: 1 });
    // t3's device was never checked: its code is fresh, so a refusal means the secret differs.
    const v = await cli(
      ['verify', 'users.ndjson', '--core', sandbox.url, '--journal', 'j.ndjson', '--totp-codes', '--only', 't3', '--json'],
      dir,
    );
    expect(v.exitCode).toBe(1);
    expect(summaryOf(v.stdout)).toMatchObject({ total: 1, ok: 0, mismatch: 1 });
    expect(v.stdout).toMatch(/refused \(INVALID_TOTP_ERROR; one failed attempt counted for this user\)/);
    core.close();
  });
});
