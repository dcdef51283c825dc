// `run --sync` as a strategy of the one engine (strategy.ts): the users new to the core go to the `--via`
// path's own strategy (steps, bulk or bulk-staged), the changed ones through their per-user sync steps (bulk import
// cannot update a user), and users gone from the export are listed, or removed with --remove-missing when the
// migration created them and nobody changed them since. Each step goes through the exactly-once rule and is
// journalled; the user's finishing line carries its new fingerprint (or "-" once removed).
// Invariant: each step goes through the exactly-once rule and is journalled; the finishing line carries the user's new
// fingerprint.
import { CoreClientError } from '../../core-client/errors.js';
import type { UserResult } from '../events.js';
import { applyStepIds, executeStep, newUserIds, resolveRef, type UserIds } from '../strategies/steps/execute.js';
import { stepIdentity } from '../strategies/steps/intent.js';
import type { Admitted, EngineContext, StrategyFactory } from '../strategy.js';
import { stepShapeIds } from '../rollback/shape.js';
import type { Step } from '../plan/steps.js';
import { planUserChanges, roleTenants, type CoreView } from './plan-user.js';
import { removeUser } from './remove-user.js';
import { kindOf, type SyncWork } from './work.js';
import { holdEmail } from './plan-email.js';
import { readBackStep } from './read-back.js';
import { userIdOf } from './chain.js';
import type { CanonicalUser } from '../../records/types.js';

const norm = (s: string): string => s.trim().toLowerCase();
const FIRST = (key: string): boolean => key === 'password' || key === 'phone' || key === 'otp' || key.startsWith('thirdparty:');

/** What the core holds of the user, for the parts that changed (one to four reads). */
async function readView(
  ctx: EngineContext,
  userId: string,
  record: CanonicalUser,
  old: CanonicalUser | undefined,
  parts: readonly string[],
): Promise<CoreView | undefined> {
  const core = ctx.core;
  const found = await core.getUserById(userId);
  if (found.status !== 'OK') return undefined;
  const view: CoreView = { user: found.user };
  const uid = found.user.id;
  if (parts.includes('totp')) view.devices = (await core.listTotpDevices(uid)).devices;
  if (parts.includes('metadata')) view.metadata = (await core.getUserMetadata(uid)).metadata;
  if (parts.includes('roles') || parts.includes('disabled')) {
    view.roles = new Map();
    for (const t of roleTenants(record, old, ctx.plan)) {
      view.roles.set(t, (await (t ? core.forTenant(t) : core).getUserRoles(uid)).roles);
    }
  }
  return view;
}

/** Journal ids a step that changed a login's email or phone adds: the login's new fingerprint (and its old one). */
function shapeIds(step: Step, view: CoreView, ids: UserIds): Record<string, string> {
  const was = (id: string): Record<string, string> => {
    const lm = view.user.loginMethods.find((m) => m.recipeUserId === id);
    const old =
      lm &&
      stepShapeIds(
        lm.recipeId === 'thirdparty'
          ? {
              kind: 'thirdparty-signinup',
              key: '',
              thirdPartyId: lm.thirdParty!.id,
              thirdPartyUserId: lm.thirdParty!.userId,
              email: lm.email ?? '',
              isVerified: false,
            }
          : lm.recipeId === 'emailpassword'
            ? { kind: 'import-password', key: 'password', email: lm.email ?? '', passwordHash: '', hashingAlgorithm: '' }
            : { kind: 'passwordless-signinup', key: 'phone', phoneNumber: lm.phoneNumber ?? '' },
      ).sig;
    return old ? { was: old } : {};
  };
  return { ...targetIds(step, ids), ...loginShapeIds(step, view, was) };
}

/** The login (or user) a sync step acted on, journalled as `login`: a rollback of the sync puts it back there. */
function targetIds(step: Step, ids: UserIds): Record<string, string> {
  if ('recipeUserId' in step && typeof step.recipeUserId === 'string') return { login: step.recipeUserId };
  if (step.kind === 'verify-email' || step.kind === 'unverify-email' || step.kind === 'passwordless-add-contact')
    return { login: resolveRef(ids, step.user) };
  return {};
}

