// The dashboard search of GET /users (`email`, `phone`, `provider`) on a real licensed sandbox: prefix of the
// email or of its domain, several values OR-ed, tags AND-ed per recipe, linked users once, tenants apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/spawn.js';
import { BCRYPT, LICENSE, client, errorText, startTestSandbox } from '../support/sandbox.js';

let sb: RunningSandbox;
let api: ReturnType<typeof client>;
/** Label -> user id (the primary id for linked users). */
const ids: Record<string, string> = {};

type User = { id: string; emails: string[]; loginMethods: unknown[] };

const importEp = async (email: string, prefix = '') =>
  (await api.post(`${prefix}/recipe/user/passwordhash/import`, { email, passwordHash: BCRYPT })).json.user.id as string;
const tp = async (thirdPartyId: string, thirdPartyUserId: string, email: string) =>
  (await api.post('/recipe/signinup', { thirdPartyId, thirdPartyUserId, email: { id: email, isVerified: true } })).json.user.id as string;
const pless = async (contact: { email: string } | { phoneNumber: string }) => {
  const c = await api.post('/recipe/signinup/code', contact);
  return (await api.post('/recipe/signinup/code/consume', { preAuthSessionId: c.json.preAuthSessionId, linkCode: c.json.linkCode })).json
    .user.id as string;
};

/** Search and return the labels of the users found, in answer order; asserts the answer's shape. */
async function search(q: string, prefix = ''): Promise<string[]> {
  const r = await api.get(`${prefix}/users?${q}`);
  expect(r.status, r.text).toBe(200);
  expect(r.json.status).toBe('OK');
  expect(r.json).not.toHaveProperty('nextPaginationToken');
  const byId = Object.fromEntries(Object.entries(ids).map(([label, id]) => [id, label]));
  return (r.json.users as User[]).map((u) => byId[u.id] ?? `?${u.id}`);
}
const sorted = (labels: string[]) => [...labels].sort();

beforeAll(async () => {
  sb = await startTestSandbox({ licenseKey: LICENSE });
  api = client(sb);
  expect(
    (
      await api.put('/recipe/multitenancy/tenant/v2', {
        tenantId: 't1',
        firstFactors: ['emailpassword', 'thirdparty', 'otp-email', 'otp-phone', 'link-email', 'link-phone'],
      })
    ).json.status,
  ).toBe('OK');
  ids.alice = await importEp('alice@gmail.com');
  ids.bobYahoo = await importEp('bob@yahoo.com');
  ids.gary = await importEp('gary@example.org');
  ids.carol = await importEp('Carol@GMail.com');
  ids.gina = await tp('google', 'g-1', 'gina@outlook.com');
  ids.bobGh = await tp('github', 'gh-1', 'bob@github.io');
  ids.pat = await pless({ email: 'pat@gmail.com' });
  ids.phoneUs = await pless({ phoneNumber: '+14155550100' });
  ids.phoneUk = await pless({ phoneNumber: '+447700900123' });
  // A linked group: an email-password primary user and a GitHub login with the same email.
  ids.link = await importEp('link@corp.io');
  const social = await tp('github', 'gh-link', 'link@corp.io');
  expect((await api.post('/recipe/accountlinking/user/primary', { recipeUserId: ids.link })).json.status).toBe('OK');
  expect((await api.post('/recipe/accountlinking/user/link', { recipeUserId: social, primaryUserId: ids.link })).json.status).toBe('OK');
  ids.aliceT1 = await importEp('alice@t1.io', '/t1');
});
afterAll(async () => {
  await sb?.stop();
});

describe('GET /users?email=', () => {
  it('matches the start of the email or the start of its domain, in every recipe', async () => {
    expect(sorted(await search('email=g'))).toEqual(sorted(['gary', 'gina', 'alice', 'carol', 'bobGh', 'pat']));
    expect(sorted(await search('email=gmail'))).toEqual(sorted(['alice', 'carol', 'pat']));
    expect(await search('email=alice%40gmail.com')).toEqual(['alice']);
    expect(await search('email=corp.io')).toEqual(['link']);
  });

  it('nothing inside the email matches: "@", "mail", "lice"', async () => {
    expect(await search('email=%40')).toEqual([]);
    expect(await search('email=mail')).toEqual([]);
    expect(await search('email=lice')).toEqual([]);
  });

  it('tags are trimmed and lower-cased, so the search is case-insensitive', async () => {
    expect(sorted(await search('email=%20GMAIL%20'))).toEqual(sorted(['alice', 'carol', 'pat']));
    expect(await search('email=CAROL')).toEqual(['carol']);
  });

  it('several values separated by ";" are OR-ed', async () => {
    expect(sorted(await search('email=alice;bob'))).toEqual(sorted(['alice', 'bobYahoo', 'bobGh']));
    expect(sorted(await search('email=yahoo;outlook;%20;'))).toEqual(sorted(['bobYahoo', 'gina']));
  });

  it('a linked group appears once, as its primary user with all its login methods', async () => {
    const r = await api.get('/users?email=link');
    expect(r.json.users).toHaveLength(1);
    expect(r.json.users[0]).toMatchObject({ id: ids.link, isPrimaryUser: true });
    expect(r.json.users[0].loginMethods.map((m: { recipeId: string }) => m.recipeId).sort()).toEqual(['emailpassword', 'thirdparty']);
  });
});

