// What a sync will do, before it writes: the delta per kind with the first users of each, and the changes planned
// for every changed user against the state the earlier run left (expected.ts), counted per kind, with the first
// users' steps (no hash, secret or code: describeStep's words). The same planner runs in the sync itself.
// Invariant: no request is sent; no hash, secret or code is shown.
import type { ValidateOptions } from '../../records/validate.js';
import { streamValidatedRecords } from '../../records/validate.js';
import type { ReadOptions } from '../../sources/index.js';
import { planUserSteps, type PlanOptions } from '../plan/plan.js';
import type { CanonicalUser } from '../../records/types.js';
import { describeStep } from '../strategies/steps/rules.js';
import type { SyncDelta } from './delta.js';
import { expectedView } from './expected.js';
import { PARTS } from './fingerprint.js';
import type { PreparedSync } from './operation.js';
import { planUserChanges } from './plan-user.js';
import { CHANGE_KINDS, kindOf, type ChangeKind } from './work.js';

export const AUTHORITY =
  'The old system is authoritative until cutover: a changed password hash is imported over the one in the core (it cannot be restored), ' +
  'an email, phone or verified flag changed, TOTP devices, logins and roles the migration created and the export no longer has are removed, ' +
  "and metadata keys brought to the export's values.";

const n = (x: number): string => x.toLocaleString('en-US');
/** A user as the operator knows them: the source id and, when known, the email. */
const who = (id: string, emails: Record<string, string> | undefined): string => (emails?.[id] ? `${id} (${emails[id]})` : id);

/** The delta in lines: per kind, how many users and the first of them (source id and email). */
export function deltaLines(d: SyncDelta, removeMissing: boolean): string[] {
  const list = (ids: string[] | undefined, total: number): string =>
    ids && ids.length > 0
      ? `: ${ids.map((id) => who(id, d.emails)).join(', ')}${total > ids.length ? `, ... (${n(total - ids.length)} more)` : ''}`
      : '';
  return deltaLinesWith(d, removeMissing, list);
}

function deltaLinesWith(d: SyncDelta, removeMissing: boolean, list: (ids: string[] | undefined, total: number) => string): string[] {
  const out = [
    `compared with the earlier run: ${n(d.records)} records, ${n(d.unchanged)} unchanged (no request), ${n(d.new)} new, ` +
      `${n(d.changed)} changed, ${n(d.gone)} gone from the export${d.invalid ? `, ${n(d.invalid)} invalid` : ''}${d.leftOut ? `, ${n(d.leftOut)} new but left out by the settings` : ''}`,
  ];
  if (d.new) out.push(`  new users: ${n(d.new)}${list(d.samples.new, d.new)}`);
  for (const p of PARTS) if (d.parts[p]) out.push(`  changed ${p}: ${n(d.parts[p])} users${list(d.samples[p], d.parts[p])}`);
  if (d.newlyDisabled) out.push(`  newly disabled: ${n(d.newlyDisabled)} users (the --disabled policy applies)`);
  if (d.reEnabled) out.push(`  no longer disabled: ${n(d.reEnabled)} users`);
  const what = removeMissing
    ? 'removed if the migration created them and nobody changed them since'
    : 'listed, left in the core (--remove-missing removes them)';
  if (d.gone) out.push(`  gone from the export: ${n(d.gone)} users, ${what}${list(d.samples.gone, d.gone)}`);
  if (d.disabledSkip)
    out.push(`  disabled, under --disabled skip: ${n(d.disabledSkip)} users, ${what}${list(d.samples.disabled, d.disabledSkip)}`);
  if (d.withoutFingerprint)
    out.push(`  ${n(d.withoutFingerprint)} users have no fingerprint in the journal (an older run): every part is brought to the export`);
  return out;
}

/** Changes per kind, as lines (`  password: 100`). */
export function changeLines(counts: Map<ChangeKind, number>): string[] {
  return CHANGE_KINDS.filter((k) => counts.get(k)).map((k) => `  ${k}: ${n(counts.get(k)!)}`);
}

export interface SyncPrediction {
  /** Changes per kind the sync will make on a core as the earlier run left it. */
  changes: Map<ChangeKind, number>;
  /** Steps planned for the changed users. */
  steps: number;
}

/** Plans every changed user against its expected state; writes the first `show` users' steps through `write`. */
export async function predictSync(
  p: PreparedSync,
  files: string[],
  readOptions: ReadOptions & ValidateOptions,
  plan: PlanOptions,
  write: (line: string) => void,
  show = 5,
): Promise<SyncPrediction> {
  const changes = new Map<ChangeKind, number>();
  const add = (k: ChangeKind | undefined, by = 1): void => void (k && changes.set(k, (changes.get(k) ?? 0) + by));
  let steps = 0;
  let shown = 0;
  add('new', p.delta.new);
  if (p.work.removeMissing) add('removed', p.delta.gone + p.delta.disabledSkip);
  let newShown = 0;
  const newIds = new Set(p.delta.samples.new ?? []);
  for await (const v of streamValidatedRecords(files, readOptions, p.report)) {
    // A new user: the steps it will take, as `run` plans them (the first few).
    if (v.valid && newIds.has(v.record.id) && newShown++ < show) writeNewUser(v.record, plan, write);
    const parts = p.work.changed.get(v.record.id);
    if (!parts || !v.valid) continue;
    const user = { record: v.record, parts, history: p.work.histories.get(v.record.id) ?? new Map(), old: p.work.olds.get(v.record.id) };
    const planned = planUserChanges(user, expectedView(user, plan), plan);
    steps += planned.steps.length;
    for (const s of planned.steps) add(kindOf(s));
    if (shown++ < show) {
      write(
        `user ${who(v.record.id, { [v.record.id]: v.record.email ?? '' })}: ${parts.join(', ')} changed${user.old ? '' : ' (previous export not available: planned from the journal)'}`,
      );
      planned.steps.forEach((s, i) => write(`  ${i + 1}. ${describeStep(s)}`));
      for (const note of planned.notes) write(`  left: ${note}`);
      for (const pr of planned.problems) write(`  not done (${pr.status}): ${pr.message}`);
    }
  }
  return { changes, steps };
}

/** A new user's lines: who, and each step `run` would take for it. */
function writeNewUser(record: CanonicalUser, plan: PlanOptions, write: (line: string) => void): void {
  let steps;
  try {
    steps = planUserSteps(record, plan);
  } catch (err) {
    write(`new user ${who(record.id, { [record.id]: record.email ?? '' })}: not planned: ${(err as Error).message}`);
    return;
  }
  write(
    `new user ${who(record.id, { [record.id]: record.email ?? '' })}: migrated as by run, ${steps.length} step${steps.length === 1 ? '' : 's'}`,
  );
  steps.forEach((s, i) => write(`  ${i + 1}. ${describeStep(s)}`));
}
