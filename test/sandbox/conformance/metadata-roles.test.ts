// Conformance: user metadata and user roles, ported from supertokens-core src/test/java/io/supertokens/test/
// userMetadata/api/{SetUserMetadataAPITest2_13,GetUserMetadataAPITest2_13,RemoveUserMetadataAPITest2_13}.java and
// userRoles/api/{CreateRoleAPITest,AddUserRoleAPITest,RemoveUserRoleAPITest,GetUserRolesAPITest}.java (each test
// names the Java method), with the answers of the current AddUserRoleAPI.java (didUserAlreadyHaveRole).
import { describe, expect, it } from 'vitest';
import { LICENSE, errorText, sandboxForFile } from '../../support/sandbox.js';

const { api } = sandboxForFile({ licenseKey: LICENSE });

describe('SetUserMetadataAPITest2_13', () => {
  it('setMetadataTest: the answer holds the metadata as set, nested nulls kept', async () => {
    const metadata = { number: 123, string: 'string!', subobject: { nullSubProp: null, subProp: 'test' } };
    const r = await api.put('/recipe/user/metadata', { userId: 'set-1', metadataUpdate: metadata });
    expect(r.json).toEqual({ status: 'OK', metadata });
    expect((await api.get('/recipe/user/metadata?userId=set-1')).json).toEqual({ status: 'OK', metadata });
  });

  it('updateMetadataTest: top-level keys replaced (not merged deeply), a key set to null removed, the rest kept', async () => {
    await api.put('/recipe/user/metadata', {
      userId: 'upd-1',
      metadataUpdate: { testUpdate: { subsub: '123' }, unmodified: '123', cleared: 123 },
    });
    const r = await api.put('/recipe/user/metadata', {
      userId: 'upd-1',
      metadataUpdate: { testUpdate: { subsubupdate: 'subnew!' }, testNew: 'new!', cleared: null },
    });
    expect(r.json).toEqual({ status: 'OK', metadata: { testUpdate: { subsubupdate: 'subnew!' }, unmodified: '123', testNew: 'new!' } });
  });

  it('emptyRequestTest / noIdTest / noMetadataTest: 400 naming the field', async () => {
    const empty = await api.put('/recipe/user/metadata', {});
    expect([empty.status, empty.text]).toEqual([400, errorText("Field name 'userId' is invalid in JSON input")]);
    const noId = await api.put('/recipe/user/metadata', { metadataUpdate: { number: 123 } });
    expect([noId.status, noId.text]).toEqual([400, errorText("Field name 'userId' is invalid in JSON input")]);
    const noMeta = await api.put('/recipe/user/metadata', { userId: 'userId' });
    expect([noMeta.status, noMeta.text]).toEqual([400, errorText("Field name 'metadataUpdate' is invalid in JSON input")]);
  });
});

describe('GetUserMetadataAPITest2_13 / RemoveUserMetadataAPITest2_13', () => {
  it('getMetadataTest with no metadata: an empty object', async () => {
    expect((await api.get('/recipe/user/metadata?userId=nobody')).json).toEqual({ status: 'OK', metadata: {} });
  });

  it('deleteMetadataTest: OK, then the metadata is gone', async () => {
    await api.put('/recipe/user/metadata', { userId: 'del-1', metadataUpdate: { a: 1 } });
    expect((await api.post('/recipe/user/metadata/remove', { userId: 'del-1' })).json).toEqual({ status: 'OK' });
    expect((await api.get('/recipe/user/metadata?userId=del-1')).json).toEqual({ status: 'OK', metadata: {} });
  });
});

describe('CreateRoleAPITest', () => {
  it('createANewRoleWithoutPermissionsTest / createTheSameRoleTwiceTest: createdNewRole true, then false', async () => {
    expect((await api.put('/recipe/role', { role: 'role-c' })).json).toEqual({ status: 'OK', createdNewRole: true });
    expect((await api.put('/recipe/role', { role: 'role-c', permissions: ['p1'] })).json).toEqual({ status: 'OK', createdNewRole: false });
  });

  it('badInputTest: an empty role name is a 400', async () => {
    const r = await api.put('/recipe/role', { role: '  ' });
    expect([r.status, r.text]).toEqual([400, errorText("Field name 'role' cannot be an empty String")]);
  });
});

describe('AddUserRoleAPITest', () => {
  it('testBadInput: missing or wrong-typed userId and role, and an empty role, are 400s naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, "Field name 'userId' is invalid in JSON input"],
      [{ role: 'role' }, "Field name 'userId' is invalid in JSON input"],
      [{ userId: 1, role: 'role' }, "Field name 'userId' is invalid in JSON input"],
      [{ userId: 'userId' }, "Field name 'role' is invalid in JSON input"],
      [{ userId: 'userId', role: 1 }, "Field name 'role' is invalid in JSON input"],
      [{ userId: 'userId', role: '  ' }, "Field name 'role' cannot be an empty String"],
    ];
    for (const [body, text] of cases) {
      const r = await api.put('/recipe/user/role', body);
      expect([r.status, r.text]).toEqual([400, errorText(text)]);
    }
  });

  it('testAddingARoleToAUserByCallingAddUserRoleAPI: OK, didUserAlreadyHaveRole false then true', async () => {
    await api.put('/recipe/role', { role: 'role-a' });
    expect((await api.put('/recipe/user/role', { userId: 'ua', role: 'role-a' })).json).toEqual({
      status: 'OK',
      didUserAlreadyHaveRole: false,
    });
    expect((await api.put('/recipe/user/role', { userId: 'ua', role: 'role-a' })).json).toEqual({
      status: 'OK',
      didUserAlreadyHaveRole: true,
    });
    expect((await api.get('/recipe/user/roles?userId=ua')).json).toEqual({ status: 'OK', roles: ['role-a'] });
  });

  it('testAddingAnUnknownRoleToAUser: UNKNOWN_ROLE_ERROR and no role held', async () => {
    expect((await api.put('/recipe/user/role', { userId: 'test_user', role: 'unknown_role' })).json).toEqual({
      status: 'UNKNOWN_ROLE_ERROR',
    });
    expect((await api.get('/recipe/user/roles?userId=test_user')).json).toEqual({ status: 'OK', roles: [] });
  });
});

describe('RemoveUserRoleAPITest', () => {
  it('testRemovingARoleFromAUser: didUserHaveRole true, then false; an unknown role is UNKNOWN_ROLE_ERROR', async () => {
    await api.put('/recipe/role', { role: 'role-r' });
    await api.put('/recipe/user/role', { userId: 'ur', role: 'role-r' });
    expect((await api.post('/recipe/user/role/remove', { userId: 'ur', role: 'role-r' })).json).toEqual({
      status: 'OK',
      didUserHaveRole: true,
    });
    expect((await api.post('/recipe/user/role/remove', { userId: 'ur', role: 'role-r' })).json).toEqual({
      status: 'OK',
      didUserHaveRole: false,
    });
    expect((await api.post('/recipe/user/role/remove', { userId: 'ur', role: 'nope' })).json).toEqual({ status: 'UNKNOWN_ROLE_ERROR' });
    expect((await api.get('/recipe/user/roles?userId=ur')).json).toEqual({ status: 'OK', roles: [] });
  });
});
