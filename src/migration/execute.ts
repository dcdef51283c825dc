// The one exactly-once rule, applied to every step kind of step-rules.ts. A core may apply a request and then
// answer 500, apply half of it, answer something that is not JSON, or nothing at all (issue 9); the client's
// retries then meet the already-applied state. So, per step:
//   1. steps that create a user look it up first: found = already present, left unchanged;
//   2. send; a clear success is taken as it is (and counted created when step 1 found nothing);
//   3. after a refusal or an attempt without a clear answer, look the effect up: found = done by us;
//   4. a refusal that says "start again" (RESTART_FLOW_ERROR), or an unclear attempt with nothing found, is
//      sent again, a bounded number of times; then the step fails (or, for a core that keeps answering
//      garbage, the run stops).
// Fatal client errors (401, 402, signer key, unreachable core) propagate and stop the run.
import { CoreClientError, CoreHttpError, CoreProtocolError } from '../core-client/errors.js';
import type { CoreClient } from '../core-client/types.js';
import { STEP_RULES, type StepRule } from './step-rules.js';
import { done, fail, type StepOutcome, type UserIds } from './step-ids.js';
import type { Step } from './steps.js';

export { applyStepIds, newUserIds, resolveRef, type StepOutcome, type UserIds } from './step-ids.js';

/** Attempts of one step that may each have been applied without a clear answer (or asked to restart). */
export const MAX_STEP_ATTEMPTS = 4;

/** An attempt whose outcome is unknown: the core may or may not have applied it. */
function isUnclear(err: unknown): boolean {
  if (err instanceof CoreProtocolError) return true; // a 200 that is not JSON: the write may have happened
  return err instanceof CoreHttpError && !err.fatal && err.status >= 500;
}

export async function executeStep(step: Step, ids: UserIds, core: CoreClient): Promise<StepOutcome> {
  const rule = STEP_RULES[step.kind] as StepRule<Step>;
  try {
    return await applyRule(rule, step, ids, core);
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

async function applyRule(rule: StepRule<Step>, step: Step, ids: UserIds, core: CoreClient): Promise<StepOutcome> {
  // 1. Look first: an existing user is never overwritten, and what we find later is known to be ours.
  const lookedFirst = rule.find !== undefined && rule.findFirst?.(step) === true;
  if (lookedFirst) {
    const found = await rule.find!(step, ids, core);
    if (found) return done(false, found);
  }
  let unclear = false;
  let last: { refusal: StepOutcome } | { error: unknown } | undefined;
  for (let attempt = 1; attempt <= MAX_STEP_ATTEMPTS; attempt++) {
    let out: StepOutcome | undefined;
    try {
      out = await rule.send(step, ids, core);
    } catch (err) {
      if (!isUnclear(err)) throw err;
      unclear = true;
      last = { error: err };
    }
    // 2. A clear success: ours when we looked first and found nothing, or when an earlier attempt was unclear.
    if (out?.ok) return out.result === 'already' && (lookedFirst || unclear) ? { ...out, result: 'created' } : out;
    // 3. A refusal or an unclear answer: is the effect there (made by this attempt or an earlier one)?
    const found = rule.find ? await rule.find(step, ids, core) : undefined;
    if (found) return done(lookedFirst || unclear, found);
    // 4. Nothing of ours there: a plain refusal is final; a restart request or an unclear attempt goes again.
    if (out && !out.ok) {
      if (!out.restart) return out;
      last = { refusal: out };
    }
  }
  if (last && 'refusal' in last) return last.refusal;
  const err = last?.error;
  if (err instanceof CoreProtocolError) {
    throw new CoreClientError(`${err.message} (${MAX_STEP_ATTEMPTS} times in a row for one step: stopping the run)`, true);
  }
  if (err !== undefined) throw err;
  return fail('UNCLEAR', `the core never gave a clear answer to ${step.kind} after ${MAX_STEP_ATTEMPTS} attempts`);
}
