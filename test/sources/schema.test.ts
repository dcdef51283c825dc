// schema/canonical-user.schema.json: the canonical fixtures conform, broken records do not, and its
// properties are exactly the fields of the TypeScript types in src/records/types.ts.
import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fixture } from '../support/sources.js';
import { checkSchema, type Schema } from './schema-check.js';

const root = resolve(__dirname, '../..');
const load = async (): Promise<Schema> => JSON.parse(await readFile(resolve(root, 'schema/canonical-user.schema.json'), 'utf8')) as Schema;

/** Field names of an exported interface, read from the TypeScript source. */
async function interfaceFields(name: string): Promise<string[]> {
  const text = await readFile(resolve(root, 'src/records/types.ts'), 'utf8');
  const body = new RegExp(`export interface ${name} \\{([\\s\\S]*?)\\n\\}`).exec(text)?.[1];
  if (!body) throw new Error(`interface ${name} not found`);
  return [...body.matchAll(/^\s{2}(\w+)\??:/gm)].map((m) => m[1]!).sort();
}

describe('canonical user JSON Schema', () => {
  it('is draft 2020-12 and accepts every canonical fixture record', async () => {
    const schema = await load();
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    const users = JSON.parse(await readFile(fixture('canonical/users.json'), 'utf8')) as unknown[];
    expect(users.length).toBeGreaterThan(0);
    for (const user of users) expect(checkSchema(schema, user)).toEqual([]);
    const ndjson = (await readFile(fixture('canonical/users.ndjson'), 'utf8')).trim().split('\n');
    for (const line of ndjson) expect(checkSchema(schema, JSON.parse(line))).toEqual([]);
  });

  it('rejects records of the wrong shape, naming the path', async () => {
    const schema = await load();
    const broken = JSON.parse(await readFile(fixture('broken/wrong-types.json'), 'utf8')) as unknown[];
    const errors = broken.map((u) => checkSchema(schema, u));
    expect(errors[0]).toEqual(['/emailVerified: must be boolean', '/totp/0/period: must be integer']);
    expect(errors[1]).toEqual(['/id: must be string']);
    expect(errors[2]).toEqual([': must be object']);
    expect(errors[3]).toEqual(['/thirdParty: must be array']);
    expect(errors[5]).toEqual(['/emial: is not allowed', '/password/algorithm: must be one of "bcrypt", "argon2", "external_scrypt"']);
    expect(checkSchema(schema, { email: 'x' })).toEqual([': id is required']);
    expect(checkSchema(schema, { id: 'x', totp: [{ secret: 'A', period: 0, skew: -1 }] })).toEqual([
      '/totp/0/period: must be > 0',
      '/totp/0/skew: must be >= 0',
    ]);
  });

  it.each([
    ['CanonicalUser', ''],
    ['CanonicalPassword', 'password'],
    ['CanonicalThirdParty', 'thirdParty'],
    ['CanonicalTotp', 'totp'],
    ['CanonicalOtpFactors', 'otpFactors'],
  ])('has exactly the fields of %s', async (type, def) => {
    const schema = await load();
    const node = def === '' ? schema : schema.$defs![def]!;
    expect(Object.keys(node.properties ?? {}).sort()).toEqual(await interfaceFields(type));
  });
});
