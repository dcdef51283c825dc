import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { parseHashConfig, type HashConfig } from '../../src/sources/index.js';
import { verifyPassword } from '../../src/hashes/verify.js';
import { byId, collect, fixture, readUntilError, tempDir } from '../support/sources.js';

// The public sample of firebase/scrypt (shared/formats.md), with the web-safe base64 the Admin SDK gives.
const SAMPLE: HashConfig = {
  signerKey: 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==',
  saltSeparator: 'Bw==',
  rounds: 8,
  memCost: 14,
};
const USER1_HASH = 'lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==';

let tmp: Awaited<ReturnType<typeof tempDir>>;
let hashConfig: HashConfig;
beforeAll(async () => {
  tmp = await tempDir();
  hashConfig = parseHashConfig(await readFile(fixture('firebase/hash-config.txt'), 'utf8'));
});
afterAll(async () => {
  await tmp.cleanup();
});

describe('Firebase reader', () => {
  it('maps the fixture export: scrypt strings, providers, phone sign-in, SMS factor, createdAt', async () => {
    const { records, all } = await collect([fixture('firebase/export.json')], { hashConfig });
    expect(all).toEqual([]);
    const users = byId(records);
    expect([...users.keys()]).toEqual(['fb-ann', 'fb-ben', 'fb-col', 'fb-dot', 'fb-eli', 'fb-fox']);
    const ann = users.get('fb-ann')!.record;
    expect(ann.password?.algorithm).toBe('external_scrypt');
    expect(ann.password?.hash).toMatch(/^\$f_scrypt\$[A-Za-z0-9+/]+=*\$[A-Za-z0-9+/]+=*\$m=14\$r=8\$s=Bw==$/);
    expect(ann.timeJoined).toBe(Date.UTC(2022, 5, 1));
    expect(ann.thirdParty).toBeUndefined(); // the `password` provider is not a third party
    expect(users.get('fb-ben')!.record.thirdParty).toEqual([
      { providerId: 'google', userId: '108000000000000000201', email: 'ben@example.com', emailVerified: true },
    ]);
    expect(users.get('fb-dot')!.record).toMatchObject({ phoneNumber: '+14155550201' });
    expect(users.get('fb-dot')!.record.thirdParty).toBeUndefined();
    expect(users.get('fb-eli')!.record.otpFactors).toEqual({ phoneNumber: '+14155550202' });
    expect(users.get('fb-fox')!.record.thirdParty?.map((t) => t.providerId)).toEqual(['github', 'facebook']);
  });

  it('gives the same records for the web-safe export with the JSON hash config', async () => {
    const jsonConfig = parseHashConfig(await readFile(fixture('firebase/hash-config.json'), 'utf8'));
    expect(jsonConfig).toEqual(hashConfig);
    const safe = await collect([fixture('firebase/export-websafe.json')], { hashConfig: jsonConfig });
    const standard = await collect([fixture('firebase/export.json')], { hashConfig });
    expect(safe.records.map((r) => r.record)).toEqual(standard.records.map((r) => r.record));
  });

  it('builds the public sample vector from a web-safe passwordHash and salt, and it verifies', async () => {
    const websafe = (s: string): string => s.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    const path = await tmp.file(
      'sample.json',
      JSON.stringify({
        users: [{ localId: 's1', email: 's@example.com', passwordHash: websafe(USER1_HASH), salt: websafe('42xEC+ixf3L2lw==') }],
      }),
    );
    const { records } = await collect([path], { hashConfig: SAMPLE });
    const hash = records[0]!.record.password!.hash;
    expect(hash).toBe(`$f_scrypt$${USER1_HASH}$42xEC+ixf3L2lw==$m=14$r=8$s=Bw==`);
    expect(await verifyPassword(hash, 'user1password', { signerKey: SAMPLE.signerKey })).toEqual({ result: 'match' });
  });

  it('says to pass --hash-config when hashes come without one', async () => {
    const { records } = await collect([fixture('firebase/export.json')], { format: 'firebase' });
    const ann = byId(records).get('fb-ann')!;
    expect(ann.record.password).toBeUndefined();
    expect(ann.problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        rule: 'firebase.hash-config-missing',
        field: 'passwordHash',
        sourceId: 'fb-ann',
        message: expect.stringContaining('pass --hash-config'),
      }),
    ]);
    expect(byId(records).get('fb-col')!.problems).toEqual([]);
  });

  it('warns about a TOTP factor without a secret and marks disabled users', async () => {
    const { records } = await collect([fixture('firebase/with-warnings.json')], { hashConfig });
    expect(records[0]!.record.disabled).toBe(true);
    expect(records[0]!.problems.map((p) => [p.severity, p.rule, p.field])).toEqual([
      ['warning', 'firebase.totp-without-secret', 'mfaInfo[0].totpInfo'],
    ]);
  });

  it('uses the provider map with overrides, and warns about unmapped providers', async () => {
    const path = await tmp.file(
      'prov.json',
      JSON.stringify({
        users: [
          {
            localId: 'p',
            providerUserInfo: [
              { providerId: 'google.com', rawId: 'g' },
              { providerId: 'oidc.corp', rawId: 'o' },
              { providerId: 'saml.x', rawId: 's' },
            ],
          },
        ],
      }),
    );
    const { records } = await collect([path], { providerMap: { 'google.com': 'google-workspace', 'oidc.corp': 'corp' } });
    expect(records[0]!.record.thirdParty?.map((t) => `${t.providerId}:${t.userId}`)).toEqual(['google-workspace:g', 'corp:o', 'saml.x:s']);
    expect(records[0]!.problems.map((p) => [p.rule, p.field])).toEqual([['source.provider-unmapped', 'providerUserInfo[2].providerId']]);
  });

  it('reports a missing salt, a bad createdAt and wrong types', async () => {
    const path = await tmp.file(
      'odd.json',
      JSON.stringify({
        users: [
          {
            localId: 'o',
            passwordHash: 'abcd',
            createdAt: 'yesterday',
            emailVerified: 'true',
            mfaInfo: [{ phoneInfo: '+14155550100' }, { phoneInfo: '+14155550101' }],
          },
          { email: 'no-id@example.com' },
        ],
      }),
    );
    const { records, problems } = await collect([path], { hashConfig });
    expect(records[0]!.problems.map((p) => [p.severity, p.field])).toEqual([
      ['error', 'emailVerified'],
      ['error', 'salt'],
      ['warning', 'mfaInfo[1].phoneInfo'],
      ['warning', 'createdAt'],
    ]);
    expect(records[0]!.record.otpFactors).toEqual({ phoneNumber: '+14155550100' });
    expect(problems).toEqual([expect.objectContaining({ field: 'localId', rule: 'source.required', origin: { file: path, index: 1 } })]);
  });

  it('fails on a truncated export after the users before the cut', async () => {
    const { error, records } = await readUntilError([fixture('broken/firebase-truncated.json')], { hashConfig, format: 'firebase' });
    expect(records.length).toBeGreaterThan(0);
    expect(error.message).toMatch(/firebase-truncated\.json: the JSON ends early at byte \d+ \(line \d+\)/);
  });

  it('reads a gzip-compressed export', async () => {
    const { gzipSync } = await import('node:zlib');
    const path = await tmp.file('export.json.gz', gzipSync(await readFile(fixture('firebase/export.json'))));
    const gz = await collect([path], { hashConfig });
    const plain = await collect([fixture('firebase/export.json')], { hashConfig });
    expect(gz.records.map((r) => r.record)).toEqual(plain.records.map((r) => r.record));
  });

  it('fails on an object without a users array', async () => {
    const { error } = await readUntilError([fixture('broken/firebase-no-users.json')], { format: 'firebase' });
    expect(error.message).toMatch(/no "users" array/);
  });

  it('reads one huge single-line export in small chunks (streaming)', async () => {
    const users = Array.from({ length: 3000 }, (_, i) => ({
      localId: `u${i}`,
      email: `u${i}@example.com`,
      providerUserInfo: [{ providerId: 'github.com', rawId: String(i) }],
    }));
    const path = await tmp.file('big.json', JSON.stringify({ users }));
    const { records, all } = await collect([path]);
    expect(all).toEqual([]);
    expect(records.length).toBe(3000);
    expect(records[2999]!.record.thirdParty).toEqual([{ providerId: 'github', userId: '2999', email: 'u2999@example.com' }]);
  });
});

