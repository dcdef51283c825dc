// The wizard applies --unusable-hashes and --disabled as run does: the same validation and plan through the real
// services (issue 10: "an option in the wizard and headless").
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRealServices } from '../../src/ui/services/real.js';

/** plan() reads no target: it plans locally. */
const NO_TARGET = { url: 'http://127.0.0.1:1' };
const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-ui-policies-'));
  const users = [
    {
      id: 'md5',
      email: 'md5@example.test',
      password: { hash: '5f4dcc3b5aa765d61d8327deb882cf99' },
      thirdParty: [{ providerId: 'google', userId: 'g1' }],
    },
    { id: 'off', email: 'off@example.test', password: { hash: BCRYPT }, disabled: true },
    { id: 'ok', email: 'ok@example.test', password: { hash: BCRYPT } },
  ];
  writeFileSync(join(dir, 'users.ndjson'), users.map((u) => JSON.stringify(u)).join('\n') + '\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('wizard policies', () => {
  it('unusable hashes: skip makes the md5 user invalid; without-password keeps it valid without its password', async () => {
    const services = createRealServices({ cwd: dir, env: {} });
    const input = { sources: [{ path: 'users.ndjson', format: 'canonical' }] };
    const skip = await services.validate(input, () => {});
    expect([skip.summary.valid, skip.summary.invalid]).toEqual([2, 1]);
    expect(skip.summary.unusableHashes).toMatchObject({ policy: 'skip', users: 1 });
    const kept = await services.validate({ ...input, unusableHashes: 'without-password' }, () => {});
    expect([kept.summary.valid, kept.summary.invalid]).toEqual([3, 0]);
    expect(kept.summary.unusableHashes).toMatchObject({ policy: 'without-password', users: 1 });
  });

  it('disabled users: left out by default, planned with the role under role:NAME', async () => {
    const services = createRealServices({ cwd: dir, env: {} });
    const input = { sources: [{ path: 'users.ndjson', format: 'canonical' }], unusableHashes: 'without-password' as const };
    const skip = await services.plan(input, NO_TARGET);
    const role = await services.plan({ ...input, disabled: 'role:blocked' }, NO_TARGET);
    expect(role.users).toBe(skip.users + 1);
    expect(role.calls.map((c) => c.what).join(' ')).toContain('PUT /recipe/role');
  });
});

describe('wizard preview', () => {
  it('carries the fields a reader could not carry (the preview names them, as validate does)', async () => {
    const services = createRealServices({ cwd: process.cwd(), env: {} });
    const r = await services.validate({ sources: [{ path: 'fixtures/clerk/users.csv' }] }, () => {});
    expect(r.summary.fields?.dropped.length).toBeGreaterThan(0);
    for (const d of r.summary.fields!.dropped) expect(d.records).toBeGreaterThan(0);
  });
});

describe('wizard exit code after a refused preflight', () => {
  it('is 2, as run exits when its preflight refuses the target; a later passing preflight clears it', async () => {
    const { startSandbox } = await import('../../src/sandbox/spawn.js');
    const { CANONICAL, SIGNER_KEY } = await import('../support/fixture.js');
    const sb = await startSandbox({ signerKey: SIGNER_KEY });
    try {
      const services = createRealServices({ cwd: process.cwd(), env: {} });
      const input = { sources: [{ path: CANONICAL }], signerKey: SIGNER_KEY };
      expect(services.exitCode()).toBe(0);
      // The canonical fixture holds TOTP devices and linked users; a sandbox without a licence refuses the plan.
      const refused = await services.preflight({ url: sb.url }, input);
      expect(refused.ok).toBe(false);
      expect(services.exitCode()).toBe(2);
      const passed = await services.preflight({ url: sb.url }, { sources: [{ path: 'fixtures/auth0/passwords.ndjson' }] });
      expect(passed.ok).toBe(true);
      expect(services.exitCode()).toBe(0);
    } finally {
      await sb.stop();
    }
  });
});