function loginShapeIds(step: Step, view: CoreView, was: (id: string) => Record<string, string>): Record<string, string> {
  if (step.kind === 'change-email')
    return {
      ...was(step.recipeUserId),
      ...stepShapeIds({ kind: 'import-password', key: 'password', email: step.email, passwordHash: '', hashingAlgorithm: '' }),
    };
  if (step.kind === 'update-thirdparty')
    return { ...was(step.recipeUserId), ...stepShapeIds({ ...step, kind: 'thirdparty-signinup', key: step.key }) };
  if (step.kind === 'passwordless-add-contact' && step.key === 'sync:phone:phone' && step.phoneNumber !== undefined) {
    const lm = view.user.loginMethods.find((m) => m.recipeId === 'passwordless' && m.phoneNumber !== undefined);
    return {
      ...(lm ? was(lm.recipeUserId) : {}),
      ...stepShapeIds({ kind: 'passwordless-signinup', key: 'phone', phoneNumber: step.phoneNumber }),
    };
  }
  return {};
}

/** A user parked on a hold address until the email it moves to is free (a swap): finished by drain. */
const DEFERRED = 'deferred';

/**
 * One changed user: read, plan, each step exactly once, read back and journalled; undefined when the run stopped
 * midway; DEFERRED when its new email is still another user's that this sync moves away (tried again after them).
 */
async function syncUser(
  ctx: EngineContext,
  work: SyncWork,
  { input, journalled }: Admitted,
  mayDefer: boolean,
): Promise<UserResult | undefined | typeof DEFERRED> {
  const id = input.record.id;
  const base = { id, stepsRun: 0, stepsFromJournal: 0 };
  const history = work.histories.get(id) ?? new Map();
  const parts = work.changed.get(id)!;
  const userId = userIdOf(history);
  const view = userId === undefined ? undefined : await readView(ctx, userId, input.record, work.olds.get(id), parts);
  if (!view) {
    const message = `the user is not in the core any more (removed since the earlier run${userId ? `: ${userId}` : ''}): left; a run without --sync adds it again`;
    ctx.journal.append({ type: 'user', user: id, outcome: 'failed', step: 'sync:read', status: 'NOT_IN_CORE' });
    return { ...base, outcome: 'failed', step: 'sync:read', status: 'NOT_IN_CORE', message };
  }
  const plan = planUserChanges({ record: input.record, parts, history, old: work.olds.get(id) }, view, ctx.plan);
  let stepsRun = 0;
  const applied = new Set<string>();
  const failed = (key: string, status: string, message: string): UserResult => {
    ctx.journal.append({ type: 'user', user: id, outcome: 'failed', step: key, status });
    return { ...base, outcome: 'failed', step: key, status, message, stepsRun };
  };
  for (const step of plan.steps) {
    await ctx.gate();
    if (ctx.isStopping()) return undefined;
    // Write-ahead: every sync step changes a user that is already in the core, so each has its intent on the disk.
    const out = await executeStep(step, plan.ids, ctx.core, undefined, {
      intended: journalled?.intents?.has(step.key) === true,
      intend: () => ctx.journal.appendDurable({ type: 'intent', user: id, step: step.key, who: stepIdentity(step, plan.ids) }),
    });
    stepsRun += 1;
    if (!out.ok) {
      if (step.kind === 'change-email' && out.status === 'EMAIL_ALREADY_EXISTS_ERROR' && mayDefer && work.leaving.has(norm(step.email))) {
        const held = await holdLogin(ctx, id, step.recipeUserId, view);
        if (held === true) return DEFERRED;
        if (held) return failed('sync:email-hold:password', 'NOT_APPLIED', held);
      }
      return failed(step.key, out.status, out.message);
    }
    // Read back before the line that says it is done: a bare OK that applied nothing is a failure, tried again.
    const unseen = await readBackStep(step, plan.ids, ctx.core, out.ids);
    if (unseen !== undefined) return failed(step.key, 'NOT_APPLIED', unseen);
    applyStepIds(step, out.ids, plan.ids);
    const ids =
      out.result === 'created'
        ? { ...out.ids, ...shapeIds(step, view, plan.ids), ...(FIRST(step.key) ? stepShapeIds(step) : {}) }
        : out.ids;
    ctx.journal.append({ type: 'step', user: id, step: step.key, result: out.result, ids });
    if (out.result === 'created') applied.add(kindOf(step) ?? step.key);
    work.tally(step, out.result);
  }
  const changed = applied.size > 0;
  const notes = plan.notes.length > 0 ? `; left as they are: ${plan.notes.join('; ')}` : '';
  if (plan.problems.length > 0) {
    const first = plan.problems[0]!;
    ctx.journal.append({ type: 'user', user: id, outcome: 'failed', step: 'sync', status: first.status });
    const message = plan.problems.map((p) => p.message).join('; ') + notes;
    return { ...base, outcome: 'failed', step: 'sync', status: first.status, message, stepsRun, userId: view.user.id };
  }
  const outcome = changed ? 'imported' : 'alreadyPresent';
  ctx.journal.append({ type: 'user', user: id, outcome });
  // What was written, by kind of change; the parts the export changed that needed no write are named apart.
  const message = changed
    ? `updated: ${[...applied].join(', ')} (changed in the export: ${parts.join(', ')})${notes}`
    : `the core already matched the export (changed in the export: ${parts.join(', ')})${notes}`;
  return { ...base, outcome, stepsRun, message, userId: view.user.id };
}

