// Generated `firebase auth:export --format=csv` files: the Firebase fixture users written the way firebase-tools'
// accountExporter writes them (28 positional columns and a trailing comma, names quoted only when they hold a
// comma, custom claims always quoted), plus profile columns; and a broken file beside them.
import type { BrokenFile } from './broken.js';
import type { KnownCredential } from './canonical.js';
import type { FirebaseUser } from './firebase.js';
import type { FixtureSet } from './fixtures.js';

const PROVIDER_AT: Record<string, number> = { 'google.com': 7, 'facebook.com': 11, 'twitter.com': 15, 'github.com': 19 };

const quoteIfComma = (s: string): string => (s.includes(',') ? `"${s}"` : s);
const text = (v: unknown): string => (v === undefined || v === null ? '' : String(v));

/** One user as one CSV line (without the line end). */
export function firebaseCsvLine(u: FirebaseUser): string {
  const cols: string[] = new Array<string>(28).fill('');
  cols[0] = text(u['localId']);
  cols[1] = text(u['email']);
  cols[2] = String(u['emailVerified'] === true);
  cols[3] = text(u['passwordHash']);
  cols[4] = text(u['salt']);
  cols[5] = quoteIfComma(text(u['displayName']));
  cols[6] = text(u['photoUrl']);
  for (const info of (u['providerUserInfo'] as Array<Record<string, unknown>> | undefined) ?? []) {
    const at = PROVIDER_AT[text(info['providerId'])];
    if (at === undefined) continue;
    cols[at] = text(info['rawId']);
    cols[at + 1] = text(info['email']);
    cols[at + 2] = quoteIfComma(text(info['displayName']));
    cols[at + 3] = text(info['photoUrl']);
  }
  cols[23] = text(u['createdAt']);
  cols[24] = text(u['lastSignedInAt']);
  cols[25] = text(u['phoneNumber']);
  cols[26] = text(u['disabled']);
  const custom = u['customAttributes'];
  cols[27] = typeof custom === 'string' ? `"${custom.replace(/"/g, '""')}"` : '';
  return cols.join(',') + ',';
}

export function firebaseCsv(users: FirebaseUser[], eol = '\n'): string {
  return users.map(firebaseCsvLine).join(eol) + eol;
}

export interface CsvFixtures {
  files: Array<{ path: string; content: string }>;
  sets: FixtureSet[];
  broken: BrokenFile[];
}

/** The CSV fixture made from the Firebase fixture users (same hashes, so the same passwords). */
export function firebaseCsvFixtures(users: FirebaseUser[], credentials: KnownCredential[]): CsvFixtures {
  const extra: Record<string, FirebaseUser> = {
    'fb-ann': {
      displayName: 'Ann Lee, PhD',
      photoUrl: 'https://example.com/ann.png',
      customAttributes: '{"role":"editor","plan":"pro"}',
    },
    'fb-dot': { disabled: false },
    'fb-fox': { displayName: 'Fox' },
  };
  const enriched = users.map((u) => {
    const more = extra[text(u['localId'])] ?? {};
    if (u['localId'] !== 'fb-fox') return { ...u, ...more };
    const providers = [...((u['providerUserInfo'] as FirebaseUser[]) ?? [])];
    providers.push({
      providerId: 'twitter.com',
      rawId: '9900201',
      email: 'fox@example.com',
      displayName: 'Fox',
      photoUrl: 'https://example.com/fox.png',
    });
    return { ...u, ...more, providerUserInfo: providers };
  });
  const notes: Record<string, string> = {
    'fb-ann': 'scrypt password; display name with a comma, photo URL and custom claims (metadata)',
    'fb-eli': 'scrypt password (the CSV export has no MFA columns: the SMS factor is not in it)',
    'fb-fox': 'GitHub, Facebook and Twitter (the Twitter name and photo are dropped)',
  };
  const csvCredentials = credentials.map((c) => ({ ...c, totp: [], notes: notes[c.id] ?? c.notes }));
  const valid = firebaseCsv(enriched);
  const [first] = valid.split('\n');
  const broken = [
    first,
    // A comma in an unquoted photo URL (the exporter does not quote URLs) shifts the columns.
    firebaseCsvLine({ localId: 'fbc-url', email: 'url@example.com', photoUrl: 'https://example.com/a,b.png' }),
    firebaseCsvLine({ localId: 'fbc-flag', email: 'flag@example.com' }).replace(',false,', ',yes,'),
    firebaseCsvLine({
      localId: 'fbc-claims',
      email: 'claims@example.com',
      customAttributes: '["not", "an object"]',
      providerUserInfo: [{ providerId: 'google.com', rawId: '1080003' }],
    }),
    firebaseCsvLine({ localId: 'fbc-nosalt', email: 'nosalt@example.com', passwordHash: users[0]!['passwordHash'] }),
    '',
  ].join('\n');
  return {
    files: [{ path: 'firebase/export.csv', content: valid }],
    sets: [
      {
        name: 'firebase-csv',
        files: ['firebase/export.csv'],
        hashConfig: 'firebase/hash-config.txt',
        needsSignerKey: true,
        valid: true,
        description:
          'the Firebase users as `firebase auth:export --format=csv` writes them (positional columns), with profile columns and a Twitter login',
        credentials: csvCredentials,
      },
    ],
    broken: [
      {
        name: 'firebase-csv-bad.csv',
        content: broken,
        shows:
          'a Firebase CSV export with a valid first row, then an unquoted comma in a photo URL, emailVerified `yes`, custom claims that are not an object, a hash without its salt',
      },
    ],
  };
}
