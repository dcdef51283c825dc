// What the core already holds, learnt in bulk instead of user by user: the account info of every login method
// (and every external id) of the run's tenant, read from GET /users pages (500 users a request; one request for
// an empty core) and kept as 64-bit hashes (about 24 bytes a key, so a core of a million users costs tens of MB).
// The staged path stages only users with none of their keys here; the others are partly in the core already and
// go through the per-user steps. The steps path skips the look-up of a user known to be absent (FreshKnowledge).
// A hash collision can only make a user look present (it is then looked up properly), never absent.
import type { BulkLoginMethodBody, BulkUserBody } from '../core-client/bulk-types.js';
import { CoreHttpError } from '../core-client/errors.js';
import type { CoreClient, CoreUser } from '../core-client/types.js';
import { usersInTenant } from '../core-client/users-count.js';
import { KeyTable } from '../records/key-table.js';
import { readSince, readUsersSliced, splitCore, USERS_PAGE } from './staged-slices.js';
import type { Step } from './steps.js';

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
    const t = { tenantIds: [tenant] };
    if (m.recipeId === 'emailpassword' && m.email) keys.push(methodKey({ ...t, recipeId: 'emailpassword', email: m.email }));
    if (m.recipeId === 'thirdparty' && m.thirdParty)
      keys.push(methodKey({ ...t, recipeId: 'thirdparty', thirdPartyId: m.thirdParty.id, thirdPartyUserId: m.thirdParty.userId }));
    if (m.recipeId === 'passwordless') {
      if (m.phoneNumber) keys.push(methodKey({ ...t, recipeId: 'passwordless', phoneNumber: m.phoneNumber }));
      if (m.email) keys.push(methodKey({ ...t, recipeId: 'passwordless', email: m.email }));
    }
    if (m.recipeUserId !== user.id) keys.push(`ext|${m.recipeUserId}`);
  }
  return keys;
}

export class CoreKnowledge {
  private readonly keys = new KeyTable();
  /** Users read from the core. */
  users = 0;

  /**
   * Read every user of the core's tenant once: a large core in `slices` parts at once, split evenly by join time
   * (staged-slices.ts; a million users took 11 minutes in one pass on the PostgreSQL reference under load).
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

/**
 * Listing costs more than the look-ups it saves above this many ms per user listed (pages of JUDGED_FROM users or
 * more). Measured on the reference 11.4.4 on PostgreSQL 15 (2-core machine), 20,000 users `--via steps` at
 * concurrency 32: while every step waited for each refresh, 75.6 s with the listing (pages at 0.2-0.56 ms a user)
 * against 65.6 s looking each user up (bare script 50.8 s, load 2-4), so the bound was 0.15 ms; on 2026-11-26, with
 * that bound, pages under load crossed it and every user was looked up: 50.3-54.7 s (68,700 requests) against the
 * bare script's 32.3-41.3 s; with no bound, 40.3-41.5 s (42,900 requests, the bare script's 42,667) against 29.8-33.4
 * s. Refreshes are no longer waited for (FreshKnowledge.fresh), so a page now costs only the core's time to read it:
 * the bound is 0.6 ms a user (300 ms a page of 500), beside the half-second bound on any page. The sandbox lists 500
 * users in 6-14 ms (0.01-0.03 ms a user).
 */
export const SLOW_MS_PER_USER = 0.6;
const JUDGED_FROM = 100;

/** Users created in the core this long before the newest one seen may still be committing: read again. */
const COMMIT_MARGIN_MS = 5_000;

/**
 * `--via steps`: what the core holds, learnt once in bulk and kept fresh from the newest end (GET /users from the
 * newest join time the last read saw, less a commit margin, in three readers), so that a step that creates a user skips its look-up when
 * its login method is known to be absent: about one request per user fewer. Never older than `maxAgeMs` when
 * asked. Users another tool bulk-imports meanwhile (with old join dates) are not seen; a sign-up in the app within
 * that last second could have its password hash replaced by the import, which then answers that it existed.
 */
export class FreshKnowledge {
  private known: CoreKnowledge | undefined;
  /** A page took longer than half the freshness bound, or cost more than SLOW_MS_PER_USER a user: every user is looked up. */
  private slow = false;
  /** The core takes a made pagination token (staged-slices.ts): refreshes read in slices. */
  private madeTokens = true;
  private learning: Promise<void> | undefined;
  private refreshing: Promise<void> | undefined;
  private refreshedAt = 0;
  private newest = 0;

