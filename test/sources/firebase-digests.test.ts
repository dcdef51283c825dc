// Firebase scrypt digests as other vendors store them (Supabase's `$fbscrypt$`, Clerk's `scrypt_firebase`), converted
// to the core's `$f_scrypt$` string: a public vector of each verifies after conversion with its project's signer key,
// exactly as the core (and the sandbox) check it; a wrong password does not; the signer key never stays in the string.
import { describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/hashes/verify.js';
import { validateSources } from '../../src/records/validate.js';
import { fromClerkScryptFirebase, fromFbscrypt } from '../../src/sources/firebase-digests.js';
import { SCRYPT_SALT, SCRYPT_USER1_HASH, SIGNER_KEY } from '../support/vectors.js';
import { tempDir } from '../support/sources.js';

// supabase/auth internal/crypto/password_test.go, TestScrypt "Firebase Scrypt: appropriate hash" (password mytestpassword).
const GOTRUE_SK = 'ou9tdYTGyYm8kuR6Dt0Bp0kDuAYoXrK16mbZO4yGwAn3oLspjnN0/c41v8xZnO1n14J3MjKj1b2g6AUCAlFwMw==';
const GOTRUE =
  `$fbscrypt$v=1,n=14,r=8,p=1,ss=Bw==,sk=${GOTRUE_SK}$C0sHCg9ek77hsg==$` +
  'zKVTMvnWVw5BBOZNUdnsalx4c4c7y/w7IS5p6Ut2+CfEFFlz37J9huyQfov4iizN8dbjvEJlM5tQaJP84+hfTw==';

describe('Firebase scrypt digests of other vendors', () => {
  it("Supabase's $fbscrypt$ (GoTrue's own test vector) verifies after conversion with its signer key", async () => {
    const d = fromFbscrypt(GOTRUE);
    if (!d.ok) throw new Error(d.why);
    expect(d.hash).toBe(
      '$f_scrypt$zKVTMvnWVw5BBOZNUdnsalx4c4c7y/w7IS5p6Ut2+CfEFFlz37J9huyQfov4iizN8dbjvEJlM5tQaJP84+hfTw==$C0sHCg9ek77hsg==$m=14$r=8$s=Bw==',
    );
    expect(d.signerKey).toBe(GOTRUE_SK);
    expect(d.hash).not.toContain(GOTRUE_SK);
    expect(await verifyPassword(d.hash, 'mytestpassword', { signerKey: d.signerKey })).toEqual({ result: 'match' });
    expect(await verifyPassword(d.hash, 'mytestpassword2', { signerKey: d.signerKey })).toEqual({ result: 'mismatch' });
    // With another project's key the same hash never verifies: why the key must be the run's.
    expect(await verifyPassword(d.hash, 'mytestpassword', { signerKey: SIGNER_KEY })).toEqual({ result: 'mismatch' });
  });

  it("Clerk's scrypt_firebase (Firebase's published sample, in Clerk's six segments) verifies after conversion", async () => {
    const d = fromClerkScryptFirebase(`${SCRYPT_USER1_HASH}$${SCRYPT_SALT}$${SIGNER_KEY}$Bw==$8$14`);
    if (!d.ok) throw new Error(d.why);
    expect(d.hash).toBe(`$f_scrypt$${SCRYPT_USER1_HASH}$${SCRYPT_SALT}$m=14$r=8$s=Bw==`);
    expect(await verifyPassword(d.hash, 'user1password', { signerKey: d.signerKey })).toEqual({ result: 'match' });
    expect(await verifyPassword(d.hash, 'hunter2', { signerKey: d.signerKey })).toEqual({ result: 'mismatch' });
    // Web-safe base64 is normalised to what the core compares.
    const webSafe = fromClerkScryptFirebase(
      `${SCRYPT_USER1_HASH.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}$${SCRYPT_SALT}$${SIGNER_KEY}$Bw==$8$14`,
    );
    expect(webSafe.ok && webSafe.hash).toBe(d.hash);
  });

  it('says why a digest cannot be converted, without quoting it', () => {
    const cases: Array<[ReturnType<typeof fromFbscrypt>, RegExp]> = [
      [fromFbscrypt(GOTRUE.replace('v=1', 'v=2')), /version 2/],
      [fromFbscrypt(GOTRUE.replace('p=1', 'p=2')), /p=2/],
      [fromFbscrypt(GOTRUE.replace(`,sk=${GOTRUE_SK}`, '')), /no signer key/],
      [fromFbscrypt('$fbscrypt$nonsense'), /is not/],
      [fromClerkScryptFirebase('a$b$c'), /3 segments/],
      [fromClerkScryptFirebase(`${SCRYPT_USER1_HASH}$${SCRYPT_SALT}$${SIGNER_KEY}$Bw==$eight$14`), /whole numbers/],
    ];
    for (const [d, why] of cases) {
      expect(d.ok).toBe(false);
      if (!d.ok) {
        expect(d.why).toMatch(why);
        expect(d.why).not.toContain(GOTRUE_SK.slice(0, 12));
      }
    }
  });

  it("a digest made with another signer key than the run's is its user's error; with none given, the first digest's key rules", async () => {
    const tmp = await tempDir();
    const clerk = (id: string, key: string): string =>
      `${id},${id}@clerk.example,${id}@clerk.example,${SCRYPT_USER1_HASH}$${SCRYPT_SALT}$${key}$Bw==$8$14,scrypt_firebase`;
    const other = Buffer.alloc(64, 7).toString('base64');
    const path = await tmp.file(
      'users.csv',
      [
        'id,primary_email_address,verified_email_addresses,password_digest,password_hasher',
        clerk('u1', SIGNER_KEY),
        clerk('u2', other),
      ].join('\n'),
    );
    const errorsOf = async (signerKey?: string): Promise<string[]> =>
      (await validateSources([path], { signerKey })).problems.filter((p) => p.severity === 'error').map((p) => `${p.sourceId} ${p.rule}`);
    expect(await errorsOf(SIGNER_KEY)).toEqual(['u2 password.scrypt.signer-key']);
    expect(await errorsOf(other)).toEqual(['u1 password.scrypt.signer-key']);
    expect(await errorsOf(undefined)).toEqual(['u2 password.scrypt.signer-key']);
    const report = await validateSources([path], { signerKey: SIGNER_KEY });
    expect(JSON.stringify(report.problems)).not.toContain(other.slice(0, 20));
    expect(JSON.stringify(report.problems)).not.toContain(SIGNER_KEY.slice(0, 20));
    await tmp.cleanup();
  });
});
