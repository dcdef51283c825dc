// fixtures/supabase/ and fixtures/keycloak/: the exports of issue 12's Supabase and Keycloak readers, their
// fixture sets (with every known password and secret) and their broken examples (written to fixtures/broken/).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrokenFile } from './broken.js';
import type { FixtureSet } from './fixtures.js';
import {
  keycloakBroken,
  keycloakFixtureUsers,
  keycloakLegacyUsers,
  realmExportJson,
  serviceAccountUser,
  usersFileJson,
} from './keycloak.js';
import type { ScryptConfig } from './hashes.js';
import { createRng } from '../../src/shared/rng.js';
import {
  FACTOR_COLUMNS,
  IDENTITY_COLUMNS,
  supabaseBroken,
  supabaseFixtureUsers,
  tableCsv,
  tableJsonLines,
  USER_COLUMNS,
} from './supabase.js';

export async function sourceFixtures(dir: string, scrypt: ScryptConfig): Promise<{ sets: FixtureSet[]; broken: BrokenFile[] }> {
  for (const sub of ['supabase', 'keycloak']) {
    await rm(join(dir, sub), { recursive: true, force: true });
    await mkdir(join(dir, sub), { recursive: true });
  }
  const put = (path: string, content: string): Promise<void> => writeFile(join(dir, path), content);

  const sb = await supabaseFixtureUsers(createRng(21), scrypt);
  await put('supabase/users.csv', tableCsv(USER_COLUMNS, sb.users));
  await put('supabase/identities.csv', tableCsv(IDENTITY_COLUMNS, sb.identities));
  await put('supabase/mfa_factors.csv', tableCsv(FACTOR_COLUMNS, sb.factors));
  await put('supabase/users.ndjson', tableJsonLines(USER_COLUMNS, sb.users));
  await put('supabase/identities.ndjson', tableJsonLines(IDENTITY_COLUMNS, sb.identities));
  await put('supabase/mfa_factors.ndjson', tableJsonLines(FACTOR_COLUMNS, sb.factors));

  const kcRng = createRng(22);
  const kc = await keycloakFixtureUsers(kcRng);
  const legacy = await keycloakLegacyUsers(kcRng, kc.realm);
  const service = serviceAccountUser(kcRng);
  await put('keycloak/realm-export.json', realmExportJson(kc.realm, kc.users));
  await put(`keycloak/${kc.realm}-users-0.json`, usersFileJson(kc.realm, kc.users.slice(0, 2)));
  await put(`keycloak/${kc.realm}-users-1.json`, usersFileJson(kc.realm, [...kc.users.slice(2), ...legacy.users, service]));

  const brokenRng = createRng(23);
  const broken: BrokenFile[] = [...supabaseBroken(brokenRng), keycloakBroken(brokenRng)];
  const sets: FixtureSet[] = [
    {
      name: 'supabase',
      files: ['supabase/users.csv', 'supabase/identities.csv', 'supabase/mfa_factors.csv'],
      hashConfig: 'firebase/hash-config.txt',
      needsSignerKey: true,
      valid: true,
      description:
        'Supabase auth.users, auth.identities and auth.mfa_factors as `\\copy ... csv header` files: bcrypt passwords, a Firebase scrypt hash imported into Supabase (`$fbscrypt$`: give the Firebase hash config, or its signer key), metadata and roles, Google and GitHub logins, phone sign-in, TOTP and SMS factors, a banned user',
      credentials: sb.credentials,
    },
    {
      name: 'supabase-jsonl',
      files: ['supabase/users.ndjson', 'supabase/identities.ndjson', 'supabase/mfa_factors.ndjson'],
      hashConfig: 'firebase/hash-config.txt',
      needsSignerKey: true,
      valid: true,
      description: 'the same tables as JSON lines (`psql -At -c "select row_to_json(t) ..."`)',
      credentials: sb.credentials,
    },
    {
      name: 'keycloak',
      files: ['keycloak/realm-export.json'],
      valid: true,
      description:
        'a Keycloak realm export (`kc.sh export --file`): an argon2 password, otp credentials (secret text and base32), Google and GitHub logins, realm roles, attributes, a disabled user',
      credentials: kc.credentials,
    },
    {
      name: 'keycloak-split',
      files: [`keycloak/${kc.realm}-users-0.json`, `keycloak/${kc.realm}-users-1.json`],
      valid: false,
      warnings: true,
      description:
        'the same users split into `<realm>-users-N.json` files (`kc.sh export --dir --users different_files`), plus two users with pbkdf2 passwords (not importable: `--unusable-hashes without-password` and the sign-in migration file; one also has a Microsoft login) and a service account (left out)',
      credentials: [...kc.credentials, ...legacy.credentials],
    },
  ];
  return { sets, broken };
}
