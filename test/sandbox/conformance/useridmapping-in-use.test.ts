// Conformance: where a mapped id is in use outside the auth recipes, on mapping creation and removal. Ported from
// supertokens-core v11.4.4 src/test/java/io/supertokens/test/userIdMapping/api/RemoveUserIdMappingAPITest.java,
// CreateUserIdMappingAPITest.java and emailverification/EmailVerificationWithUserIdMappingTest.java (each test names
// the Java method), following UserIdMapping.createUserIdMapping (UserIdMapping.java:98-191), deleteUserIdMapping
// (:507-550) and findNonAuthStoragesWhereUserIdIsUsedOrAssertIfUsed (:617-685). The texts and the email
// verification, emptied metadata and roles cases were also checked on a running reference core 11.4.4.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../src/sandbox/spawn.js';
import { LICENSE, client, errorText, startTestSandbox } from '../../support/sandbox.js';

let sb: RunningSandbox;
let api: ReturnType<typeof client>;
beforeAll(async () => {
  sb = await startTestSandbox({ licenseKey: LICENSE });
  api = client(sb, { 'cdi-version': '5.0' });
  await api.put('/recipe/role', { role: 'r1' });
});
afterAll(async () => {
  await sb?.stop();
});

let n = 0;
async function signUp(): Promise<{ id: string; email: string }> {
  const email = `inuse${++n}@example.com`;
  return { id: (await api.post('/recipe/signup', { email, password: 'pass1234' })).json.user.id, email };
}
const map = (superTokensUserId: string, externalUserId: string, extra: Record<string, unknown> = {}, cdi = '5.0') =>
  api.post('/recipe/userid/map', { superTokensUserId, externalUserId, ...extra }, { 'cdi-version': cdi });
const unmap = (body: Record<string, unknown>) => api.post('/recipe/userid/map/remove', body);
const inUse = (recipe: string) => [400, errorText(`UserId is already in use in ${recipe} recipe`)];
async function verify(userId: string, email: string) {
  const token = (await api.post('/recipe/user/email/verify/token', { userId, email })).json.token as string;
  expect((await api.post('/recipe/user/email/verify', { method: 'token', token })).json.status).toBe('OK');
}
const isVerified = async (userId: string, email: string) =>
  (await api.get(`/recipe/user/email/verify?userId=${encodeURIComponent(userId)}&email=${email}`)).json.isVerified;

describe('RemoveUserIdMappingAPITest', () => {
  it('testBadInput: an empty userId and an unknown userIdType', async () => {
    const empty = await unmap({ userId: ' ' });
    expect([empty.status, empty.text]).toEqual([400, errorText("Field name 'userId' cannot be an empty String")]);
    const type = await unmap({ userId: 'x', userIdType: 'OTHER' });
    expect([type.status, type.text]).toEqual([
      400,
      errorText("Field name 'userIdType' should be one of 'SUPERTOKENS', 'EXTERNAL' or 'ANY'"),
    ]);
  });

  it('testDeletingUserIdMappingsWithUnknownUserIds: didMappingExist false for each type', async () => {
    for (const userIdType of ['SUPERTOKENS', 'EXTERNAL', 'ANY']) {
      expect((await unmap({ userId: 'unknown-id', userIdType })).json).toEqual({ status: 'OK', didMappingExist: false });
    }
  });

  it('testDeletingUserIdMapping: by either id with its type, and with ANY; the other type finds nothing', async () => {
    const a = await signUp();
    await map(a.id, 'ext-del-a');
    expect((await unmap({ userId: 'ext-del-a', userIdType: 'SUPERTOKENS' })).json.didMappingExist).toBe(false);
    expect((await unmap({ userId: a.id, userIdType: 'SUPERTOKENS' })).json.didMappingExist).toBe(true);
    await map(a.id, 'ext-del-a');
    expect((await unmap({ userId: a.id, userIdType: 'EXTERNAL' })).json.didMappingExist).toBe(false);
    expect((await unmap({ userId: 'ext-del-a', userIdType: 'EXTERNAL' })).json.didMappingExist).toBe(true);
    await map(a.id, 'ext-del-a');
    expect((await unmap({ userId: 'ext-del-a' })).json.didMappingExist).toBe(true);
    expect((await api.get(`/recipe/userid/map?userId=${a.id}`)).json).toEqual({ status: 'UNKNOWN_MAPPING_ERROR' });
  });

  it('deleteUserIdMappingWithAndWithoutForce: metadata under the external id refuses, force removes', async () => {
    const a = await signUp();
    await map(a.id, 'ext-md');
    await api.put('/recipe/user/metadata', { userId: 'ext-md', metadataUpdate: { k: 'v' } });
    const r = await unmap({ userId: a.id });
    expect([r.status, r.text]).toEqual(inUse('UserMetadata'));
    // Emptied metadata is still a row (setUserMetadata keeps it): still refused.
    await api.put('/recipe/user/metadata', { userId: 'ext-md', metadataUpdate: { k: null } });
    expect([(await unmap({ userId: a.id })).status]).toEqual([400]);
    expect((await unmap({ userId: a.id, force: true })).json).toEqual({ status: 'OK', didMappingExist: true });
  });

  it('issue 20: a verified email under the external id refuses (any userIdType) unless force; the verification stays there', async () => {
    const a = await signUp();
    await map(a.id, 'ext-ev');
    await verify('ext-ev', a.email);
    for (const body of [{ userId: 'ext-ev' }, { userId: a.id, userIdType: 'SUPERTOKENS' }, { userId: 'ext-ev', userIdType: 'EXTERNAL' }]) {
      const r = await unmap(body);
      expect([r.status, r.text]).toEqual(inUse('EmailVerification'));
    }
    expect((await unmap({ userId: 'ext-ev', force: true })).json).toEqual({ status: 'OK', didMappingExist: true });
    expect([await isVerified('ext-ev', a.email), await isVerified(a.id, a.email)]).toEqual([true, false]);
  });

  it('roles, a pending verification token and TOTP devices under the external id refuse too, in the reference order', async () => {
    const a = await signUp();
    await map(a.id, 'ext-many');
    await api.put('/recipe/user/role', { userId: 'ext-many', role: 'r1' });
    await api.post('/recipe/user/email/verify/token', { userId: 'ext-many', email: a.email });
    expect(
      (
        await api.post('/recipe/totp/device/import', {
          userId: 'ext-many',
          deviceName: 'd',
          secretKey: 'ZAO4SM3M2WKCJLC57AFOUDZAGEA7A45C',
          skew: 1,
          period: 30,
        })
      ).json.status,
    ).toBe('OK');
    expect(await unmap({ userId: 'ext-many' }).then((r) => [r.status, r.text])).toEqual(inUse('UserRoles'));
    await api.post('/recipe/user/role/remove', { userId: 'ext-many', role: 'r1' });
    expect(await unmap({ userId: 'ext-many' }).then((r) => [r.status, r.text])).toEqual(inUse('EmailVerification'));
    await api.post('/recipe/user/email/verify/token/remove', { userId: 'ext-many', email: a.email });
    expect(await unmap({ userId: 'ext-many' }).then((r) => [r.status, r.text])).toEqual(inUse('TOTP'));
    await api.post('/recipe/totp/device/remove', { userId: 'ext-many', deviceName: 'd' });
    expect((await unmap({ userId: 'ext-many' })).json).toEqual({ status: 'OK', didMappingExist: true });
  });

  it('state A4: an external id that is itself a supertokens user is unmapped without checks', async () => {
    const [a, b] = [await signUp(), await signUp()];
    await map(a.id, b.id, { force: true });
    await api.put('/recipe/user/metadata', { userId: b.id, metadataUpdate: { k: 'v' } });
    expect((await unmap({ userId: a.id })).json).toEqual({ status: 'OK', didMappingExist: true });
  });
});

