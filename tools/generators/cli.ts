// Generator commands: `fixtures [DIR]` writes fixtures/; `firebase FILE N`, `canonical FILE N`, `supabase FILE N`
// and `keycloak FILE N`, `firebase-csv FILE N`, `clerk FILE N` and `cognito FILE N` write large generated exports
// quickly (for benchmarks and streaming tests). Run as `npm run generate -- COMMAND ...` (`npm run fixtures` for the
// first); not part of the published package.
import { resolve } from 'node:path';
import { writeFixtures } from './fixtures.js';
import { writeCanonicalNdjson, writeFirebaseExport } from './bulk.js';
import { writeKeycloakRealm, writeSupabaseExport } from './bulk-tables.js';
import { writeClerkExport, writeCognitoExport, writeFirebaseCsvExport } from './bulk-sources.js';

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'fixtures') {
    const dir = resolve(rest[0] ?? 'fixtures');
    const sets = await writeFixtures(dir);
    process.stdout.write(`wrote ${sets.length} fixture sets and the broken examples to ${dir}\n`);
    return 0;
  }
  if ((command === 'firebase' || command === 'canonical') && rest.length >= 2) {
    const count = Number(rest[1]);
    if (!Number.isInteger(count) || count < 0) return usage();
    const started = Date.now();
    const info = command === 'firebase' ? await writeFirebaseExport(rest[0]!, count) : await writeCanonicalNdjson(rest[0]!, count);
    process.stdout.write(
      `wrote ${count} users to ${rest[0]} in ${Date.now() - started} ms${info.hashConfigPath ? ` (hash config ${info.hashConfigPath})` : ''}\n`,
    );
    return 0;
  }
  if ((command === 'supabase' || command === 'keycloak') && rest.length >= 2) {
    const count = Number(rest[1]);
    if (!Number.isInteger(count) || count < 0) return usage();
    if (command === 'supabase') await writeSupabaseExport(rest[0]!, count, rest[2]);
    else await writeKeycloakRealm(rest[0]!, count);
    process.stdout.write(`wrote ${count} ${command} users to ${rest[0]}\n`);
    return 0;
  }
  if ((command === 'firebase-csv' || command === 'clerk' || command === 'cognito') && rest.length >= 2) {
    const count = Number(rest[1]);
    if (!Number.isInteger(count) || count < 0) return usage();
    let note = '';
    if (command === 'firebase-csv') note = ` (hash config ${(await writeFirebaseCsvExport(rest[0]!, count)).hashConfigPath})`;
    else if (command === 'clerk') await writeClerkExport(rest[0]!, count);
    else await writeCognitoExport(rest[0]!, count);
    process.stdout.write(`wrote ${count} ${command} users to ${rest[0]}${note}\n`);
    return 0;
  }
  return usage();
}

function usage(): number {
  process.stderr.write(
    'usage: npm run generate -- fixtures [DIR] | firebase FILE COUNT | canonical FILE COUNT | supabase USERS.csv COUNT [FACTORS.csv] | keycloak FILE COUNT | firebase-csv FILE COUNT | clerk FILE COUNT | cognito FILE COUNT\n',
  );
  return 2;
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === new URL(`file://${resolve(process.argv[1])}`).href;
if (invokedDirectly) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(2);
    },
  );
}