/**
 * The email-password login parked on its hold address (plan-email.ts), journalled once read back: true; a message
 * when the core does not show it there.
 */
async function holdLogin(ctx: EngineContext, id: string, recipeUserId: string, view: CoreView): Promise<true | string> {
  const lm = view.user.loginMethods.find((m) => m.recipeUserId === recipeUserId);
  if (lm?.email === holdEmail(recipeUserId)) return true;
  const step: Step = { kind: 'change-email', key: 'sync:email-hold:password', recipeUserId, email: holdEmail(recipeUserId) };
  const ids = newUserIds();
  const out = await executeStep(step, ids, ctx.core, undefined, {
    intend: () => ctx.journal.appendDurable({ type: 'intent', user: id, step: step.key, who: stepIdentity(step, ids) }),
  });
  if (!out.ok) return `${out.status}: ${out.message}`;
  ctx.journal.append({ type: 'step', user: id, step: step.key, result: out.result, ids: { login: recipeUserId } });
  return true;
}

/** Runs one user of the sync and finishes it (or defers it); a fatal core error stops the run (the journal resumes it). */
async function finishSynced(ctx: EngineContext, work: SyncWork, user: Admitted, deferred?: Admitted[]): Promise<void> {
  const id = user.input.record.id;
  let result: UserResult | undefined | typeof DEFERRED;
  try {
    result = work.removals.has(id) ? await removeUser(ctx, work, user) : await syncUser(ctx, work, user, deferred !== undefined);
  } catch (err) {
    if (err instanceof CoreClientError && err.fatal) return ctx.requestStop('fatal', err);
    throw err;
  }
  if (result === DEFERRED) deferred!.push(user);
  else if (result) await ctx.finish(result, user.input);
}

/**
 * After every other user: the ones parked on a hold address, again, while each round lets one more through; then
 * once more without parking (a user still refused is reported failed, its hold address read by the next sync).
 */
async function finishDeferred(ctx: EngineContext, work: SyncWork, deferred: Admitted[]): Promise<void> {
  while (deferred.length > 0 && !ctx.isStopping()) {
    const round = deferred.splice(0);
    await ctx.pooled(round, (u) => finishSynced(ctx, work, u, deferred));
    if (deferred.length === round.length) {
      const last = deferred.splice(0);
      await ctx.pooled(last, (u) => finishSynced(ctx, work, u));
    }
  }
}

/** The sync's strategy over the `--via` path's (`inner`, made from its own options), which takes the new users. */
export function syncStrategy(work: SyncWork, path: StrategyFactory): StrategyFactory {
  const deferred: Admitted[] = [];
  return (ctx) => {
    const inner = path(ctx);
    return {
      batchSize: inner.batchSize,
      ...(inner.retakesFinished ? { retakesFinished: true } : {}),
      ...(inner.prepare ? { prepare: () => inner.prepare!() } : {}),
      async drain() {
        await inner.drain?.();
        await finishDeferred(ctx, work, deferred);
      },
      ...(inner.abandon ? { abandon: () => inner.abandon!() } : {}),
      async take(users) {
        const ours = users.filter((u) => work.changed.has(u.input.record.id) || work.removals.has(u.input.record.id));
        const fresh = users.filter((u) => !ours.includes(u));
        if (fresh.length > 0) await inner.take(fresh);
        if (ours.length === 1) await finishSynced(ctx, work, ours[0]!, deferred);
        else if (ours.length > 1) await ctx.pooled(ours, (u) => finishSynced(ctx, work, u, deferred));
      },
    };
  };
}
