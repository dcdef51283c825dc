// `--via bulk`: one user through POST /bulk-import/import, exactly once, and the helpers both bulk paths share.
// As for the steps (execute.ts): look the user up first (its primary login method's account info): found = partly
// or wholly in the core already, so the per-user steps complete it (bulk import never adds to an existing user);
// send; after an attempt without a clear answer (a 500 after the core applied it, a reply that is not JSON), look
// again: found = imported by us; an unclear attempt with nothing found is sent again, a bounded number of times.
// Roles are created once per run before the first user naming them (the core refuses a user whose role is missing).
// Write-ahead: the user's intent is on the disk after the look-up and before the import; a user an earlier run
// intended and the look-up now finds was imported by that run (the import is one transaction: the whole user).
// Invariant: a user's intent is on the disk before its import is sent, and an import is sent again only after a look-up
// found nothing.
import type { BulkLoginMethodBody, BulkUserBody } from '../../../core-client/import-bodies.js';
import { CoreClientError, CoreHttpError, CoreProtocolError } from '../../../core-client/errors.js';
import type { CoreClient } from '../../../core-client/types.js';
import { bulkRoles, planBulkUser } from './plan.js';
import type { UserResult } from '../../events.js';
import type { Admitted, EngineContext, StrategyFactory } from '../../strategy.js';
import { finishOne, migrateUserSteps } from '../steps/strategy.js';
import { PlanError } from '../../plan/plan.js';
import { MAX_STEP_ATTEMPTS, type StepWriteAhead } from '../steps/execute.js';
import { done, fail, type StepOutcome } from '../steps/ids.js';
import { bulkShapeIds } from '../../rollback/shape.js';
import { ForeignAnswerError, userOf } from '../steps/answer-checks.js';

const norm = (email: string): string => email.trim().toLowerCase();

/** The id of the user holding this login method (its external id where mapped), or undefined. */
export async function findBulkMethod(core: CoreClient, m: BulkLoginMethodBody): Promise<string | undefined> {
  const tenant = m.tenantIds?.[0];
  const c = tenant && tenant !== core.tenantId ? core.forTenant(tenant) : core;
  let r;
  if (m.recipeId === 'thirdparty')
    r = await c.listUsersByAccountInfo({ thirdPartyId: m.thirdPartyId, thirdPartyUserId: m.thirdPartyUserId });
  else if (m.recipeId === 'passwordless' && m.phoneNumber !== undefined) r = await c.listUsersByAccountInfo({ phoneNumber: m.phoneNumber });
  else r = await c.listUsersByAccountInfo({ email: norm(m.email ?? '') });
  return r.users.find((u) => u.loginMethods.some(isMethod(m)))?.id;
}

/** Whether a login method of a core user is this one of the body (same recipe and identity). */
function isMethod(m: BulkLoginMethodBody) {
  return (lm: { recipeId: string; email?: string; phoneNumber?: string; thirdParty?: { id: string; userId: string } }) => {
    if (lm.recipeId !== m.recipeId) return false;
    if (m.recipeId === 'thirdparty') return lm.thirdParty?.id === m.thirdPartyId && lm.thirdParty?.userId === m.thirdPartyUserId;
    if (m.recipeId === 'passwordless' && m.phoneNumber !== undefined) return lm.phoneNumber === m.phoneNumber;
    return lm.email === norm(m.email ?? '');
  };
}

/**
 * The id of an import's answer, when the answer is this request's: its user holds every login method sent and
 * carries the external id sent (issue 31: a proxy may answer another request's body, or a bare OK). Otherwise
 * ForeignAnswerError, and the core is read.
 */
export function answeredUser(answer: unknown, body: BulkUserBody): string {
  const user = userOf(answer);
  const holdsAll = user !== undefined && body.loginMethods.every((m) => user.loginMethods.some(isMethod(m)));
  if (!user || !holdsAll || (body.externalUserId !== undefined && user.id !== body.externalUserId)) {
    throw new ForeignAnswerError('POST', '/bulk-import/import', 'its user is not the one sent');
  }
  return user.id;
}

