// The generators: hashes that verify (and match the public scrypt vector), deterministic output, and the
// bulk writers whose files read back cleanly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { argon2Hash, bcryptHash, firebaseScryptHash } from '../../tools/generators/hashes.js';
import { createRng } from '../../src/shared/rng.js';
import { generateSecret, otpauthUri, totpCsv } from '../../tools/generators/totp.js';
import { writeCanonicalNdjson, writeFirebaseExport } from '../../tools/generators/bulk.js';
import { verifyPassword } from '../../src/hashes/verify.js';
import { toBase32Secret } from '../../src/records/secrets.js';
import { parseHashConfig } from '../../src/sources/index.js';
import { collect, tempDir } from '../support/sources.js';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(async () => {
  await tmp.cleanup();
});

describe('generated hashes', () => {
  it('reproduce the public Firebase scrypt sample', async () => {
    const hash = await firebaseScryptHash('user1password', Buffer.from('42xEC+ixf3L2lw==', 'base64'), {
      signerKey: 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==',
      saltSeparator: 'Bw==',
      rounds: 8,
      memCost: 14,
    });
    expect(hash).toBe('lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==');
  });

  it('bcrypt and argon2 verify, and the same seed gives the same hash', async () => {
    const b = bcryptHash('pw-1', createRng(9));
    expect(b).toBe(bcryptHash('pw-1', createRng(9)));
    expect(b).not.toBe(bcryptHash('pw-1', createRng(10)));
    expect(await verifyPassword(b, 'pw-1')).toEqual({ result: 'match' });
    const a = await argon2Hash('pw-2', createRng(9));
    expect(a).toMatch(/^\$argon2id\$v=19\$m=1024,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    expect(await verifyPassword(a, 'pw-2')).toEqual({ result: 'match' });
  });

  it('secrets in each encoding decode to the same base32, and lists carry them', () => {
    for (const encoding of ['base32', 'base64', 'hex'] as const) {
      const s = generateSecret(createRng(3), encoding);
      expect(toBase32Secret(s.secret, encoding)).toBe(s.base32);
    }
    expect(totpCsv([{ email: 'a@example.com', secret: 'AB', deviceName: 'x, "y"' }])).toBe(
      'email,secret,encoding,period,skew,deviceName\na@example.com,AB,,,,"x, ""y"""\n',
    );
    expect(otpauthUri({ account: 'a@example.com', secretBase32: 'AB', issuer: 'My Co' })).toBe(
      'otpauth://totp/My%20Co:a%40example.com?secret=AB&issuer=My+Co',
    );
  });
});

describe('bulk writers', () => {
  it('write a Firebase export that reads back with its hash config, passwords from the pool verifying', async () => {
    const path = `${tmp.dir}/fb.json`;
    const info = await writeFirebaseExport(path, 1000);
    const hashConfig = parseHashConfig(await readFile(info.hashConfigPath!, 'utf8'));
    const { records, all } = await collect([path], { hashConfig });
    expect(all).toEqual([]);
    expect(records).toHaveLength(1000);
    const withPassword = records.filter((r) => r.record.password);
    expect(withPassword.length).toBe(800);
    expect(records.filter((r) => r.record.phoneNumber)).toHaveLength(50);
    expect(records.filter((r) => r.record.otpFactors?.phoneNumber)).toHaveLength(100);
    const first = withPassword[0]!.record;
    const entry = info.pools.external_scrypt[0]!;
    expect(first.password!.hash).toBe(entry.hash);
    expect(await verifyPassword(first.password!.hash, entry.password, { signerKey: hashConfig.signerKey })).toEqual({ result: 'match' });
  });

  it('write canonical NDJSON in the benchmark mix', async () => {
    const path = `${tmp.dir}/c.ndjson`;
    const info = await writeCanonicalNdjson(path, 2000);
    expect(parseHashConfig(await readFile(info.hashConfigPath!, 'utf8')).signerKey).toBe(info.scrypt.signerKey);
    const { records, all } = await collect([path]);
    expect(all).toEqual([]);
    expect(records).toHaveLength(2000);
    const share = (f: (r: (typeof records)[number]) => unknown): number => records.filter(f).length / records.length;
    expect(share((r) => r.record.password)).toBeGreaterThan(0.55);
    expect(share((r) => r.record.password)).toBeLessThan(0.65);
    expect(share((r) => r.record.thirdParty)).toBeGreaterThan(0.15);
    expect(share((r) => r.record.totp)).toBeGreaterThan(0.1);
    expect(share((r) => r.record.otpFactors)).toBeGreaterThan(0.06);
    for (const algorithm of ['bcrypt', 'argon2', 'external_scrypt'] as const) {
      const user = records.find((r) => r.record.password?.algorithm === algorithm)!.record;
      const entry = info.pools[algorithm].find((p) => p.hash === user.password!.hash)!;
      expect(await verifyPassword(user.password!.hash, entry.password, { signerKey: info.scrypt.signerKey })).toEqual({ result: 'match' });
    }
    expect(await readFile(path, 'utf8')).toBe(
      await (async () => {
        await writeCanonicalNdjson(`${tmp.dir}/c2.ndjson`, 2000);
        return readFile(`${tmp.dir}/c2.ndjson`, 'utf8');
      })(),
    );
  });
});