  constructor(
    private readonly core: CoreClient,
    private readonly maxAgeMs = 1_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the login method `step` creates is known to be absent from the core (false when unsure). */
  async absent(step: Step): Promise<boolean> {
    const key = stepKey(step, this.core.tenantId);
    if (key === undefined || this.slow) return false;
    try {
      await this.fresh();
    } catch {
      return false; // the listing failed: the step looks the user up as it always did
    }
    // The step also finds its user by the external id (a user whose email changed in the core since the export).
    const external = (step as { externalUserId?: string }).externalUserId;
    return this.known !== undefined && !this.known.has(key) && (external === undefined || !this.known.has(`ext|${external}`));
  }

  /**
   * The first listing is waited for; a refresh is not: while it reads, steps look their users up as without
   * knowledge (a refresh waited for held every worker for its pages each second), and `known` answers again once
   * it is done. Throws when the listing failed or the knowledge is stale.
   */
  private async fresh(): Promise<void> {
    if (!this.known) {
      this.learning ??= this.read(false).finally(() => (this.learning = undefined));
      return this.learning;
    }
    if (this.now() - this.refreshedAt < this.maxAgeMs) return;
    this.refreshing ??= this.read(true)
      .catch(() => undefined) // slow or failed: `slow` is set or the next refresh tries again
      .finally(() => (this.refreshing = undefined));
    throw new Error('refreshing');
  }

  /** The refresh under way, if any (tests wait for it). */
  async refreshed(): Promise<void> {
    await this.refreshing;
  }

  /** Every user (oldest first), or the newest down to the newest the last read saw. */
  private async read(newestOnly: boolean): Promise<void> {
    const started = this.now();
    const known = this.known ?? new CoreKnowledge();
    const floor = this.newest - COMMIT_MARGIN_MS;
    if (newestOnly && this.madeTokens) {
      try {
        return await this.refreshSliced(known, floor, started);
      } catch (err) {
        if (!(err instanceof CoreHttpError && err.status === 400)) throw err;
        this.madeTokens = false; // a core whose tokens are not "<id>;<time>": newest first, in one reader
      }
    }
    let token: string | undefined;
    let newest = this.newest;
    do {
      const asked = performance.now();
      const page = await this.core.listUsers({
        limit: USERS_PAGE,
        paginationToken: token,
        ...(newestOnly ? { timeJoinedOrder: 'DESC' } : {}),
      });
      // A core that lists slowly (the reference core's SQLite storage: 1-2.5 s for a page of 500 under load, against
      // 30 ms for a look-up) would have every user wait for a listing that is stale again before it ends. One that
      // lists at a real cost per user (the reference on PostgreSQL: 100-280 ms a page of 500) spends more on
      // re-reading the newest users every second than the look-ups it saves (SLOW_MS_PER_USER).
      const took = performance.now() - asked;
      if (took > this.maxAgeMs / 2 || (page.users.length >= JUDGED_FROM && took / page.users.length > SLOW_MS_PER_USER)) {
        this.slow = true;
        throw new Error(`GET /users took ${Math.round(took)} ms for ${page.users.length} users: looking each user up instead`);
      }
      let older = false;
      for (const user of page.users) {
        known.addUser(user, this.core.tenantId);
        for (const m of user.loginMethods) newest = Math.max(newest, m.timeJoined);
        if (newestOnly && user.timeJoined < floor) older = true;
      }
      token = older ? undefined : page.nextPaginationToken;
    } while (token);
    this.known = known;
    this.newest = newest;
    this.refreshedAt = started;
  }

  /**
   * The refresh in REFRESH_SLICES readers at once, each from a join time (staged-slices.ts readSince): the 5 s of
   * commit margin re-read each second are about 3,000 users at 500 users/s, six pages in a row otherwise, during
   * which the steps look their users up.
   */
  private async refreshSliced(known: CoreKnowledge, floor: number, started: number): Promise<void> {
    const asked = performance.now();
    let newest = this.newest;
    let read = 0;
    await readSince(this.core, floor, COMMIT_MARGIN_MS + this.maxAgeMs, REFRESH_SLICES, (users) => {
      read += users.length;
      for (const user of users) {
        known.addUser(user, this.core.tenantId);
        for (const m of user.loginMethods) newest = Math.max(newest, m.timeJoined);
      }
    });
    const took = performance.now() - asked;
    // A refresh that cannot keep up (the knowledge would always be stale), or that costs more a user than the
    // look-ups it saves. Counted on the refresh's own time (its readers at once): with a page's bound times the
    // readers, two of three runs of 20,000 users on the reference turned it off and looked every user up.
    if (took > this.maxAgeMs || (read >= JUDGED_FROM && took / read > SLOW_MS_PER_USER)) {
      this.slow = true;
      throw new Error(`a refresh took ${Math.round(took)} ms for ${read} users: looking each user up instead`);
    }
    this.known = known;
    this.newest = newest;
    this.refreshedAt = started;
  }
}

/** Readers of a refresh at once. */
const REFRESH_SLICES = 3;

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

/**
 * `--via steps`: the look-up skipper, once the core is known to be small enough that listing it is cheaper than a
 * look-up per user (GET /users/count, one request, at the first user that needs it); otherwise every user is
 * looked up as before.
 */
export function knownAbsentForSteps(core: CoreClient, usersToMigrate: number): (step: Step) => Promise<boolean> {
  let knowledge: Promise<FreshKnowledge | undefined> | undefined;
  return async (step) => {
    // A core that does not say its size is looked up user by user, as before there was knowledge.
    knowledge ??= coreSize(core, usersToMigrate).then(({ count, manyTimesLarger }) =>
      count !== undefined && !manyTimesLarger ? new FreshKnowledge(core) : undefined,
    );
    const k = await knowledge;
    return k ? k.absent(step) : false;
  };
}
