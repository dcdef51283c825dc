// The one exactly-once rule, applied to every step kind of rules.ts. A core may apply a request and then
// answer 500, apply half of it, answer something that is not JSON, or nothing at all (issue 9); the client's
// retries then meet the already-applied state. So, per step:
//   1. steps that create a user look it up first: found = already present, never overwritten;
//   2. send; a clear success is taken as it is (and counted created when step 1 found nothing);
//   3. after a refusal or an attempt without a clear answer, look the effect up: found = done by us. An answer the
//      client's own retries hid counts too: a write it sent again after a 5xx, a reset or a timeout (lost-writes.ts)
//      may have been applied, and a retry meeting it answers "already there" for what this run made. Steps about
//      a user that was there before look first (1), so what the app had made is never taken for ours;
//   4. whenever the object is found present (1 or 3), what the step promises about it (a verified email...) is
//      checked and what is missing completed (the rule's `complete`): "already there" is the whole promise;
//   5. a refusal that says "start again" (RESTART_FLOW_ERROR), or an unclear attempt with nothing found, is sent
//      again, within a budget per kind of failure (STEP_BUDGETS); a lookup that fails is asked again the same
//      way; then the step fails (or, for a core that keeps answering garbage, the run stops).
// Write-ahead (journal.ts): the caller's `intend` is awaited right before the first request that could change the
// core, after step 1's look-up found nothing; a step whose intent an earlier, interrupted run left (`intended`)
// counts what it finds as its own, never as "there before".
// Fatal client errors (401, 402, signer key, unreachable core) propagate and stop the run.
// Invariant: a step that can create or change something is sent only after its intent is on the disk, and counts only
// on a clear answer or a read-back.
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreClientError, CoreHttpError, CoreProtocolError } from '../../../core-client/errors.js';
import type { LostWrites } from '../../../core-client/lost-writes.js';
import type { CoreClient } from '../../../core-client/types.js';
import { STEP_RULES, type Found, type StepRule } from './rules.js';
import { done, fail, newUserIds, type StepOutcome, type UserIds } from './ids.js';
import type { Step } from '../../plan/steps.js';

export { applyStepIds, newUserIds, resolveRef, type StepOutcome, type UserIds } from './ids.js';

/**
 * Attempts of one step, per kind of failure. Each unclear attempt or failed lookup already went through the
 * client's own retries (about a minute of backoff), so a few suffice. A RESTART_FLOW_ERROR is what a core under
 * lock contention answers to the retried consume of a code it used up without creating the user (the reference
 * in-memory storage at concurrency 64): expected, cheap (a new code), so it gets the largest budget.
 */
export const STEP_BUDGETS = { unclear: 4, lookup: 4, restart: 32 } as const;

/** Kept for the bulk path, whose one request per user has only unclear answers to retry. */
export const MAX_STEP_ATTEMPTS = STEP_BUDGETS.unclear;

/**
 * Pause before a new passwordless flow after a restart: a little longer each time, jittered, at most 10 s, so the
 * budget spans a contention storm of a couple of minutes (the reference in-memory core with two runs at once failed
 * every user creation of some consumes for over 40 s, the span of the old 2 s cap) while the first few come at once.
 */
const restartPause = (n: number) => Math.floor(Math.random() * Math.min(10_000, 10 * 2 ** n));

/**
 * A view of the client that counts an attempt's lost writes (core-client countingLost), with its tally. A view is
 * a whole client (about forty closures): one was built for every attempt of every step. Views are kept per client
 * and reused, one per attempt under way (about `concurrency` of them), each tally set to zero when taken.
 */
interface LostView {
  core: CoreClient;
  tally: LostWrites;
}
const lostViews = new WeakMap<CoreClient, LostView[]>();
function lostView(core: CoreClient): LostView {
  let free = lostViews.get(core);
  if (free === undefined) lostViews.set(core, (free = []));
  const view = free.pop();
  if (view) {
    view.tally.lost = 0;
    return view;
  }
  const tally: LostWrites = { lost: 0 };
  return { core: core.countingLost(tally), tally };
}

/** An attempt whose outcome is unknown: the core may or may not have applied it. */
function isUnclear(err: unknown): boolean {
  if (err instanceof CoreProtocolError) return true; // a 200 that is not JSON: the write may have happened
  return err instanceof CoreHttpError && !err.fatal && err.status >= 500;
}

/**
 * Whether the login method a step creates is known to be absent from the core, from the engine's listing of it
 * (strategies/bulk/knowledge.ts): step 1's look-up would find nothing, so it is skipped (the step counts as looked first).
 */
export type KnownAbsent = (step: Step) => Promise<boolean>;

/** The journal's part in a step (journal.ts): what an earlier run intended, and the intent to write before sending. */
export interface StepWriteAhead {
  /** An earlier run wrote this step's intent (or created the user it acts on): what is found of it is ours. */
  intended?: boolean;
  /** Puts the step's intent on the disk; awaited before the first request that could change the core. */
  intend?: () => Promise<void>;
}

