// The Firebase `auth:export --format=csv` reader: headerless rows in firebase-tools' fixed column order
// (accountExporter.ts transUserToArray, read back by accountImporter.ts transArrayToUser), turned into the JSON
// export's user object and read by the same code (firebaseItem: scrypt with the hash config, providers, phone,
// disabled, the profile columns into metadata); what the core cannot hold is named in the field report.
import type { CanonicalUser, Problem, RecordOrigin } from '../records/types.js';
import { damagedRow } from './damaged-rows.js';
import type { SourceItem } from './index.js';
import { csvBool, readCsvRows } from './csv-rows.js';
import type { FieldReport } from './field-report.js';
import { firebaseItem, type FirebaseOptions } from './firebase.js';

export const FIREBASE_CSV = 'firebase-csv';

/** Column positions (0-based); firebase-tools writes 28 columns and a trailing comma. */
export const FIREBASE_CSV_COLUMNS = [
  'localId',
  'email',
  'emailVerified',
  'passwordHash',
  'salt',
  'displayName',
  'photoUrl',
  ...['google.com', 'facebook.com', 'twitter.com', 'github.com'].flatMap((p) =>
    ['rawId', 'email', 'displayName', 'photoUrl'].map((k) => `${p}.${k}`),
  ),
  'createdAt',
  'lastSignedInAt',
  'phoneNumber',
  'disabled',
  'customAttributes',
] as const;
const COLUMNS = FIREBASE_CSV_COLUMNS.length; // 28
const PROVIDERS: Array<[string, number]> = [
  ['google.com', 7],
  ['facebook.com', 11],
  ['twitter.com', 15],
  ['github.com', 19],
];

export interface FirebaseCsvOptions extends FirebaseOptions {
  fields?: FieldReport;
}

export async function* readFirebaseCsv(path: string, options: FirebaseCsvOptions): AsyncGenerator<SourceItem[]> {
  for await (const rows of readCsvRows(path)) {
    // A row that cannot be read is an error of its user (the uid is the first column), who waits for the fix.
    yield rows.map((row) =>
      row.ok ? firebaseCsvItem(row.fields, row.origin, options) : damagedRow(row.fields[0], row.problem.origin, row.problem.message),
    );
  }
}

export function firebaseCsvItem(fields: string[], origin: RecordOrigin, options: FirebaseCsvOptions): SourceItem {
  const id = fields[0] ?? '';
  // The exporter ends every row with a comma (29 fields, the last empty) and quotes only names with a comma: a
  // comma in a photo URL shifts every later column, so any other count is refused rather than misread.
  const shaped = fields.length === COLUMNS || (fields.length === COLUMNS + 1 && fields[COLUMNS] === '');
  if (!shaped) {
    return damagedRow(
      id,
      origin,
      `the row has ${fields.length} columns; a Firebase CSV export has ${COLUMNS} (and a trailing comma): a value with an unquoted comma (a photo URL?) or a cut line; quote it or export as JSON (the user is left out until then)`,
      'firebase-csv.columns',
    );
  }
  const col = (name: (typeof FIREBASE_CSV_COLUMNS)[number]): string => fields[FIREBASE_CSV_COLUMNS.indexOf(name)]!;
  const user: Record<string, unknown> = { localId: id };
  const problems: Problem[] = [];
  const bad = (field: string, message: string): void => {
    problems.push({ severity: 'error', rule: 'source.type', origin, field, message, ...(id ? { sourceId: id } : {}) });
  };
  const plain = [
    'email',
    'passwordHash',
    'salt',
    'displayName',
    'photoUrl',
    'createdAt',
    'lastSignedInAt',
    'phoneNumber',
    'customAttributes',
  ];
  for (const key of plain as Array<(typeof FIREBASE_CSV_COLUMNS)[number]>) if (col(key) !== '') user[key] = col(key);
  for (const key of ['emailVerified', 'disabled'] as const) {
    const b = csvBool(col(key));
    if (b === null) bad(key, `${key} must be true or false`);
    else if (b !== undefined) user[key] = b;
  }
  const providerUserInfo = PROVIDERS.filter(([, at]) => fields[at] !== '').map(([providerId, at]) => ({
    providerId,
    rawId: fields[at],
    ...(fields[at + 1] ? { email: fields[at + 1] } : {}),
  }));
  if (providerUserInfo.length > 0) user['providerUserInfo'] = providerUserInfo;

  const item = firebaseItem(user, origin, options);
  if (item.kind === 'problem') return item;
  const record = item.value.record;
  item.value.problems.push(...problems);
  if (options.fields) report(options.fields, record, fields, col);
  return item;
}

type Col = (name: (typeof FIREBASE_CSV_COLUMNS)[number]) => string;

const DROPPED_PROVIDER_PROFILE = "the core's third-party login keeps the provider's user id and email only";

function report(fields: FieldReport, record: CanonicalUser, row: string[], col: Col): void {
  const f = FIREBASE_CSV;
  fields.mapped(f, 'localId', 'id');
  if (col('email') !== '') fields.mapped(f, 'email', 'email');
  if (col('emailVerified') !== '') fields.mapped(f, 'emailVerified', 'emailVerified');
  if (record.password) {
    fields.mapped(f, 'passwordHash', 'password.hash (with the hash config)');
    fields.mapped(f, 'salt', 'password.hash (with the hash config)');
  } else if (record.legacyPassword) {
    // A hash config of another algorithm (HMAC_SHA256, MD5, ...): the core cannot verify it.
    fields.mapped(f, 'passwordHash', 'legacyPassword.hash (the hash config names an algorithm the core cannot verify)');
    if (col('salt') !== '') fields.mapped(f, 'salt', 'legacyPassword.salt');
  }
  for (const key of ['displayName', 'photoUrl', 'lastSignedInAt', 'customAttributes'] as const)
    if (col(key) !== '' && record.metadata?.[key] !== undefined) fields.mapped(f, key, `metadata.${key}`);
  if (col('createdAt') !== '' && record.timeJoined !== undefined) fields.mapped(f, 'createdAt', 'timeJoined');
  if (col('phoneNumber') !== '') fields.mapped(f, 'phoneNumber', 'phoneNumber');
  if (col('disabled') !== '') fields.mapped(f, 'disabled', 'disabled');
  for (const [provider, at] of PROVIDERS) {
    if (row[at] === '') continue;
    fields.mapped(f, `${provider}.rawId`, 'thirdParty[].userId');
    if (row[at + 1] !== '') fields.mapped(f, `${provider}.email`, 'thirdParty[].email');
    if (row[at + 2] !== '') fields.dropped(f, `${provider}.displayName`, DROPPED_PROVIDER_PROFILE);
    if (row[at + 3] !== '') fields.dropped(f, `${provider}.photoUrl`, DROPPED_PROVIDER_PROFILE);
  }
}
