// The canonical fixture set and its documented secrets (fixtures/README.md), read for the wizard tests.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const CANONICAL = `${REPO}fixtures/canonical/users.ndjson`;
export const HASH_CONFIG_TEXT = readFileSync(`${REPO}fixtures/firebase/hash-config.txt`, 'utf8');
export const SIGNER_KEY = (JSON.parse(readFileSync(`${REPO}fixtures/firebase/hash-config.json`, 'utf8')) as { base64_signer_key: string })
  .base64_signer_key;
export const PASSWORDS = { ada: 'ada-StrF2LDv', bob: 'bob-7eR8YMEb', cy: 'cy-peRbSVMr', eve: 'eve-pXk8nXts' };
export const API_KEY = 'wizard-test-api-key-0123456789';
export const LICENSE_KEY = 'wizard-test-licence-key';

/** Every secret of the fixture: hashes and TOTP secrets as written in the file, the passwords and the keys. */
export function fixtureSecrets(): string[] {
  const secrets = [SIGNER_KEY, API_KEY, LICENSE_KEY, ...Object.values(PASSWORDS)];
  for (const line of readFileSync(CANONICAL, 'utf8').split('\n').filter(Boolean)) {
    const r = JSON.parse(line) as { password?: { hash: string }; totp?: { secret: string }[] };
    if (r.password) secrets.push(r.password.hash);
    for (const t of r.totp ?? []) secrets.push(t.secret);
  }
  return secrets;
}
