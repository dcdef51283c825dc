// What the core already holds, learnt in bulk instead of user by user: the account info of every login method
// (and every external id) of the run's tenant, read from GET /users pages (500 users a request; one request for
// an empty core) and kept as 64-bit hashes (about 24 bytes a key, so a core of a million users costs tens of MB).
// The staged path stages only users with none of their keys here; the others are partly in the core already and
// go through the per-user steps. The steps path skips the look-up of a user known to be absent (strategies/steps/knowledge.ts).
// A hash collision can only make a user look present (it is then looked up properly), never absent.
// Invariant: a hash collision only makes a user look present (then looked up properly), never absent.
import type { BulkLoginMethodBody, BulkUserBody } from '../../../core-client/import-bodies.js';
import type { CoreClient, CoreUser } from '../../../core-client/types.js';
import { usersInTenant } from '../../../core-client/users-count.js';
import { KeyTable } from '../../../records/key-table.js';
import { readUsersSliced, splitCore, USERS_PAGE } from '../staged/slices.js';
import type { Step } from '../../plan/steps.js';

const norm = (email: string): string => email.trim().toLowerCase();

/** The key of a bulk login method: its tenant, recipe and account info (emails normalised as the core does). */
export function methodKey(
  m: Pick<BulkLoginMethodBody, 'recipeId' | 'tenantIds' | 'email' | 'phoneNumber' | 'thirdPartyId' | 'thirdPartyUserId'>,
): string {
  const tenant = m.tenantIds?.[0] ?? 'public';
  if (m.recipeId === 'thirdparty') return `${tenant}|tp|${m.thirdPartyId}|${m.thirdPartyUserId}`;
  if (m.recipeId === 'passwordless' && m.phoneNumber !== undefined) return `${tenant}|pl-phone|${m.phoneNumber}`;
  return `${tenant}|${m.recipeId}|${norm(m.email ?? '')}`;
}

/** Every key a bulk user would take in the core: each login method's (a passwordless one by phone and email) and its external id. */
export function bodyKeys(body: BulkUserBody): string[] {
  const keys = body.loginMethods.map(methodKey);
  for (const m of body.loginMethods) {
    if (m.recipeId === 'passwordless' && m.phoneNumber !== undefined && m.email !== undefined) {
      keys.push(methodKey({ ...m, phoneNumber: undefined }));
    }
  }
  if (body.externalUserId !== undefined) keys.push(`ext|${body.externalUserId}`);
  return keys;
}

/** The keys a core user holds in `tenant`: one per login method's account info, and its id (an external id when mapped). */
export function coreUserKeys(user: CoreUser, tenant: string): string[] {
  const keys: string[] = [`ext|${user.id}`];
  for (const m of user.loginMethods) {
    keys.push(...loginMethodKeys(m, tenant));
    if (m.recipeUserId !== user.id) keys.push(`ext|${m.recipeUserId}`);
  }
  return keys;
}

/** The account-info keys of one login method of a core user in `tenant` (methodKey's; a passwordless one by phone and email). */
export function loginMethodKeys(m: CoreUser['loginMethods'][number], tenant: string): string[] {
  const keys: string[] = [];
  const t = { tenantIds: [tenant] };
  if (m.recipeId === 'emailpassword' && m.email) keys.push(methodKey({ ...t, recipeId: 'emailpassword', email: m.email }));
  if (m.recipeId === 'thirdparty' && m.thirdParty)
    keys.push(methodKey({ ...t, recipeId: 'thirdparty', thirdPartyId: m.thirdParty.id, thirdPartyUserId: m.thirdParty.userId }));
  if (m.recipeId === 'passwordless') {
    if (m.phoneNumber) keys.push(methodKey({ ...t, recipeId: 'passwordless', phoneNumber: m.phoneNumber }));
    if (m.email) keys.push(methodKey({ ...t, recipeId: 'passwordless', email: m.email }));
  }
  return keys;
}

export class CoreKnowledge {
  private readonly keys = new KeyTable();
  /** Users read from the core. */
  users = 0;

  /**
   * Read every user of the core's tenant once: a large core in `slices` parts at once, split evenly by join time
   * (strategies/staged/slices.ts; a million users took 11 minutes in one pass on the PostgreSQL reference under load).
   */
  static async learn(core: CoreClient, slices = 4, pageSize = USERS_PAGE): Promise<CoreKnowledge> {
    const known = new CoreKnowledge();
    const points = await splitCore(core, slices, pageSize);
    await readUsersSliced(
      core,
      points,
      (page) => {
        for (const user of page) known.addUser(user, core.tenantId);
      },
      pageSize,
    );
    return known;
  }

  addUser(user: CoreUser, tenant: string): void {
    if (this.keys.get(`ext|${user.id}`) !== undefined) return; // read twice (at a split point)
    this.users += 1;
    for (const key of coreUserKeys(user, tenant)) this.keys.set(key, 0);
  }

  has(key: string): boolean {
    return this.keys.get(key) !== undefined;
  }

  /** Whether any key of this bulk user is in the core already (then bulk import would refuse it: the steps complete it). */
  holdsAnyOf(body: BulkUserBody): boolean {
    return bodyKeys(body).some((k) => this.has(k));
  }
}

/** The key of the login method a step that creates a user would make (as methodKey), or undefined for other steps. */
export function stepKey(step: Step, tenant: string): string | undefined {
  const t = { tenantIds: [tenant] };
  if (step.kind === 'import-password') return methodKey({ ...t, recipeId: 'emailpassword', email: step.email });
  if (step.kind === 'thirdparty-signinup')
    return methodKey({ ...t, recipeId: 'thirdparty', thirdPartyId: step.thirdPartyId, thirdPartyUserId: step.thirdPartyUserId });
  if (step.kind === 'passwordless-signinup')
    return methodKey({
      ...t,
      recipeId: 'passwordless',
      ...(step.email !== undefined ? { email: step.email } : { phoneNumber: step.phoneNumber }),
    });
  return undefined;
}

/** Core users per user to migrate above which reading them all costs more than looking each user up. */
export const LISTING_WORTH_IT = 10;

/**
 * The core's users (GET /users/count), and whether it holds more than LISTING_WORTH_IT of them per user to migrate
 * (then looking each user up costs less than reading them all). `count` is undefined when the core did not say.
 */
export async function coreSize(core: CoreClient, usersToMigrate: number): Promise<{ count?: number; manyTimesLarger: boolean }> {
  const count = await usersInTenant(core).catch(() => undefined);
  if (count === undefined) return { manyTimesLarger: false };
  return { count, manyTimesLarger: count > LISTING_WORTH_IT * Math.max(1, usersToMigrate) };
}
