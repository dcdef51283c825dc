// The Keycloak reader: realm exports and `<realm>-users-N.json` files; every documented field's mapping, the
// credentials (argon2 to a PHC string, pbkdf2 to legacyPassword, otp secrets), what is dropped and why,
// broken credentials named by record, and a large realm read in bounded memory.
import { execFile } from 'node:child_process';
import { pbkdf2Sync } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { argon2Verify } from 'hash-wasm';
import base32 from 'hi-base32';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeKeycloakRealm } from '../../tools/generators/bulk-tables.js';
import { validateSources } from '../../src/records/validate.js';
import { FieldReport } from '../../src/sources/index.js';
import { collect, fixture, readUntilError, tempDir } from '../support/sources.js';

const BCRYPT = '$2a$10$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(async () => {
  await tmp.cleanup();
});

const readme = async (): Promise<string> => (await import('node:fs/promises')).readFile(fixture('README.md'), 'utf8');
/** A value the fixtures README lists in backticks after a label, e.g. the legacy password of `dee`. */
async function known(pattern: RegExp): Promise<string> {
  return pattern.exec(await readme())![1]!;
}

describe('Keycloak reader', () => {
  it('maps every documented user field of a realm export', async () => {
    const { records, all } = await collect([fixture('keycloak/realm-export.json')]);
    expect(all.filter((p) => p.severity === 'error')).toEqual([]);
    expect(records).toHaveLength(3);
    const [ann, ben, cy] = records.map((r) => r.record);
    expect(ann).toEqual({
      id: ann!.id,
      email: 'ann.kc@example.com',
      emailVerified: true,
      timeJoined: Date.UTC(2023, 5, 1, 8),
      metadata: { username: 'ann', firstName: 'Ann', lastName: 'Kay', attributes: { department: ['engineering'], locale: ['en'] } },
      roles: ['admin', 'acme-web:billing', 'group:/staff'],
      password: { hash: expect.stringMatching(/^\$argon2id\$v=19\$m=7168,t=5,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/), algorithm: 'argon2' },
      totp: [
        {
          secret: expect.stringMatching(/^[A-Z2-7]+$/),
          encoding: 'base32',
          period: 30,
          digits: 6,
          algorithm: 'SHA1',
          deviceName: 'Ann phone',
        },
      ],
    });
    // The argon2 PHC string verifies the known password; the otp secret is the base32 of the secret text.
    const annPw = await known(/ann\.kc@example\.com \| `([^`]+)`/);
    expect(await argon2Verify({ password: annPw, hash: ann!.password!.hash })).toBe(true);
    const annText = await known(/otp secret text `([^`]+)`; realm role admin/);
    expect(ann!.totp![0]!.secret).toBe(base32.encode(annText).replace(/=+$/, ''));
    expect(ben).toMatchObject({
      thirdParty: [{ providerId: 'google', userId: '104000000000000000301', email: 'ben.kc@example.com', emailVerified: true }],
      roles: ['editor'],
      totp: [{ encoding: 'base32', deviceName: 'Ben authenticator' }],
    });
    expect(ben!.password).toBeUndefined();
    expect(cy).toMatchObject({
      disabled: true,
      emailVerified: false,
      thirdParty: [{ providerId: 'github', userId: '5500401', email: 'cy.kc@example.com' }],
    });
    expect(cy!.roles).toBeUndefined(); // only default roles
    expect(cy!.password).toBeUndefined();
  });

  it('reads split user files like the realm export, and leaves service accounts out with a warning', async () => {
    const whole = await collect([fixture('keycloak/realm-export.json')]);
    const split = await collect([fixture('keycloak/acme-users-0.json'), fixture('keycloak/acme-users-1.json')]);
    expect(split.records.slice(0, 3).map((r) => r.record)).toEqual(whole.records.map((r) => r.record));
    expect(split.problems.map((p) => [p.rule, p.severity])).toEqual([['keycloak.service-account', 'warning']]);
    // pbkdf2: carried as legacyPassword, with what the app needs to check it at first sign-in.
    const [dee, eve] = split.records.slice(3).map((r) => r.record);
    expect(dee!.password).toBeUndefined();
    expect(dee!.legacyPassword).toMatchObject({ algorithm: 'pbkdf2-sha256', params: { iterations: 27500 } });
    expect(eve!.legacyPassword).toMatchObject({ algorithm: 'pbkdf2-sha512', params: { iterations: 210000 } });
    expect(eve!.thirdParty).toEqual([{ providerId: 'microsoft', userId: 'ms-eve-1', email: 'eve.kc@example.com', emailVerified: true }]);
    const deePw = await known(/legacy pbkdf2-sha256 \(27500 iterations\) password `([^`]+)`/);
    const legacy = dee!.legacyPassword!;
    expect(pbkdf2Sync(deePw, Buffer.from(legacy.salt!, 'base64'), 27500, 64, 'sha256').toString('base64')).toBe(legacy.hash);
    // The reader leaves the verdict to the validator (password.unusable under --unusable-hashes).
    expect(split.records.flatMap((r) => r.problems)).toEqual([]);
  });

  it('names what it carried and dropped, once per field', async () => {
    const fields = new FieldReport();
    await collect([fixture('keycloak/acme-users-0.json'), fixture('keycloak/acme-users-1.json')], { fields });
    const s = fields.summary();
    const mapped = Object.fromEntries(s.mapped.map((e) => [e.field, e]));
    expect(mapped['credentials (password, argon2)']).toMatchObject({ to: 'password.hash (argon2 PHC string)', records: 1 });
    expect(mapped['credentials (password, pbkdf2-sha256)']?.to).toMatch(/^legacyPassword/);
    expect(mapped['credentials (otp)']).toMatchObject({ records: 4 });
    expect(mapped['federatedIdentities']).toMatchObject({ to: 'thirdParty[]', records: 3 });
    const dropped = Object.fromEntries(s.dropped.map((e) => [e.field, e]));
    expect(dropped['realmRoles (default-roles-<realm>, offline_access, uma_authorization)']?.records).toBe(5);
    // Client roles and groups become roles (<clientId>:<role>, group:<path>); Keycloak's own clients' roles do not.
    expect(mapped['clientRoles']?.to).toMatch(/<clientId>:<role>/);
    expect(mapped['groups']?.to).toMatch(/group:<path>/);
    expect(dropped['clientRoles.account']?.reason).toMatch(/Keycloak's own clients/);
    expect(JSON.stringify(s)).not.toMatch(/secretData|"value"/);
  });

  it('TOTP the core cannot verify is an error naming the record; broken credentials are named, never echoed', async () => {
    const path = fixture('broken/keycloak-otp.json');
    const { records, problems } = await collect([path]);
    expect(problems.map((p) => [p.origin.index, p.rule])).toEqual([[4, 'source.required']]);
    const report = await validateSources([path], {});
    const ruleOf = (name: string): string[] => {
      const id = records.find((r) => (r.record.metadata as { username: string }).username === name)!.record.id;
      return report.problems.filter((p) => p.sourceId === id).map((p) => `${p.severity} ${p.field}:${p.rule}`);
    };
    expect(ruleOf('eight')).toContain('error totp[0].digits:totp.digits.unsupported');
    expect(ruleOf('sha256')).toContain('error totp[0].algorithm:totp.algorithm.unsupported');
    expect(ruleOf('hotp')).toContain('error credentials[0].credentialData.subType:keycloak.hotp');
    expect(ruleOf('garbled')).toContain('error credentials[0].secretData:source.type');
    expect(report.summary.invalid).toBe(4);
    for (const r of records) for (const p of r.problems) expect(p.sourceId).toBe(r.record.id);
  });

  it('reads the older credential layout (hashedSaltedValue) and refuses a realm file without users', async () => {
    const path = await tmp.file(
      'old.json',
      JSON.stringify({
        realm: 'old',
        users: [
          {
            id: 'o1',
            username: 'o',
            email: 'o@example.com',
            credentials: [
              { type: 'password', hashedSaltedValue: 'aGFzaA==', salt: 'c2FsdA==', hashIterations: 20000, algorithm: 'pbkdf2' },
            ],
          },
          { id: 'l1', username: 'ldap', email: 'l@example.com', federationLink: 'ldap-provider-id' },
          {
            id: 'b1',
            username: 'bcrypt-user',
            email: 'b@example.com',
            credentials: [
              {
                type: 'password',
                secretData: JSON.stringify({ value: BCRYPT, salt: '' }),
                credentialData: JSON.stringify({ hashIterations: 10, algorithm: 'bcrypt' }),
              },
            ],
          },
          {
            id: 't1',
            username: 'two-phones',
            credentials: [1, 2, 3].map((n) => ({
              type: 'otp',
              userLabel: 'Phone',
              secretData: JSON.stringify({ value: `secret-text-${n}-0123456789` }),
              credentialData: JSON.stringify({ subType: 'totp', digits: 6, period: 30, algorithm: 'HmacSHA1' }),
            })),
          },
        ],
      }),
    );
    const { records } = await collect([path]);
    expect(records[0]!.record.legacyPassword).toEqual({
      algorithm: 'pbkdf2',
      hash: 'aGFzaA==',
      salt: 'c2FsdA==',
      params: { iterations: 20000 },
    });
    // A user of an LDAP or Kerberos federation: its password is in that directory.
    expect(records[1]!.problems.map((p) => [p.rule, p.severity])).toEqual([['keycloak.federated', 'warning']]);
    // A community bcrypt provider's hash is a bcrypt string the core takes.
    expect(records[2]!.record.password).toEqual({ hash: BCRYPT, algorithm: 'bcrypt' });
    // Otp credentials sharing a label get distinct device names (the core's are unique per user).
    expect(records[3]!.record.totp!.map((t) => t.deviceName)).toEqual(['Phone', 'Phone (2)', 'Phone (3)']);
    // `kc.sh export --file` without --realm: an array of realms, each refused by name.
    const realms = await tmp.file(
      'all.json',
      JSON.stringify([
        { id: 'master', realm: 'master', users: [] },
        { id: 'acme', realm: 'acme' },
      ]),
    );
    const many = await collect([realms], { format: 'keycloak' });
    expect(many.problems.map((p) => [p.sourceId, p.rule])).toEqual([
      ['master', 'keycloak.realm-list'],
      ['acme', 'keycloak.realm-list'],
    ]);
    const realmOnly = await tmp.file('acme-realm.json', JSON.stringify({ id: 'acme', realm: 'acme', sslRequired: 'external', roles: {} }));
    expect((await readUntilError([realmOnly], { format: 'keycloak' })).error.message).toMatch(
      /acme-realm\.json is a Keycloak realm export without users .* give the <realm>-users-N\.json files instead/,
    );
  });

  it('streams a large realm export in bounded memory (32 MB of heap for a 90 MB file)', async () => {
    const path = join(tmp.dir, 'big-realm.json');
    await writeKeycloakRealm(path, 100_000);
    const script = `
      const { readSourceBatches } = await import(${JSON.stringify(new URL('../../dist/sources/index.js', import.meta.url).href)});
      let n = 0, totp = 0, legacy = 0;
      for await (const batch of readSourceBatches(process.argv.slice(1))) for (const it of batch) {
        if (it.kind !== 'record') continue;
        n++; totp += it.value.record.totp?.length ?? 0; legacy += it.value.record.legacyPassword ? 1 : 0;
      }
      console.log(JSON.stringify({ n, totp, legacy }));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--max-old-space-size=32', '--input-type=module', '-e', script, path]);
    expect(JSON.parse(stdout)).toEqual({ n: 100_000, totp: 10_000, legacy: 100_000 });
  }, 120_000);
});