describe('parseHashConfig', () => {
  const block = `hash_config {\n  algorithm: SCRYPT,\n  base64_signer_key: ${SAMPLE.signerKey},\n  base64_salt_separator: Bw==,\n  rounds: 8,\n  mem_cost: 14,\n}`;

  it.each([
    ['the console block', block],
    ['the block on one line, CRLF and a BOM', '\uFEFF' + block.replace(/\n/g, '\r\n')],
    [
      'the block without the wrapper',
      'algorithm: SCRYPT, base64_signer_key: "' + SAMPLE.signerKey + '", base64_salt_separator: Bw==, rounds: 8, mem_cost: 14',
    ],
    [
      'snake_case JSON',
      JSON.stringify({ algorithm: 'SCRYPT', base64_signer_key: SAMPLE.signerKey, base64_salt_separator: 'Bw==', rounds: 8, mem_cost: 14 }),
    ],
    [
      'camelCase JSON (Admin API)',
      JSON.stringify({
        hashConfig: { algorithm: 'SCRYPT', signerKey: SAMPLE.signerKey, saltSeparator: 'Bw', rounds: '8', memoryCost: 14 },
      }),
    ],
  ])('reads %s', (_name, text) => {
    expect(parseHashConfig(text)).toEqual(SAMPLE);
  });

  it('accepts a config without a signer key (only the spot-check needs it)', () => {
    expect(parseHashConfig('base64_salt_separator: Bw==, rounds: 8, mem_cost: 14')).toEqual({
      saltSeparator: 'Bw==',
      rounds: 8,
      memCost: 14,
    });
  });

  it.each([
    ['', /empty/],
    ['algorithm: ROT13, rounds: 8', /is not one Firebase uses/],
    ['algorithm: SCRYPT, rounds: 8, base64_signer_key: abc', /no base64_salt_separator, mem_cost/],
    ['base64_salt_separator: Bw==, rounds: eight, mem_cost: 14', /rounds must be a whole number/],
    ['{"rounds": 8', /not valid JSON/],
    ['nothing here', /no "name: value" pairs/],
    ['base64_signer_key: not*base64, base64_salt_separator: Bw==, rounds: 8, mem_cost: 14', /base64_signer_key is not base64/],
  ])('refuses %j with a message', (text, pattern) => {
    expect(() => parseHashConfig(text)).toThrow(pattern);
  });

  it('never puts the signer key in a message', () => {
    let message: string | undefined;
    try {
      parseHashConfig(`base64_signer_key: ${SAMPLE.signerKey}, rounds: 8`);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/\w/);
    expect(message).not.toContain(SAMPLE.signerKey!.slice(0, 10));
  });
});

