// Planning a run without writing (`run --dry-run`, the wizard's plan screen): every valid record planned, the calls
// counted, the first users' steps described; and, when the target is named, what the earlier run of this same
// migration already finished (its journal), so a resumed run is shown as one, with what is left.
// Invariant: nothing is written: no file, no request to a core.
import { collectGarbage } from '../heap.js';
import { WRITE_PATHS } from '../engine/strategies/index.js';
import type { DryRunSummary } from '../engine/strategies/steps/dry-run.js';
import { loadJournal } from '../engine/journal/journal.js';
import { prepareRun, type PreparedRun } from '../engine/plan/prepare.js';
import { findRunJournal } from '../engine/run-folder.js';
import { sliceRecords } from '../engine/plan/slice.js';
import { streamValidatedRecords } from '../records/validate.js';
import type { CommonEvent } from './events.js';
import { classLosses, type ClassLoss } from './partial.js';
import { finishedUsers } from './run-parts.js';
import type { PlanRequest } from './requests.js';
import { describeTarget } from './target.js';

export interface PlanOutcome extends DryRunSummary {
  /** Source items that could not be read as users. */
  unreadable: number;
  /** Users the journal of an earlier run of this migration finished (0 without a target or a journal). */
  fromJournal: number;
  /** That journal, when there is one. */
  journal?: string;
  /** Whole classes of users lost for a missing setting: a run refuses them unless allowed. */
  losses: ClassLoss[];
}

export interface PlanRunOptions {
  /** Users whose steps are written (all when undefined); the totals always cover every user. */
  sample?: number;
  prepared?: PreparedRun;
  onEvent?: (e: CommonEvent) => void;
}

/** The journal an earlier run of this migration left (an explicit --journal, else the newest run folder's). */
export async function earlierJournal(settings: PlanRequest): Promise<string | undefined> {
  if (!settings.target) return undefined;
  if (settings.output.journal !== undefined) return settings.output.journal;
  return findRunJournal(settings.output.out, { sources: settings.files, target: describeTarget(settings.target) });
}

export async function planRun(settings: PlanRequest, write: (line: string) => void, o: PlanRunOptions = {}): Promise<PlanOutcome> {
  const prepared = o.prepared ?? (await prepareRun(settings.files, settings.read, settings.plan));
  if (!o.prepared) collectGarbage();
  o.onEvent?.({ type: 'validated', summary: prepared.report.summary, unreadable: prepared.unreadable });
  const losses = classLosses(prepared.report, settings.read);
  if (losses.length > 0) o.onEvent?.({ type: 'partial', losses, allowed: settings.allowPartial });
  const inputs = sliceRecords(streamValidatedRecords(settings.files, settings.read, prepared.report), settings.slice);
  const summary = await WRITE_PATHS[settings.via].dryRun(inputs, { ...settings.plan, tenantId: settings.target?.tenant }, write, o.sample);
  const journal = await earlierJournal(settings);
  const fromJournal = journal
    ? await loadJournal(journal).then(
        (j) => finishedUsers(j.users),
        () => 0,
      )
    : 0;
  return { ...summary, unreadable: prepared.unreadable, fromJournal, ...(journal ? { journal } : {}), losses };
}
