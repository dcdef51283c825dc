// Answer classification against the real sandbox core: reruns are "already present"; conflicts with other
// users are failures that carry the core's status and description.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreClient } from '../../../../src/core-client/types.js';
import type { UserResult } from '../../../../src/engine/events.js';
import { openJournal } from '../../../../src/engine/journal/journal.js';
import { startMigration, type ValidatedRecord } from '../../../../src/engine/runner.js';
import { WRITE_PATHS } from '../../../../src/engine/strategies/index.js';
import type { CanonicalUser } from '../../../../src/records/types.js';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/spawn.js';
import { client, LICENSE } from '../../../support/cli.js';

const HASH = '$2a$04$0ufm6TCF8gqYSgGO5bplBOzCClCYVYWX3r4Kb9/SoLAgLePE3ENsy';
const SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

let dir: string;
let sandbox: RunningSandbox;
let core: CoreClient;
let runs = 0;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-conflicts-'));
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE });
  core = client(sandbox.url);
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Migrate records with a fresh journal (so every step reaches the core) and return each user's result. */
async function migrate(records: CanonicalUser[]): Promise<Map<string, UserResult>> {
  runs += 1;
  const journal = await openJournal(join(dir, `j${runs}.ndjson`), { sources: [`run${runs}`], target: 'sandbox' });
  const results = new Map<string, UserResult>();
  async function* inputs(): AsyncIterable<ValidatedRecord> {
    for (const record of records) yield { record, origin: { file: 'mem' }, problems: [], valid: true };
  }
  const run = startMigration({
    inputs: inputs(),
    total: records.length,
    strategy: WRITE_PATHS.steps.strategy(),
    core,
    journal,
    concurrency: 1,
    onUserResult: (r) => void results.set(r.id, r),
  });
  const summary = await run.done;
  await journal.close();
  expect(summary.stopped).toBeUndefined();
  return results;
}

describe('classification of the core answers', () => {
  const full: CanonicalUser = {
    id: 'full',
    email: 'full@example.test',
    externalUserId: 'ext-full',
    password: { hash: HASH },
    thirdParty: [{ providerId: 'google', userId: 'g-full' }],
    otpFactors: { email: 'full@example.test', phoneNumber: '+14155550900' },
    totp: [{ secret: SECRET, deviceName: 'phone' }, { secret: SECRET.slice(0, 16) }],
  };

  it('a rerun of every kind of step is "already present" and creates nothing', async () => {
    expect((await migrate([full])).get('full')).toMatchObject({ outcome: 'imported', stepsRun: 10 });
    const before = await core.getUserById('ext-full');
    expect((await migrate([full])).get('full')).toMatchObject({ outcome: 'alreadyPresent', stepsRun: 10 });
    expect(await core.getUserById('ext-full')).toEqual(before);
    expect((await core.listTotpDevices('ext-full')).devices.map((d) => d.name).sort()).toEqual(['TOTP Device 0', 'phone']);
  });

  it('an email held by another primary user fails with the core status and description', async () => {
    const other: CanonicalUser = {
      id: 'other',
      email: 'full@example.test',
      thirdParty: [{ providerId: 'github', userId: 'gh-other' }],
      phoneNumber: '+14155550901',
    };
    const r = (await migrate([other])).get('other')!;
    expect(r).toMatchObject({
      outcome: 'failed',
      step: 'primary',
      status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
    });
    expect(r.message).toMatch(/This user's email is already associated with another user ID/);
  });

  it('an external id already mapped to a different user that holds the email fails; the same pair is fine', async () => {
    await core.importPasswordHash({ email: 'clash@example.test', passwordHash: HASH });
    const clash: CanonicalUser = { id: 'clash', email: 'clash@example.test', externalUserId: 'ext-full', password: { hash: HASH } };
    const r = (await migrate([clash])).get('clash')!;
    expect(r).toMatchObject({ outcome: 'failed', step: 'map', status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR' });
    expect(r.message).toMatch(/external id ext-full is already mapped to user [0-9a-f-]{36}, not to [0-9a-f-]{36}/);
  });

  it('the user an external id names, whose email changed in the core since, is not created again (issue 20, point 13)', async () => {
    // The export still has the old email; the core's user ext-full signs in with another one now.
    const moved: CanonicalUser = { id: 'moved', email: 'old-full@example.test', externalUserId: 'ext-full', password: { hash: HASH } };
    moved.emailVerified = true;
    const r = (await migrate([moved])).get('moved')!;
    expect(r).toMatchObject({ outcome: 'alreadyPresent' });
    expect(r.message).toMatch(
      /ext-full.*no longer has the email-password login old-full@example.test: changed in the core since the export/,
    );
    expect((await core.listUsersByAccountInfo({ email: 'old-full@example.test' })).users).toEqual([]);
    expect((await core.isEmailVerified('ext-full', 'old-full@example.test')).isVerified).toBe(false);
  });

  it('a device of the same name with other settings fails instead of passing as already present', async () => {
    const changed: CanonicalUser = { ...full, totp: [{ secret: SECRET, deviceName: 'phone', period: 60 }] };
    const r = (await migrate([changed])).get('full')!;
    expect(r).toMatchObject({ outcome: 'failed', step: 'totp:phone', status: 'DEVICE_ALREADY_EXISTS_ERROR' });
    expect(r.message).toMatch(/already has a TOTP device named "phone" with other settings/);
  });

  it('a 400 for one record fails that user only', async () => {
    const bad: CanonicalUser = { id: 'bad', email: 'bad@example.test', password: { hash: 'not-a-bcrypt-hash', algorithm: 'bcrypt' } };
    const good: CanonicalUser = { id: 'good', email: 'good@example.test', password: { hash: HASH } };
    const results = await migrate([bad, good]);
    expect(results.get('bad')).toMatchObject({ outcome: 'failed', step: 'password', status: 'HTTP 400' });
    expect(results.get('bad')!.message).toMatch(/BCrypt/i);
    expect(results.get('good')).toMatchObject({ outcome: 'imported' });
  });

  it('a hashing algorithm name the core refuses stops the whole run instead of failing every user', async () => {
    const journal = await openJournal(join(dir, 'algo.ndjson'), { sources: ['algo'], target: 'sandbox' });
    async function* inputs(): AsyncIterable<ValidatedRecord> {
      const hash =
        '$f_scrypt$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==$42xEC+ixf3L2lw==$m=14$r=8$s=Bw==';
      for (let i = 0; i < 5; i += 1)
        yield {
          record: { id: `s${i}`, email: `s${i}@example.test`, password: { hash } },
          origin: { file: 'mem' },
          problems: [],
          valid: true,
        };
    }
    const run = startMigration({
      inputs: inputs(),
      total: 5,
      strategy: WRITE_PATHS.steps.strategy(),
      core,
      journal,
      concurrency: 1,
      plan: { scryptAlgorithmName: 'sha1_scrypt' },
    });
    const summary = await run.done;
    await journal.close();
    expect(summary.stopped).toBe('fatal');
    expect(summary.fatal?.message).toMatch(
      /does not accept hashingAlgorithm "sha1_scrypt" \(HTTP 400 Unsupported password hashing algorithm\)/,
    );
    expect(summary.totals.failed).toBe(0);
  });
});