describe('Firebase profile fields', () => {
  it('carries displayName, photoUrl, lastSignedInAt and the custom claims (parsed) into metadata', async () => {
    const { records, all } = await collect([fixture('firebase/export.json')], { hashConfig });
    expect(all).toEqual([]);
    const ann = byId(records).get('fb-ann')!.record;
    expect(ann.metadata).toEqual({
      displayName: 'Ann Archer',
      photoUrl: 'https://example.com/photos/ann.jpg',
      lastSignedInAt: 1656633600000,
      customAttributes: { plan: 'pro', admin: true },
    });
    expect(ann.timeJoined).toBe(1654041600000);
    // A user with nothing but a displayName gets only that.
    expect(byId(records).get('fb-col')!.record.metadata).toEqual({ displayName: 'Col' });
    expect(byId(records).get('fb-dot')!.record.metadata).toBeUndefined();
  });

  it('names custom claims that are not a JSON object, and leaves them out', async () => {
    const tmp = await tempDir();
    try {
      const users = [
        { localId: 'c1', email: 'c1@example.com', customAttributes: '{"plan":' },
        { localId: 'c2', email: 'c2@example.com', customAttributes: '[1,2]', displayName: 7 },
      ];
      const path = await tmp.file('claims.json', JSON.stringify({ users }));
      const { records } = await collect([path], { hashConfig });
      const [c1, c2] = [byId(records).get('c1')!, byId(records).get('c2')!];
      expect(c1.record.metadata).toBeUndefined();
      expect(c1.problems).toEqual([expect.objectContaining({ sourceId: 'c1', field: 'customAttributes', rule: 'source.json-field' })]);
      expect(c1.problems[0]!.message).not.toContain('plan');
      expect(c2.record.metadata).toBeUndefined();
      expect(c2.problems.map((p) => p.field).sort()).toEqual(['customAttributes', 'displayName']);
    } finally {
      await tmp.cleanup();
    }
  });
});
