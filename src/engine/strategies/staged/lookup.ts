// `--via bulk-staged`: what the core holds of the run's users, learnt before anything is staged. Read in bulk
// (strategies/bulk/knowledge.ts) into a core of up to 10 users per user to migrate; into a larger one, each batch's users are
// looked up user by user instead of reading the whole core. A user costs one GET /users/by-accountinfo for the account
// info of its login methods (one email, one phone and one third-party id at a time, as a union) and one GET
// /user/id for its external id; the users found are added to a CoreKnowledge, so the staging decision
// (holdsAnyOf) is the one the whole-core listing feeds; a small run into a large core no longer reads all of it
// before its one upload (docs/benchmarks.md).
// Invariant: a user found by any of its login methods or its external id is known held, so it is never staged.
import type { BulkLoginMethodBody, BulkUserBody } from '../../../core-client/import-bodies.js';
import type { AccountInfoQuery, CoreClient } from '../../../core-client/types.js';
import { CoreKnowledge, coreSize, LISTING_WORTH_IT } from '../bulk/knowledge.js';
import { PlanError } from '../../plan/plan.js';
import type { Admitted } from '../../strategy.js';
import { StagingSnapshot } from './staging-list.js';

export interface Learnt {
  snapshot: StagingSnapshot;
  knowledge: CoreKnowledge;
  /** Each batch's users are looked up (the core is many times larger than the run). */
  lookUp: boolean;
}

type Pooled = <T>(items: Iterable<T>, fn: (item: T) => Promise<void>) => Promise<void>;
type Phase = (phase: 'learning' | 'uploading', detail: string) => void;

/** The staging list and, for a core not many times larger than the run, every user it holds. */
export async function learnCore(core: CoreClient, usersToMigrate: number, batchSize: number, phase: Phase): Promise<Learnt> {
  // A core that does not say its size is read in bulk, as before there were look-ups.
  const { count: coreUsers, manyTimesLarger: lookUp } = await coreSize(core, usersToMigrate);
  phase(
    'learning',
    lookUp
      ? `reading the core's staging list; the core holds ${(coreUsers ?? 0).toLocaleString('en-US')} users, more than ` +
          `${LISTING_WORTH_IT} for each user of this run: each of the run's users is looked up instead of reading them all`
      : 'reading what the core holds (its users, 500 a request) and its staging list',
  );
  const snapshot = await StagingSnapshot.read(core);
  const knowledge = lookUp ? new CoreKnowledge() : await CoreKnowledge.learn(core);
  const rows = Object.values(snapshot.counts).reduce((a, b) => a + b, 0);
  phase(
    'uploading',
    `the core holds ${(lookUp ? (coreUsers ?? 0) : knowledge.users).toLocaleString('en-US')} users and ` +
      `${rows.toLocaleString('en-US')} staged rows; staging in batches of ${batchSize.toLocaleString('en-US')}`,
  );
  return { snapshot, knowledge, lookUp };
}

/** A batch's plans (users with journalled steps and plan errors left to the batch's loop), and its look-ups. */
export async function planAndLookUp<P extends { body: BulkUserBody }>(
  core: CoreClient,
  users: readonly Admitted[],
  planOf: (user: Admitted) => P,
  knowledge: CoreKnowledge,
  lookUp: boolean,
  pooled: Pooled,
): Promise<Map<Admitted, P>> {
  const plans = new Map<Admitted, P>();
  if (!lookUp) return plans;
  for (const user of users) {
    if (user.journalled && user.journalled.steps.size > 0) continue;
    try {
      plans.set(user, planOf(user));
    } catch (err) {
      if (!(err instanceof PlanError)) throw err;
    }
  }
  await lookUpHeld(
    core,
    [...plans.values()].map((p) => p.body),
    pooled,
    knowledge,
  );
  return plans;
}

/** The by-accountinfo queries covering every login method's account info: one email, phone and third-party id each. */
export function accountQueries(methods: readonly BulkLoginMethodBody[]): AccountInfoQuery[] {
  const queries: AccountInfoQuery[] = [];
  const place = (fits: (q: AccountInfoQuery) => boolean, fill: (q: AccountInfoQuery) => void): void => {
    let q = queries.find(fits);
    if (!q) queries.push((q = { doUnionOfAccountInfo: true }));
    fill(q);
  };
  for (const m of methods) {
    if (m.recipeId === 'thirdparty' && m.thirdPartyId !== undefined && m.thirdPartyUserId !== undefined) {
      place(
        (q) => q.thirdPartyId === undefined,
        (q) => {
          q.thirdPartyId = m.thirdPartyId;
          q.thirdPartyUserId = m.thirdPartyUserId;
        },
      );
    }
    if (m.phoneNumber !== undefined) {
      const phone = m.phoneNumber;
      place(
        (q) => q.phoneNumber === undefined || q.phoneNumber === phone,
        (q) => (q.phoneNumber = phone),
      );
    }
    if (m.email !== undefined) {
      const email = m.email;
      place(
        (q) => q.email === undefined || q.email === email,
        (q) => (q.email = email),
      );
    }
  }
  return queries;
}

/** Look each body's user up and add what the core holds of them to `knowledge` (the users found, whole). */
export async function lookUpHeld(
  core: CoreClient,
  bodies: readonly BulkUserBody[],
  pooled: Pooled,
  knowledge: CoreKnowledge = new CoreKnowledge(),
): Promise<CoreKnowledge> {
  const tenant = core.tenantId;
  await pooled(bodies, async (body) => {
    for (const q of accountQueries(body.loginMethods)) {
      const r = await core.listUsersByAccountInfo(q);
      for (const user of r.users) knowledge.addUser(user, tenant);
    }
    if (body.externalUserId !== undefined) {
      const r = await core.getUserById(body.externalUserId);
      if (r.status === 'OK') knowledge.addUser(r.user, tenant);
    }
  });
  return knowledge;
}