describe('CreateUserIdMappingAPITest and EmailVerificationWithUserIdMappingTest', () => {
  it('testCreatingAUserIdMappingWithAndWithoutForce: metadata under the supertokens id refuses; force maps', async () => {
    const a = await signUp();
    await api.put('/recipe/user/metadata', { userId: a.id, metadataUpdate: { test: 'testExample' } });
    expect(await map(a.id, 'ext-c-md').then((r) => [r.status, r.text])).toEqual(inUse('UserMetadata'));
    expect((await map(a.id, 'ext-c-md', { force: true })).json).toEqual({ status: 'OK' });
  });

  it('testUserIdMappingCreationAfterEmailVerificationForEmailPasswordUser: from CDI 4.0 the verification moves to the external id', async () => {
    const a = await signUp();
    await verify(a.id, a.email);
    await api.post('/recipe/user/email/verify/token', { userId: a.id, email: `other-${a.email}` });
    expect((await map(a.id, 'ext-c-ev')).json).toEqual({ status: 'OK' });
    expect([await isVerified('ext-c-ev', a.email), await isVerified(a.id, a.email)]).toEqual([true, false]);
    expect((await api.get(`/user/id?userId=${a.id}`)).json.user.loginMethods[0]).toMatchObject({
      recipeUserId: 'ext-c-ev',
      verified: true,
    });
    // The pending token moved too (updateIsEmailVerifiedToExternalUserId updates both tables): the id is free.
    const b = await signUp();
    expect((await map(b.id, a.id, { force: true })).json).toEqual({ status: 'OK' });
  });

  it('testUserIdMappingCreationAfterEmailVerificationForPasswordlessUserWithOlderCDIBehaviour: before CDI 4.0 it refuses', async () => {
    const a = await signUp();
    await api.post('/recipe/user/email/verify/token', { userId: a.id, email: a.email });
    expect(await map(a.id, 'ext-c-old', {}, '3.0').then((r) => [r.status, r.text])).toEqual(inUse('EmailVerification'));
  });

  it('force skips the checks and moves nothing', async () => {
    const a = await signUp();
    await verify(a.id, a.email);
    expect((await map(a.id, 'ext-c-force', { force: true })).json).toEqual({ status: 'OK' });
    expect([await isVerified('ext-c-force', a.email), await isVerified(a.id, a.email)]).toEqual([false, true]);
  });

  it('TOTP devices under the supertokens id refuse', async () => {
    const a = await signUp();
    expect(
      (
        await api.post('/recipe/totp/device/import', {
          userId: a.id,
          deviceName: 'd',
          secretKey: 'ZAO4SM3M2WKCJLC57AFOUDZAGEA7A45C',
          skew: 1,
          period: 30,
        })
      ).json.status,
    ).toBe('OK');
    expect(await map(a.id, 'ext-c-totp').then((r) => [r.status, r.text])).toEqual(inUse('TOTP'));
  });
});