describe('GET /users?phone= and ?provider=', () => {
  it('phone: a prefix of the stored E.164 number; several values OR-ed', async () => {
    expect(await search('phone=%2B1')).toEqual(['phoneUs']);
    expect(await search('phone=%2B4477')).toEqual(['phoneUk']);
    expect(sorted(await search('phone=%2B44;%2B1415'))).toEqual(sorted(['phoneUs', 'phoneUk']));
    expect(await search('phone=1')).toEqual([]);
    expect(await search('phone=%2B1(')).toEqual([]);
  });

  it('provider: a prefix of the third-party id, case-insensitive; a linked login finds its primary user', async () => {
    expect(sorted(await search('provider=g'))).toEqual(sorted(['gina', 'bobGh', 'link']));
    expect(sorted(await search('provider=gi'))).toEqual(sorted(['bobGh', 'link']));
    expect(await search('provider=GOOGLE')).toEqual(['gina']);
    expect(await search('provider=t')).toEqual([]);
  });
});

describe('combined tags', () => {
  it('email with provider: third-party logins matching both', async () => {
    expect(await search('email=b&provider=github')).toEqual(['bobGh']);
    expect(await search('email=link&provider=github')).toEqual(['link']);
    expect(await search('email=gina&provider=github')).toEqual([]);
  });

  it('email with phone: passwordless logins matching both (none here); phone with provider: nothing', async () => {
    expect(await search('email=pat&phone=%2B1')).toEqual([]);
    expect(await search('phone=%2B1&provider=g')).toEqual([]);
    expect(await search('email=g&phone=%2B1&provider=g')).toEqual([]);
  });
});

describe('order, limit, token, tenants', () => {
  it('users come in the /users order (timeJoined, then id DESC), reversed by timeJoinedOrder=DESC', async () => {
    const all = (await api.get('/users?limit=500')).json.users.map((u: User) => u.id) as string[];
    const found = await search('email=g');
    const expected = all.filter((id) => found.includes(Object.keys(ids).find((l) => ids[l] === id)!));
    expect(found.map((l) => ids[l])).toEqual(expected);
    expect(await search('email=g&timeJoinedOrder=DESC')).toEqual([...found].reverse());
  });

  it('the limit is not applied (nor capped at 500) and no pagination token is returned', async () => {
    expect(await search('email=g&limit=1')).toHaveLength(6);
    expect(await search('email=g&limit=1000')).toHaveLength(6);
    expect((await api.get('/users?limit=1000')).text).toBe(errorText('max limit allowed is 500'));
    expect((await api.get('/users?email=g&limit=0')).text).toBe(errorText('limit must a positive integer with min value 1'));
    // A token must still be valid, but the search ignores it.
    expect((await api.get('/users?email=g&paginationToken=%25%25')).text).toBe(errorText('invalid pagination token'));
    const first = (await api.get('/users?limit=1')).json.nextPaginationToken as string;
    expect(await search(`email=g&paginationToken=${encodeURIComponent(first)}`)).toHaveLength(6);
  });

  it('includeRecipeIds is validated but does not narrow a search', async () => {
    expect(sorted(await search('email=gmail&includeRecipeIds=passwordless'))).toEqual(sorted(['alice', 'carol', 'pat']));
    expect((await api.get('/users?email=g&includeRecipeIds=nope')).text).toBe(errorText('Unknown recipe ID: nope'));
  });

  it('tags that are empty after trimming make a plain listing, with its pagination', async () => {
    const r = await api.get('/users?email=%20;&limit=1');
    expect(r.json.users).toHaveLength(1);
    expect(typeof r.json.nextPaginationToken).toBe('string');
  });

  it('each tenant searches only its own login methods', async () => {
    expect(await search('email=alice')).toEqual(['alice']);
    expect(await search('email=alice', '/t1')).toEqual(['aliceT1']);
    expect(await search('email=t1.io')).toEqual([]);
  });

  it('a changed email is found under its new value only', async () => {
    await api.post('/recipe/signinup', {
      thirdPartyId: 'google',
      thirdPartyUserId: 'g-1',
      email: { id: 'zed@outlook.com', isVerified: true },
    });
    expect(await search('email=gina')).toEqual([]);
    expect(await search('email=zed')).toEqual(['gina']);
    expect(await search('email=outlook')).toEqual(['gina']);
  });
});
