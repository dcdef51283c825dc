// Conformance: POST /recipe/userid/map, ported from supertokens-core
// src/test/java/io/supertokens/test/userIdMapping/api/CreateUserIdMappingAPITest.java (each test names the Java
// method), and the rule issue 9 relies on: once mapped, the core answers the external id.
import { describe, expect, it } from 'vitest';
import { LICENSE, errorText, sandboxForFile } from '../../support/sandbox.js';

const { api } = sandboxForFile({ licenseKey: LICENSE });

const signUp = async (email: string): Promise<string> =>
  (await api.post('/recipe/signup', { email, password: 'testPass123' })).json.user.id;
const map = (body: Record<string, unknown>) => api.post('/recipe/userid/map', body);

describe('CreateUserIdMappingAPITest', () => {
  it('testBadInput (externalUserIdInfo): a blank info is a 400', async () => {
    const r = await map({ superTokensUserId: 'userId', externalUserId: 'userId', externalUserIdInfo: ' ' });
    expect([r.status, r.text]).toEqual([400, errorText("Field name 'externalUserIdInfo' cannot be an empty String")]);
  });

  it('testCreatingAUserIdMapping: OK with nothing else; GET answers the pair and the info', async () => {
    const st = await signUp('map1@example.com');
    expect((await map({ superTokensUserId: st, externalUserId: 'userId', externalUserIdInfo: 'externUserIdInfo' })).json).toEqual({
      status: 'OK',
    });
    expect((await api.get(`/recipe/userid/map?userId=${st}&userIdType=SUPERTOKENS`)).json).toEqual({
      status: 'OK',
      superTokensUserId: st,
      externalUserId: 'userId',
      externalUserIdInfo: 'externUserIdInfo',
    });
  });

  it('testCreatingAUserIdMappingWithAnUnknownSuperTokensUserId', async () => {
    expect((await map({ superTokensUserId: 'unknownUser', externalUserId: 'userId-x' })).json).toEqual({
      status: 'UNKNOWN_SUPERTOKENS_USER_ID_ERROR',
    });
  });

  it('testCreatingUserIdMappingWithExternalUserIdInfoAsNull: null info is accepted', async () => {
    const st = await signUp('map-null@example.com');
    expect((await map({ superTokensUserId: st, externalUserId: 'externalUserId-null', externalUserIdInfo: null })).json).toEqual({
      status: 'OK',
    });
    const got = (await api.get(`/recipe/userid/map?userId=${st}`)).json;
    expect(got).toMatchObject({ status: 'OK', externalUserId: 'externalUserId-null' });
    expect(got.externalUserIdInfo).toBeUndefined();
  });

  it('testCreatingDuplicateUserIdMapping: which side exists is told', async () => {
    const st = await signUp('dup1@example.com');
    await map({ superTokensUserId: st, externalUserId: 'externalUserId-dup' });
    expect((await map({ superTokensUserId: st, externalUserId: 'externalUserId-dup' })).json).toEqual({
      status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR',
      doesSuperTokensUserIdExist: true,
      doesExternalUserIdExist: true,
    });
    expect((await map({ superTokensUserId: st, externalUserId: 'newExternalId' })).json).toEqual({
      status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR',
      doesSuperTokensUserIdExist: true,
      doesExternalUserIdExist: false,
    });
    const other = await signUp('dup2@example.com');
    expect((await map({ superTokensUserId: other, externalUserId: 'externalUserId-dup' })).json).toEqual({
      status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR',
      doesSuperTokensUserIdExist: false,
      doesExternalUserIdExist: true,
    });
  });

  it('once mapped, user objects, sign-in and account-info look-ups answer the external id (UserIdMapping.populateExternalUserIdForUsers)', async () => {
    const st = await signUp('answers@example.com');
    await map({ superTokensUserId: st, externalUserId: 'ext-answers' });
    const signIn = (await api.post('/recipe/signin', { email: 'answers@example.com', password: 'testPass123' })).json;
    expect(signIn).toMatchObject({
      status: 'OK',
      recipeUserId: 'ext-answers',
      user: { id: 'ext-answers', loginMethods: [{ recipeUserId: 'ext-answers' }] },
    });
    expect((await api.get(`/user/id?userId=${st}`)).json.user.id).toBe('ext-answers');
    const byInfo = (await api.get('/users/by-accountinfo?email=answers@example.com&doUnionOfAccountInfo=false')).json;
    expect(byInfo.users.map((u: { id: string }) => u.id)).toEqual(['ext-answers']);
  });
});
