// What a run and a sync share between "the sources are read" and "the first write": pause and stop asked before the
// migration exists, the preflight that may refuse the target or teach the plan, and the question before a real core
// is written. Each writing operation (run.ts, sync.ts) goes through these, so both ask and refuse alike.
// Invariant: a stop asked before the first write leaves nothing written.
import type { PlanNeeds } from '../core-client/preflight.js';
import type { PlanOptions } from '../engine/plan/plan.js';
import type { MigrationRun } from '../engine/runner.js';
import { checkTargetForPlan } from '../engine/target-check.js';
import { confirmationFor, needsConfirmation, type Confirmation } from './confirm.js';
import { Refusal, type CommonEvent } from './events.js';
import type { RunRequest } from './requests.js';
import type { Connection } from './target.js';

/** Pause, resume and stop, taken before the migration starts and handed to it once it does. */
export class EarlyControl {
  private migration: MigrationRun | undefined;
  private pauseRequested = false;
  private stopRequested = false;

  /** Whether stop was asked (before the migration started, or since). */
  get stopped(): boolean {
    return this.stopRequested;
  }

  /** Whether the migration was handed over (it started writing). */
  get started(): boolean {
    return this.migration !== undefined;
  }

  /** The migration now running: what was asked before it started applies to it. */
  attach(migration: MigrationRun): MigrationRun {
    this.migration = migration;
    if (this.pauseRequested) migration.pause();
    if (this.stopRequested) migration.stop();
    return migration;
  }

  readonly pause = (): void => (this.migration ? this.migration.pause() : void (this.pauseRequested = true));
  readonly resume = (): void => (this.migration ? this.migration.resume() : void (this.pauseRequested = false));
  readonly stop = (): void => (this.migration ? this.migration.stop() : void (this.stopRequested = true));
}

/** The refusal of an operation stopped before its first write. */
export const stoppedBeforeWrites = (): Refusal => new Refusal('not-confirmed', 'stopped before the first write: nothing was written');

/** The preflight (unless skipped): the plan it leaves (the scrypt name it may learn), or why the target is refused. */
export async function preflightPlan(
  conn: Connection,
  needs: PlanNeeds,
  settings: Pick<RunRequest, 'plan' | 'skipPreflight' | 'via'>,
  emit: (e: CommonEvent) => void,
): Promise<{ plan: PlanOptions; refusal?: undefined } | { refusal: Refusal }> {
  const plan = settings.plan;
  if (settings.skipPreflight) return { plan };
  const check = await checkTargetForPlan(conn.client, needs, plan, settings.via);
  const learnt = plan.scryptAlgorithmName === undefined && check.plan.scryptAlgorithmName !== undefined;
  emit({ type: 'preflight', findings: check.report.findings, scryptAlgorithmName: check.plan.scryptAlgorithmName, learnt });
  if (check.refusal) return { refusal: new Refusal('preflight', check.refusal.message, 'fix what the preflight names, then run again') };
  return { plan: check.plan };
}

/**
 * Before the first write: a real core's confirmation (what `effects` says will happen) through the shell's confirm(),
 * then a last look at stop. Undefined: go on; else the refusal (nothing was written).
 */
export async function askBeforeWriting(
  action: Confirmation['action'],
  settings: Pick<RunRequest, 'target'>,
  conn: Connection,
  effects: () => string[],
  shell: { confirm(c: Confirmation): Promise<boolean> },
  emit: (e: CommonEvent) => void,
  control: EarlyControl,
): Promise<Refusal | undefined> {
  if (needsConfirmation(settings.target) && settings.target.kind === 'remote') {
    const confirmation = await confirmationFor(action, settings.target, conn.client, effects());
    emit({ type: 'confirm', confirmation });
    if (!(await shell.confirm(confirmation)) || control.stopped)
      return new Refusal('not-confirmed', `not confirmed: nothing was written to ${confirmation.url}`);
  }
  return control.stopped ? stoppedBeforeWrites() : undefined;
}