export async function executeStep(
  step: Step,
  ids: UserIds,
  core: CoreClient,
  knownAbsent?: KnownAbsent,
  wal: StepWriteAhead = {},
): Promise<StepOutcome> {
  const rule = STEP_RULES[step.kind] as StepRule<Step>;
  try {
    const out = await applyRule(rule, step, ids, core, knownAbsent, wal);
    if (out.ok && out.result === 'created') ids.created.add(step.key);
    return out;
  } catch (err) {
    if (
      err instanceof CoreHttpError &&
      step.kind === 'import-password' &&
      /^Unsupported password hashing algorithm/.test(err.body.trim())
    ) {
      // Not this user's fault: every user with this algorithm would fail the same way (preflight should have
      // learnt the name the core takes; this is a core that changed under the run, or --skip-preflight).
      throw new CoreClientError(
        `the core at ${core.url} does not accept hashingAlgorithm "${step.hashingAlgorithm}" (HTTP 400 ${err.body.trim()}). ` +
          'Run without --skip-preflight so the preflight learns the name it takes, or set --scrypt-algorithm-name.',
        true,
      );
    }
    if (err instanceof CoreHttpError && !err.fatal) return fail(`HTTP ${err.status}`, err.body);
    throw err;
  }
}

/** The rule's lookup, asked again (within its budget) when it ends without a clear answer. */
async function look(rule: StepRule<Step>, step: Step, ids: UserIds, core: CoreClient): Promise<Found> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await rule.find!(step, ids, core);
    } catch (err) {
      if (!isUnclear(err) || attempt >= STEP_BUDGETS.lookup) throw err;
    }
  }
}

/** A step's effect looked up in the core without sending anything (e.g. whether a left-out user is there). */
export async function executeLookup(step: Step, core: CoreClient): Promise<Found> {
  const rule = STEP_RULES[step.kind] as StepRule<Step>;
  return rule.find ? look(rule, step, newUserIds(), core) : undefined;
}

/** The object is there: record what the step learnt, complete what it promises, and count it. */
async function present(rule: StepRule<Step>, step: Step, found: NonNullable<Found>, ids: UserIds, core: CoreClient, ours: boolean) {
  if (found.changed !== undefined) ids.changed.set(step.key, found.changed);
  else if (rule.complete) {
    for (let attempt = 1; ; attempt++) {
      try {
        const completed = await rule.complete(step, found, ids, core);
        if (completed && !completed.ok) return completed;
        break;
      } catch (err) {
        if (!isUnclear(err) || attempt >= STEP_BUDGETS.unclear) throw err;
      }
    }
  }
  return done(ours, found.ids);
}

async function applyRule(
  rule: StepRule<Step>,
  step: Step,
  ids: UserIds,
  core: CoreClient,
  knownAbsent: KnownAbsent | undefined,
  wal: StepWriteAhead,
): Promise<StepOutcome> {
  const intended = wal.intended === true;
  // A step whose object a changed user no longer holds (its email changed in the core since the export).
  const skip = rule.skipFor?.(step, ids);
  if (skip !== undefined) return done(false);
  // 1. Look first: an existing user is never overwritten, and what we find later is known to be ours.
  const lookedFirst = rule.find !== undefined && rule.findFirst?.(step, ids) === true;
  if (lookedFirst && !(await knownAbsent?.(step))) {
    const found = await look(rule, step, ids, core);
    // Found before this run's intent: there before. Found after an earlier run's intent: that run's (killed
    // between its request and the line that would have said so).
    if (found) return present(rule, step, found, ids, core, intended);
  }
  await wal.intend?.();
  let unclear = false;
  const spent = { unclear: 0, restart: 0 };
  let last: { refusal: StepOutcome } | { error: unknown } | undefined;
  for (;;) {
    let out: StepOutcome | undefined;
    const view = lostView(core);
    let lost = 0;
    try {
      out = await rule.send(step, ids, view.core);
    } catch (err) {
      if (!isUnclear(err)) throw err;
      unclear = true;
      spent.unclear += 1;
      last = { error: err };
    } finally {
      lost = view.tally.lost;
      lostViews.get(core)!.push(view);
    }
    // The client retried a write whose answer was lost: what the retry (or the lookup below) meets is ours.
    if (lost > 0) unclear = true;
    // 2. A clear success: ours when we looked first and found nothing, or when an earlier attempt was unclear.
    if (out?.ok) return out.result === 'already' && (lookedFirst || unclear || intended) ? { ...out, result: 'created' } : out;
    // 3. A refusal or an unclear answer: is the effect there (made by this attempt or an earlier one)?
    const found = rule.find ? await look(rule, step, ids, core) : undefined;
    if (found) return present(rule, step, found, ids, core, lookedFirst || unclear || intended);
    // 5. Nothing of ours there: a plain refusal is final; a restart request or an unclear attempt goes again.
    if (out && !out.ok) {
      if (!out.restart) return out;
      last = { refusal: out };
      spent.restart += 1;
      if (spent.restart >= STEP_BUDGETS.restart) break;
      await sleep(restartPause(spent.restart));
    } else if (spent.unclear >= STEP_BUDGETS.unclear) break;
  }
  if (last && 'refusal' in last) {
    const r = last.refusal as Extract<StepOutcome, { ok: false }>;
    return { ...r, message: `${r.message} (${spent.restart} new flows, the last ${r.status}; ${spent.unclear} unclear answers)` };
  }
  const err = last?.error;
  if (err instanceof CoreProtocolError) {
    throw new CoreClientError(`${err.message} (${STEP_BUDGETS.unclear} times in a row for one step: stopping the run)`, true);
  }
  if (err !== undefined) throw err;
  return fail('UNCLEAR', `the core never gave a clear answer to ${step.kind} after ${STEP_BUDGETS.unclear} attempts`);
}
