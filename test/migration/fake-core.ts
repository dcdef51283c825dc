// A small in-memory stand-in for the core's importer endpoints, for runner unit tests (fault injection,
// in-flight counting). End-to-end tests use the real sandbox core instead.
import { randomUUID } from 'node:crypto';
import { CoreHttpError, CoreLicenseError } from '../../src/core-client/errors.js';
import type { CoreClient, CoreUser, LoginMethod } from '../../src/core-client/types.js';

interface RecipeUser extends LoginMethod {
  primary?: string;
}

export interface FakeCore {
  client: CoreClient;
  calls: string[];
  recipeUsers: Map<string, RecipeUser>;
  maxInFlight: number;
  /** Throw a 402 for this method name. */
  licenceMissing: Set<string>;
  /** Hold each call until this resolves (to observe in-flight work). */
  delayMs: number;
  /** Answer this method with a (non-fatal) HTTP 500, as the client does once its retries are spent. */
  serverError: Set<string>;
}

export function createFakeCore(): FakeCore {
  const recipeUsers = new Map<string, RecipeUser>();
  const mapping = new Map<string, string>(); // st -> ext
  const devices = new Map<string, Map<string, { period: number; skew: number }>>();
  const codes = new Map<string, { email?: string; phoneNumber?: string; code: string }>();
  let inFlight = 0;
  const fake: FakeCore = { client: undefined as unknown as CoreClient, calls: [], recipeUsers, maxInFlight: 0, licenceMissing: new Set(), delayMs: 0, serverError: new Set() };

  const ext = (st: string) => mapping.get(st) ?? st;
  const st = (id: string) => [...mapping.entries()].find(([, e]) => e === id)?.[0] ?? id;
  const userJson = (rid: string): CoreUser => {
    const r = recipeUsers.get(rid)!;
    const primary = r.primary ?? rid;
    const members = [...recipeUsers.values()].filter((u) => (u.primary ?? u.recipeUserId) === primary);
    return {
      id: ext(primary),
      isPrimaryUser: members.length > 1 || r.primary !== undefined,
      tenantIds: ['public'],
      timeJoined: 0,
      emails: members.flatMap((m) => (m.email ? [m.email] : [])),
      phoneNumbers: members.flatMap((m) => (m.phoneNumber ? [m.phoneNumber] : [])),
      thirdParty: members.flatMap((m) => (m.thirdParty ? [m.thirdParty] : [])),
      loginMethods: members.map((m) => ({ ...m, recipeUserId: ext(m.recipeUserId), primary: undefined })),
    };
  };
  const create = (lm: Omit<LoginMethod, 'recipeUserId' | 'tenantIds' | 'verified' | 'timeJoined'>): string => {
    const id = randomUUID();
    recipeUsers.set(id, { ...lm, recipeUserId: id, tenantIds: ['public'], verified: false, timeJoined: Date.now() });
    return id;
  };
  const call = async <T>(name: string, fn: () => T): Promise<T> => {
    fake.calls.push(name);
    inFlight += 1;
    fake.maxInFlight = Math.max(fake.maxInFlight, inFlight);
    try {
      if (fake.delayMs > 0) await new Promise((r) => setTimeout(r, fake.delayMs));
      if (fake.licenceMissing.has(name)) throw new CoreLicenseError('MFA feature is not enabled.', 'POST', `/${name}`, 'http://fake');
      if (fake.serverError.has(name)) throw new CoreHttpError(500, 'java.lang.RuntimeException: boom', 'POST', `/${name}`, false);
      return fn();
    } finally {
      inFlight -= 1;
    }
  };
  const find = (pred: (u: RecipeUser) => boolean) => [...recipeUsers.values()].find(pred);

  const client: Partial<CoreClient> = {
    url: 'http://fake',
    importPasswordHash: (i) =>
      call('importPasswordHash', () => {
        const existing = find((u) => u.recipeId === 'emailpassword' && u.email === i.email);
        const id = existing?.recipeUserId ?? create({ recipeId: 'emailpassword', email: i.email });
        return { status: 'OK' as const, user: userJson(id), didUserAlreadyExist: !!existing };
      }),
    thirdPartySignInUp: (i) =>
      call('thirdPartySignInUp', () => {
        const existing = find((u) => u.thirdParty?.id === i.thirdPartyId && u.thirdParty.userId === i.thirdPartyUserId);
        const id = existing?.recipeUserId ?? create({ recipeId: 'thirdparty', email: i.email.id, thirdParty: { id: i.thirdPartyId, userId: i.thirdPartyUserId } });
        return { status: 'OK' as const, createdNewUser: !existing, user: userJson(id), recipeUserId: ext(id) };
      }),
    createCode: (i) =>
      call('createCode', () => {
        const preAuthSessionId = randomUUID();
        codes.set(preAuthSessionId, { ...('email' in i ? { email: i.email } : {}), ...('phoneNumber' in i ? { phoneNumber: i.phoneNumber } : {}), code: '123456' });
        return { status: 'OK' as const, preAuthSessionId, codeId: 'c', deviceId: preAuthSessionId, userInputCode: '123456', linkCode: 'l', timeCreated: 0, codeLifetime: 1 };
      }),
    consumeCode: (i) =>
      call('consumeCode', () => {
        const c = codes.get(i.preAuthSessionId);
        if (!c) return { status: 'RESTART_FLOW_ERROR' as const };
        codes.delete(i.preAuthSessionId);
        const existing = find((u) => u.recipeId === 'passwordless' && (c.email ? u.email === c.email : u.phoneNumber === c.phoneNumber));
        const id = existing?.recipeUserId ?? create({ recipeId: 'passwordless', email: c.email, phoneNumber: c.phoneNumber });
        return { status: 'OK' as const, createdNewUser: !existing, user: userJson(id), recipeUserId: ext(id) };
      }),
    updatePasswordlessUser: (i) =>
      call('updatePasswordlessUser', () => {
        const u = recipeUsers.get(st(i.recipeUserId));
        if (!u) return { status: 'UNKNOWN_USER_ID_ERROR' as const };
        if (typeof i.email === 'string') u.email = i.email;
        if (typeof i.phoneNumber === 'string') u.phoneNumber = i.phoneNumber;
        return { status: 'OK' as const };
      }),
    getUserById: (id) =>
      call('getUserById', () => (recipeUsers.has(st(id)) ? { status: 'OK' as const, user: userJson(st(id)) } : { status: 'UNKNOWN_USER_ID_ERROR' as const })),
    createUserIdMapping: (i) =>
      call('createUserIdMapping', () => {
        if (!recipeUsers.has(i.superTokensUserId)) return { status: 'UNKNOWN_SUPERTOKENS_USER_ID_ERROR' as const };
        const stExists = mapping.has(i.superTokensUserId);
        const extExists = [...mapping.values()].includes(i.externalUserId);
        if (stExists || extExists) return { status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR' as const, doesSuperTokensUserIdExist: stExists, doesExternalUserIdExist: extExists };
        mapping.set(i.superTokensUserId, i.externalUserId);
        return { status: 'OK' as const };
      }),
    getUserIdMapping: (id) =>
      call('getUserIdMapping', () => {
        const s = st(id);
        return mapping.has(s) ? { status: 'OK' as const, superTokensUserId: s, externalUserId: mapping.get(s)! } : { status: 'UNKNOWN_MAPPING_ERROR' as const };
      }),
    createPrimaryUser: (id) =>
      call('createPrimaryUser', () => {
        const u = recipeUsers.get(st(id))!;
        const was = u.primary === u.recipeUserId;
        u.primary = u.recipeUserId;
        return { status: 'OK' as const, wasAlreadyAPrimaryUser: was, user: userJson(u.recipeUserId) };
      }),
    linkAccounts: (rid, pid) =>
      call('linkAccounts', () => {
        const u = recipeUsers.get(st(rid))!;
        const p = st(pid);
        const already = u.primary === p;
        u.primary = p;
        return { status: 'OK' as const, accountsAlreadyLinked: already, user: userJson(p) };
      }),
    importTotpDevice: (i) =>
      call('importTotpDevice', () => {
        const list = devices.get(i.userId) ?? new Map();
        devices.set(i.userId, list);
        if (list.has(i.deviceName!)) return { status: 'DEVICE_ALREADY_EXISTS_ERROR' as const };
        list.set(i.deviceName!, { period: i.period, skew: i.skew });
        return { status: 'OK' as const, deviceName: i.deviceName! };
      }),
    listTotpDevices: (userId) =>
      call('listTotpDevices', () => ({
        status: 'OK' as const,
        devices: [...(devices.get(userId) ?? new Map()).entries()].map(([name, d]) => ({ name, ...d, verified: true })),
      })),
  };
  fake.client = client as CoreClient;
  return fake;
}