/** What a bulk user is found by: its first login method's account info, and its external id. */
export function bulkIdentity(body: BulkUserBody): Record<string, string> {
  const m = body.loginMethods[0]!;
  const who: Record<string, string> = { recipeId: m.recipeId };
  if (m.email !== undefined) who.email = m.email;
  if (m.phoneNumber !== undefined) who.phoneNumber = m.phoneNumber;
  if (m.thirdPartyId !== undefined) who.thirdPartyId = m.thirdPartyId;
  if (m.thirdPartyUserId !== undefined) who.thirdPartyUserId = m.thirdPartyUserId;
  if (body.externalUserId !== undefined) who.externalUserId = body.externalUserId;
  return who;
}

/** The user's primary login method: the one looked up (first in the plan). */
export const findBulkUser = (core: CoreClient, body: BulkUserBody): Promise<string | undefined> =>
  findBulkMethod(core, body.loginMethods[0]!);

/** The core's texts with this user's hashes and secrets taken out (the reference echoes a too-long TOTP secret). */
export function redactBulkMessage(message: string, body: BulkUserBody): string {
  let out = message;
  const secrets = [...body.loginMethods.map((m) => m.passwordHash), ...(body.totpDevices ?? []).map((d) => d.secretKey)];
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('***');
  return out;
}

/** The errors of a refused user, from the 400 body `{"errors": [...]}` (or the text as it is). */
export function bulkErrors(text: string): string[] {
  try {
    const parsed = JSON.parse(text) as { errors?: unknown; error?: unknown };
    if (Array.isArray(parsed.errors)) return parsed.errors.map(String);
    if (typeof parsed.error === 'string') return [parsed.error];
  } catch {
    // not JSON: the text as it is
  }
  return [text];
}

const isUnclear = (err: unknown): boolean =>
  err instanceof CoreProtocolError || (err instanceof CoreHttpError && !err.fatal && err.status >= 500);

/** Roles this process already made sure of, per client. */
const rolesMade = new WeakMap<CoreClient, Set<string>>();

export async function ensureRoles(core: CoreClient, roles: string[]): Promise<void> {
  const made = rolesMade.get(core) ?? new Set<string>();
  rolesMade.set(core, made);
  for (const role of roles) {
    if (made.has(role)) continue;
    await core.createRole(role);
    made.add(role);
  }
}

/** Errors of a refusal that say part of the user is already in the core (BulkImport.java E003, E005-E007, E031). */
export const PRESENT_IN_CORE = /\bE00[3567]:|\bE031:/;

/**
 * Import one bulk user exactly once; ids: `recipeUserId`, the user's id (the external id where given). `present`:
 * part of the user is in the core already (found first, or named by the core's refusal): bulk import never adds
 * to an existing user, so the per-user steps complete it. Fatal errors propagate.
 */
export async function importBulkUser(core: CoreClient, body: BulkUserBody, wal: StepWriteAhead = {}): Promise<StepOutcome | 'present'> {
  const before = await findBulkUser(core, body);
  if (before !== undefined) return wal.intended ? done(true, { recipeUserId: before }) : 'present';
  await wal.intend?.();
  try {
    await ensureRoles(core, bulkRoles(body));
  } catch (err) {
    if (err instanceof CoreHttpError && !err.fatal) return fail(`HTTP ${err.status}`, `creating a role: ${err.body}`);
    throw err;
  }
  let last: unknown;
  for (let attempt = 1; attempt <= MAX_STEP_ATTEMPTS; attempt++) {
    let refusal: string[] | undefined;
    try {
      const r = await core.bulkImport.importUser(body);
      return done(true, { recipeUserId: answeredUser(r, body) });
    } catch (err) {
      if (err instanceof CoreHttpError && !err.fatal && err.status === 400) refusal = bulkErrors(err.body);
      else if (!isUnclear(err)) throw err;
      last = err;
    }
    // A refusal or an unclear answer: an earlier attempt of ours (or the client's retry of a lost answer) may have
    // imported the user, which was not there when looked up first.
    const found = await findBulkUser(core, body);
    if (found !== undefined) return done(true, { recipeUserId: found });
    // Refused because another of its login methods (or its external id) is in the core already.
    if (refusal && refusal.some((e) => PRESENT_IN_CORE.test(e))) return 'present';
    if (refusal) return fail('BULK_IMPORT_REFUSED', redactBulkMessage(refusal.join('; '), body));
  }
  if (last instanceof CoreProtocolError) {
    throw new CoreClientError(`${last.message} (${MAX_STEP_ATTEMPTS} times in a row for one user: stopping the run)`, true);
  }
  if (last instanceof CoreHttpError) return fail(`HTTP ${last.status}`, redactBulkMessage(last.body, body));
  return fail('UNCLEAR', `the core never gave a clear answer to POST /bulk-import/import after ${MAX_STEP_ATTEMPTS} attempts`);
}

