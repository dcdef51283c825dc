// Conformance of the fault modes (src/sandbox/faults.ts) with how the reference core 11.4.4 fails under storage
// contention: each mode stops an operation exactly where a failing transaction of the reference's source does.
//  - partial: Passwordless.consumeCode commits the code's deletion in checkCodeAndReturnDevice
//    (Passwordless.java:386-396), then looks up (:431) and creates (:462) the user in other transactions.
//  - unverified: ThirdParty.signInUp creates or updates the user (ThirdParty.java:171), then marks the email
//    verified in a transaction of its own (:180-190); Passwordless.consumeCode likewise (:462, then :471 / :498).
//  - reads: a storage failure on a read, answered 500 with `rootCause.toString()` (WebserverAPI.java:548-550).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULT_BODY, createFaultInjector, parseFaults } from '../../../src/sandbox/faults.js';
import type { RunningSandbox } from '../../../src/sandbox/spawn.js';
import { LICENSE, TEXT_TYPE, client, errorText, startTestSandbox } from '../../support/sandbox.js';

type Api = ReturnType<typeof client>;
const sandboxes: Record<string, RunningSandbox> = {};
const apis: Record<string, Api> = {};
const SPECS = {
  unverified: 'unverified=1',
  partial: 'partial=1',
  reads: 'reads=1',
  before: 'before=1',
  after: 'after=1',
  replay: 'replay=1',
  bareok: 'bareok=1',
};

beforeAll(async () => {
  await Promise.all(
    Object.entries(SPECS).map(async ([name, faults]) => {
      sandboxes[name] = await startTestSandbox({ licenseKey: LICENSE, faults });
      apis[name] = client(sandboxes[name], { 'cdi-version': '5.0' });
    }),
  );
});
afterAll(async () => {
  await Promise.all(Object.values(sandboxes).map((s) => s.stop()));
});

const FAULT = errorText(FAULT_BODY);
const tp = (api: Api, userId: string, email: string, isVerified: boolean) =>
  api.post('/recipe/signinup', { thirdPartyId: 'google', thirdPartyUserId: userId, email: { id: email, isVerified } });
const byEmail = async (api: Api, email: string) =>
  (await api.get(`/users/by-accountinfo?email=${encodeURIComponent(email)}&doUnionOfAccountInfo=false`)).json.users;
async function consumeFor(api: Api, contact: { email: string } | { phoneNumber: string }) {
  const code = (await api.post('/recipe/signinup/code', contact)).json;
  return {
    code,
    answer: await api.post('/recipe/signinup/code/consume', { preAuthSessionId: code.preAuthSessionId, linkCode: code.linkCode }),
  };
}

