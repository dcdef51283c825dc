// Generated `aws cognito-idp list-users` output: federated users (Google, Facebook, Apple) with their `identities`
// attribute, native users (which Cognito exports without any password hash), standard and custom attributes,
// both timestamp forms of the CLI; and a broken file beside them.
import type { BrokenFile } from './broken.js';
import type { KnownCredential } from './canonical.js';
import type { CsvFixtures } from './firebase-csv.js';
import type { Rng } from '../../src/shared/rng.js';

export type CognitoUser = Record<string, unknown>;

function uuid(rng: Rng): string {
  const h = rng.bytes(16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const attrs = (o: Record<string, string>): Array<{ Name: string; Value: string }> =>
  Object.entries(o).map(([Name, Value]) => ({ Name, Value }));

export function identitiesValue(providerName: string, userId: string, created: number): string {
  return JSON.stringify([{ userId, providerName, providerType: providerName, issuer: null, primary: true, dateCreated: created }]);
}

/** As the CLI prints it: `{"Users": [...]}`, four-space indented. */
export function listUsersJson(users: unknown[]): string {
  return JSON.stringify({ Users: users }, null, 4) + '\n';
}

/** An IdP user as Cognito lists it: Username `<Provider>_<id>`, status EXTERNAL_PROVIDER. */
export function federatedUser(
  sub: string,
  provider: string,
  providerUserId: string,
  email: string,
  created: string | number,
  extra: Record<string, string> = {},
): CognitoUser {
  return {
    Username: `${provider}_${providerUserId}`,
    Attributes: attrs({ sub, ...extra, email, identities: identitiesValue(provider, providerUserId, 1700000000000) }),
    UserCreateDate: created,
    UserLastModifiedDate: created,
    Enabled: true,
    UserStatus: 'EXTERNAL_PROVIDER',
  };
}

export function cognitoFixtures(rng: Rng): CsvFixtures {
  const ids = Array.from({ length: 10 }, () => uuid(rng));
  // Made after the first ten, so their users keep their ids.
  const [ivyId, joId, joGoogleId] = Array.from({ length: 3 }, () => uuid(rng)) as [string, string, string];
  const credentials: KnownCredential[] = [];
  const federated: CognitoUser[] = [
    federatedUser(ids[0]!, 'Google', '108000000000000000401', 'ann@cognito.example', '2024-03-01T09:30:00.123000+00:00', {
      email_verified: 'true',
      name: 'Ann Cognito',
      given_name: 'Ann',
      locale: 'en-GB',
      'custom:plan': 'pro',
    }),
    federatedUser(ids[1]!, 'Facebook', '10200000000000401', 'ben@cognito.example', 1709371800.5, {
      email_verified: 'false',
      picture: 'https://example.com/ben.png',
    }),
    federatedUser(ids[2]!, 'SignInWithApple', '001234.abcdef0123456789.0401', 'cy@privaterelay.example', '2024-03-03T00:00:00+00:00', {
      email_verified: 'true',
    }),
    { ...federatedUser(ids[3]!, 'Google', '108000000000000000404', 'dee@cognito.example', '2024-03-04T00:00:00+00:00'), Enabled: false },
  ];
  credentials.push(
    {
      id: ids[0]!,
      email: 'ann@cognito.example',
      totp: [],
      notes: 'Google; name, given_name, locale and custom:plan into metadata; ISO time with microseconds',
    },
    {
      id: ids[1]!,
      email: 'ben@cognito.example',
      totp: [],
      notes: 'Facebook, email not verified; picture; UserCreateDate in epoch seconds (CLI v1)',
    },
    { id: ids[2]!, email: 'cy@privaterelay.example', totp: [], notes: 'Sign in with Apple' },
    {
      id: ids[3]!,
      email: 'dee@cognito.example',
      totp: [],
      notes: 'Google, disabled (Enabled false): migrated only with --disabled import',
    },
  );

  const native: CognitoUser[] = [
    {
      Username: 'eve',
      Attributes: attrs({ sub: ids[4]!, email: 'eve@cognito.example', email_verified: 'true', family_name: 'Native' }),
      UserCreateDate: '2024-03-05T00:00:00+00:00',
      UserLastModifiedDate: '2024-03-05T00:00:00+00:00',
      Enabled: true,
      UserStatus: 'CONFIRMED',
    },
    {
      Username: ids[5]!,
      Attributes: attrs({ sub: ids[5]!, email: 'fay@cognito.example', email_verified: 'false' }),
      UserCreateDate: '2024-03-06T00:00:00+00:00',
      Enabled: true,
      UserStatus: 'FORCE_CHANGE_PASSWORD',
    },
    {
      Username: 'gus',
      Attributes: attrs({
        sub: ids[6]!,
        email: 'gus@cognito.example',
        email_verified: 'true',
        phone_number: '+14155550401',
        phone_number_verified: 'true',
      }),
      UserCreateDate: '2024-03-07T00:00:00+00:00',
      Enabled: true,
      UserStatus: 'CONFIRMED',
      MFAOptions: [{ DeliveryMedium: 'SMS', AttributeName: 'phone_number' }],
    },
    {
      Username: 'hal',
      Attributes: attrs({
        sub: ids[7]!,
        email: 'hal@cognito.example',
        email_verified: 'true',
        phone_number: '+14155550402',
        phone_number_verified: 'false',
        identities: identitiesValue('Okta', '00u1abcd0402', 1700000000000),
      }),
      UserCreateDate: '2024-03-08T00:00:00+00:00',
      Enabled: true,
      UserStatus: 'CONFIRMED',
    },
    {
      Username: 'ivy',
      Attributes: attrs({ sub: ivyId, phone_number: '+14155550403', phone_number_verified: 'true' }),
      UserCreateDate: '2024-03-09T00:00:00+00:00',
      Enabled: true,
      UserStatus: 'CONFIRMED',
    },
    // A Google login linked to a native user (AdminLinkProviderForUser): Cognito lists the IdP user as well.
    {
      Username: 'jo',
      Attributes: attrs({
        sub: joId,
        email: 'jo@cognito.example',
        email_verified: 'true',
        identities: identitiesValue('Google', '108000000000000000404', 1700000000000),
      }),
      UserCreateDate: '2024-03-10T00:00:00+00:00',
      Enabled: true,
      UserStatus: 'CONFIRMED',
    },
    federatedUser(joGoogleId, 'Google', '108000000000000000404', 'jo@cognito.example', '2024-03-10T00:00:00+00:00', {
      email_verified: 'true',
    }),
  ];

  const broken: BrokenFile = {
    name: 'cognito-bad.json',
    content: listUsersJson([
      federatedUser(ids[8]!, 'Google', '108000000000000000409', 'ok@cognito.example', '2024-03-09T00:00:00+00:00'),
      { Attributes: [{ Name: 'email', Value: 'nobody@cognito.example' }], UserStatus: 'CONFIRMED' },
      {
        Username: 'Google_1',
        Attributes: [{ Name: 'sub', Value: ids[9]! }, { Name: 'identities', Value: '[{"userId": "1", ' }, { Name: 'email' }],
        UserCreateDate: 'yesterday',
        UserStatus: 'EXTERNAL_PROVIDER',
      },
      'not a user',
    ]),
    shows:
      'a list-users output with a user without sub or Username, an identities attribute that is not JSON, an attribute without a Value, a date that is not a date, an element that is not an object',
  };

  return {
    files: [
      { path: 'cognito/list-users.json', content: listUsersJson(federated) },
      { path: 'cognito/native-users.json', content: listUsersJson(native) },
    ],
    sets: [
      {
        name: 'cognito',
        files: ['cognito/list-users.json'],
        valid: true,
        description: '`aws cognito-idp list-users` output: Google, Facebook and Apple users with their attributes, a disabled one',
        credentials,
      },
      {
        name: 'cognito-native',
        files: ['cognito/native-users.json'],
        valid: false,
        warnings: true,
        description:
          'Cognito native users (CONFIRMED, FORCE_CHANGE_PASSWORD; a verified phone with SMS MFA; an unverified phone and an Okta login; a phone-only user; a linked Google login Cognito lists twice): no hash is exported, so they carry a legacyPassword without one and need `--unusable-hashes without-password` (the phone-only user signs in with its phone)',
        credentials: [
          {
            id: ids[4]!,
            email: 'eve@cognito.example',
            algorithm: 'aws_cognito (legacy)',
            totp: [],
            notes: 'CONFIRMED native user: email only',
          },
          {
            id: ids[5]!,
            email: 'fay@cognito.example',
            algorithm: 'aws_cognito (legacy)',
            totp: [],
            notes: 'FORCE_CHANGE_PASSWORD (Username is the sub)',
          },
          {
            id: ids[6]!,
            email: 'gus@cognito.example',
            algorithm: 'aws_cognito (legacy)',
            totp: [],
            notes: 'verified phone +14155550401: phone sign-in and SMS factor',
          },
          {
            id: ids[7]!,
            email: 'hal@cognito.example',
            algorithm: 'aws_cognito (legacy)',
            totp: [],
            notes: 'unverified phone (dropped); linked Okta login (unmapped provider: a warning)',
          },
          {
            id: ivyId,
            totp: [],
            notes: 'a verified phone and no email: phone sign-in (its Cognito password is not carried: a warning)',
          },
          {
            id: joId,
            email: 'jo@cognito.example',
            algorithm: 'aws_cognito (legacy)',
            totp: [],
            notes: 'a linked Google login: Cognito also lists the Google user, which the reader merges into this one (a warning)',
          },
        ],
      },
    ],
    broken: [broken],
  };
}