/** The journal key of the one step a bulk user is. */
export const BULK_STEP = 'bulk';

/**
 * One user through POST /bulk-import/import, journalled like a user of the steps path (one `bulk` step, then the
 * user's outcome); a user partly in the core already goes through the per-user steps instead, as does one whose
 * steps an earlier run started. Fatal client errors propagate (the engine stops the run).
 */
async function migrateBulkUser(ctx: EngineContext, user: Admitted): Promise<UserResult | undefined> {
  const { input, journalled } = user;
  const record = input.record;
  const base = { id: record.id, stepsRun: 0, stepsFromJournal: 0 };
  const journalledStep = journalled?.steps.get(BULK_STEP);
  // A line without the user's id (a core's bare OK, believed by an older version) is settled from the core.
  const prev = journalledStep?.ids.recipeUserId === undefined ? undefined : journalledStep;
  if (prev) {
    // Imported by an earlier run that ended before writing the user's outcome.
    const outcome = prev.result === 'created' ? 'imported' : 'alreadyPresent';
    ctx.journal.append({ type: 'user', user: record.id, outcome });
    return { ...base, outcome, stepsFromJournal: 1, userId: prev.ids.recipeUserId };
  }
  if (journalled && journalled.steps.size > 0) return migrateUserSteps(ctx, user);
  let body;
  try {
    body = planBulkUser(record, { ...ctx.plan, tenantId: ctx.core.tenantId });
  } catch (err) {
    if (err instanceof PlanError) return { ...base, outcome: 'failed', step: 'plan', status: 'PLAN_ERROR', message: err.message };
    throw err;
  }
  await ctx.gate();
  if (ctx.isStopping()) return undefined;
  const who = { kind: 'bulk', ...bulkIdentity(body), ...bulkShapeIds(body) };
  const out = await importBulkUser(ctx.core, body, {
    intended: journalledStep !== undefined || journalled?.intents?.has(BULK_STEP) === true,
    intend: () => ctx.journal.appendDurable({ type: 'intent', user: record.id, step: BULK_STEP, who }),
  });
  if (out === 'present') return migrateUserSteps(ctx, user);
  if (!out.ok) {
    ctx.journal.append({ type: 'user', user: record.id, outcome: 'failed', step: BULK_STEP, status: out.status });
    return { ...base, outcome: 'failed', step: BULK_STEP, status: out.status, message: out.message, stepsRun: 1 };
  }
  // What the import gave the user (login method fingerprints, device names): a rollback tells what changed since.
  const ids = out.result === 'created' ? { ...out.ids, ...bulkShapeIds(body) } : out.ids;
  ctx.journal.append({ type: 'step', user: record.id, step: BULK_STEP, result: out.result, ids });
  const outcome = out.result === 'created' ? 'imported' : 'alreadyPresent';
  ctx.journal.append({ type: 'user', user: record.id, outcome });
  return { ...base, outcome, stepsRun: 1, userId: out.ids.recipeUserId };
}

/** `--via bulk`: each user alone through POST /bulk-import/import, `concurrency` users at once (no options of its own). */
export const bulkStrategy: StrategyFactory = (ctx) => ({
  batchSize: 1,
  take: async (users) => {
    for (const user of users) await finishOne(ctx, user, migrateBulkUser);
  },
});