describe('unverified: a user created, then the verification that follows fails', () => {
  it('third-party sign-in-up with isVerified: the user exists, its email is not verified, answered 500 (ThirdParty.java:171, :180)', async () => {
    const api = apis.unverified!;
    const r = await tp(api, 'g-1', 'tp1@example.com', true);
    expect([r.status, r.type, r.text]).toEqual([500, TEXT_TYPE, FAULT]);
    const users = await byEmail(api, 'tp1@example.com');
    expect(users).toHaveLength(1);
    expect(users[0].loginMethods).toMatchObject([{ recipeId: 'thirdparty', verified: false, thirdParty: { id: 'google', userId: 'g-1' } }]);
    // The same call again finds the user (sign-in) and fails at the same second write: still exactly one user.
    expect((await tp(api, 'g-1', 'tp1@example.com', true)).status).toBe(500);
    expect(await byEmail(api, 'tp1@example.com')).toHaveLength(1);
  });

  it('third-party sign-in-up without isVerified has no second write: answered as usual', async () => {
    const r = await tp(apis.unverified!, 'g-2', 'tp2@example.com', false);
    expect(r.json).toMatchObject({ status: 'OK', createdNewUser: true, user: { loginMethods: [{ verified: false }] } });
  });

  it('a passwordless consume of an email: the code is used, the user created, not verified, answered 500 (Passwordless.java:462, :471)', async () => {
    const api = apis.unverified!;
    const { code, answer } = await consumeFor(api, { email: 'pl1@example.com' });
    expect([answer.status, answer.text]).toEqual([500, FAULT]);
    expect((await byEmail(api, 'pl1@example.com'))[0].loginMethods).toMatchObject([{ recipeId: 'passwordless', verified: false }]);
    const again = await api.post('/recipe/signinup/code/consume', { preAuthSessionId: code.preAuthSessionId, linkCode: code.linkCode });
    expect(again.json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });

  it('a passwordless consume of a phone number verifies nothing: answered as usual', async () => {
    const { answer } = await consumeFor(apis.unverified!, { phoneNumber: '+14155550101' });
    expect(answer.json).toMatchObject({ status: 'OK', createdNewUser: true });
  });
});

describe('partial: a consume that uses up the code and creates no user (Passwordless.java:386-396, then :431/:462)', () => {
  it('answered 500; the code is gone; no user', async () => {
    const api = apis.partial!;
    const { code, answer } = await consumeFor(api, { email: 'partial@example.com' });
    expect([answer.status, answer.text]).toEqual([500, FAULT]);
    const again = await api.post('/recipe/signinup/code/consume', { preAuthSessionId: code.preAuthSessionId, linkCode: code.linkCode });
    expect(again.json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect(await byEmail(api, 'partial@example.com')).toEqual([]);
  });

  it('other writes are not touched by partial (it only splits a consume)', async () => {
    expect((await tp(apis.partial!, 'g-p', 'p-tp@example.com', true)).json).toMatchObject({ status: 'OK' });
  });
});

describe('reads: lookups fail with the storage exception text', () => {
  it('every lookup a migration makes answers 500 with the reference text; writes, /hello and the licence do not', async () => {
    const api = apis.reads!;
    const signUp = await api.post('/recipe/signup', { email: 'r@example.com', password: 'testPass123' });
    expect(signUp.json).toMatchObject({ status: 'OK' });
    const id = signUp.json.user.id as string;
    for (const path of [
      '/users/by-accountinfo?email=r@example.com&doUnionOfAccountInfo=false',
      `/user/id?userId=${id}`,
      '/users',
      '/users/count',
      `/recipe/userid/map?userId=${id}`,
      `/recipe/totp/device/list?userId=${id}`,
      `/recipe/user/metadata?userId=${id}`,
      `/recipe/user/roles?userId=${id}`,
      '/recipe/roles',
      `/recipe/user/email/verify?userId=${id}&email=r@example.com`,
      '/public/users/by-accountinfo?email=r@example.com&doUnionOfAccountInfo=false',
    ]) {
      const r = await api.get(path);
      expect([r.status, r.type, r.text], path).toEqual([500, TEXT_TYPE, FAULT]);
    }
    expect((await api.get('/hello')).status).toBe(200);
    expect((await api.get('/ee/featureflag')).json).toMatchObject({ status: 'OK' });
    expect((await api.get('/recipe/multitenancy/tenant/v2')).json).toMatchObject({ status: 'OK' });
  });

  it('the checks that need no storage come first: an unknown tenant is still 400, an unknown path 404', async () => {
    const api = apis.reads!;
    expect((await api.get('/nosuchtenant/users/count')).status).toBe(400);
    expect((await api.get('/no/such/route')).status).toBe(404);
  });
});

describe('before and after', () => {
  it('before: nothing applied, 500; reads are not faulted by it', async () => {
    const api = apis.before!;
    const r = await api.post('/recipe/signup', { email: 'b@example.com', password: 'testPass123' });
    expect([r.status, r.text]).toEqual([500, FAULT]);
    expect(await byEmail(api, 'b@example.com')).toEqual([]);
  });

  it('after: applied and durable, then 500', async () => {
    const api = apis.after!;
    const r = await api.post('/recipe/signup', { email: 'a@example.com', password: 'testPass123' });
    expect([r.status, r.text]).toEqual([500, FAULT]);
    expect(await byEmail(api, 'a@example.com')).toHaveLength(1);
  });
});

// Not the reference core's failures but a misbehaving proxy's in front of one (issue 31): the answer is not the
// request's, and nothing is applied. A write with no earlier answer on its path has nothing to replay: answered as usual.
describe('replay and bareok: an answer that is not the request own, nothing applied', () => {
  it("replay: another request's earlier 200 body of the same path; this one not applied", async () => {
    const api = apis.replay!;
    const first = await api.post('/recipe/signup', { email: 'first@example.com', password: 'testPass123' });
    expect(first.json).toMatchObject({ status: 'OK', user: { emails: ['first@example.com'] } });
    const second = await api.post('/recipe/signup', { email: 'second@example.com', password: 'testPass123' });
    expect([second.status, second.type]).toEqual([200, 'application/json; charset=UTF-8']);
    expect(second.json).toEqual(first.json);
    expect(await byEmail(api, 'second@example.com')).toEqual([]);
    // Another path has its own earlier answers: its first write is answered as usual, and lookups never replayed.
    expect((await tp(api, 'g-r', 'r-tp@example.com', false)).json).toMatchObject({ status: 'OK', createdNewUser: true });
    expect(await byEmail(api, 'r-tp@example.com')).toHaveLength(1);
    expect((await tp(api, 'g-r2', 'r-tp2@example.com', false)).json.user.thirdParty).toEqual([{ id: 'google', userId: 'g-r' }]);
    expect(await byEmail(api, 'r-tp2@example.com')).toEqual([]);
  });

  it('bareok: {"status":"OK"} and nothing applied, on every write; lookups answered as usual', async () => {
    const api = apis.bareok!;
    const r = await api.post('/recipe/signup', { email: 'bare@example.com', password: 'testPass123' });
    expect([r.status, r.json]).toEqual([200, { status: 'OK' }]);
    expect(await byEmail(api, 'bare@example.com')).toEqual([]);
    const code = await api.post('/recipe/signinup/code', { phoneNumber: '+14155550199' });
    expect(code.json).toEqual({ status: 'OK' });
    expect((await api.get('/users/count')).json).toMatchObject({ status: 'OK', count: 0 });
  });
});

describe('the spec and the draw', () => {
  it('parses every mode and refuses unknown names, rates outside 0..1 and write rates over 1 in total', () => {
    expect(parseFaults('before=0.1,after=0.2,partial=0.05,unverified=0.05,replay=0.03,bareok=0.02,reads=0.3,seed=9')).toEqual({
      before: 0.1,
      after: 0.2,
      partial: 0.05,
      unverified: 0.05,
      replay: 0.03,
      bareok: 0.02,
      reads: 0.3,
      seed: 9,
    });
    expect(parseFaults(' ')).toBeUndefined();
    expect(() => parseFaults('lookups=0.1')).toThrow(/reads=RATE/);
    expect(() => parseFaults('reads=1.5')).toThrow(/between 0 and 1/);
    expect(() => parseFaults('reads=')).toThrow(/is not/);
    expect(() => parseFaults('before=0.6,after=0.6')).toThrow(/more than 1/);
    expect(() => parseFaults('replay=0.6,bareok=0.6')).toThrow(/more than 1/);
  });

  it('is seeded: the same requests in the same order get the same faults; a spec without reads draws nothing for a GET', () => {
    const requests: Array<[string, string]> = [];
    for (let i = 0; i < 300; i++) {
      requests.push(['POST', '/recipe/signinup/code/consume'], ['GET', '/users/by-accountinfo'], ['POST', '/recipe/signinup']);
    }
    const draw = (spec: string) => {
      const f = createFaultInjector(parseFaults(spec))!;
      return requests.map(([m, p]) => f.decide(m, p));
    };
    const all = 'before=0.1,after=0.1,partial=0.1,unverified=0.1,replay=0.1,bareok=0.1,reads=0.2,seed=5';
    expect(draw(all)).toEqual(draw(all));
    expect(new Set(draw(all))).toEqual(new Set(['none', 'before', 'after', 'partial', 'unverified', 'replay', 'bareok', 'read']));
    // replay and bareok take the slices after the older modes: a spec of those alone faults the same writes.
    const older = draw('before=0.1,after=0.1,seed=5');
    expect(draw('before=0.1,after=0.1,replay=0.1,bareok=0.1,seed=5').map((d) => (d === 'replay' || d === 'bareok' ? 'none' : d))).toEqual(
      older,
    );
    expect(draw(all.replace('seed=5', 'seed=6'))).not.toEqual(draw(all));
    // Adding modes that never fire on writes leaves the writes' faults as they were (replays of older specs hold).
    const writesOnly = draw('before=0.1,after=0.1,seed=5').filter((_, i) => requests[i]![0] === 'POST');
    expect(draw('before=0.1,after=0.1,reads=0,seed=5').filter((_, i) => requests[i]![0] === 'POST')).toEqual(writesOnly);
    // partial only splits a consume; unverified only the two operations that verify after creating.
    const d = draw(all);
    requests.forEach(([, p], i) => {
      if (d[i] === 'partial') expect(p).toBe('/recipe/signinup/code/consume');
      if (d[i] === 'read') expect(p).toBe('/users/by-accountinfo');
    });
    expect(createFaultInjector(parseFaults('reads=1'))!.decide('GET', '/hello')).toBe('none');
    expect(createFaultInjector(parseFaults('before=1'))!.decide('PUT', '/recipe/multitenancy/tenant/v2')).toBe('none');
  });
});
