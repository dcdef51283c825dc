// The preview's validation: the run's own validation pass (migration/prepare.ts, through the run's request), its
// records handed to the table as they are read, and kept so the plan, the run and verify of the same input do
// not read the files again.
import { collectGarbage } from '../../heap.js';
import { prepareRun, type PreparedRun } from '../../engine/plan/prepare.js';
import { originKey } from '../../records/validate.js';
import type { Problem } from '../../records/types.js';
import { planRequestOf } from './settings.js';
import type { WizardInput, PreviewRecord, PreviewReport } from './types.js';

export interface Preview {
  validate(input: WizardInput, onRecord: (r: PreviewRecord) => void): Promise<PreviewReport>;
  /** The validation of exactly this input (from the preview when nothing changed since, else read again). */
  prepared(input: WizardInput): Promise<PreparedRun>;
  /** The records whose id, email, phone or external id holds `query`: the files read again, `limit` kept. */
  search(input: WizardInput, query: string, limit: number): Promise<{ rows: PreviewRecord[]; more: boolean }>;
}

/** Whether a record's id, email, phone, external id or a third-party login holds `q` (lower case). */
function matches(r: PreviewRecord['record'], q: string): boolean {
  const fields = [r.id, r.email, r.phoneNumber, r.externalUserId, ...(r.thirdParty ?? []).flatMap((t) => [t.email, t.userId])];
  return fields.some((f) => typeof f === 'string' && f.toLowerCase().includes(q));
}

export function createPreview(cwd: string): Preview {
  let cached: { key: string; prepared: PreparedRun } | undefined;
  const keyOf = (input: WizardInput) => JSON.stringify({ ...input, allowPartial: undefined, concurrency: undefined });
  const sourcesOf = (input: WizardInput) => planRequestOf(input, { profileName: 'wizard', cwd, out: cwd });
  const validate = async (input: WizardInput, onRecord?: (r: PreviewRecord) => void) => {
    const s = await sourcesOf(input);
    const prepared = await prepareRun(s.files, s.read, s.plan, onRecord ? (v) => onRecord({ key: originKey(v.origin), ...v }) : undefined);
    collectGarbage(); // the first pass's duplicate tables are dead: freed now (heap.ts)
    cached = { key: keyOf(input), prepared };
    return prepared;
  };
  return {
    async validate(input, onRecord) {
      const id = (p: Problem) => `${originKey(p.origin)}|${p.rule}|${p.field ?? ''}|${p.message}`;
      const delivered = new Set<string>();
      const recordKeys = new Set<string>();
      const { report } = await validate(input, (r) => {
        recordKeys.add(r.key);
        for (const p of r.problems) delivered.add(id(p));
        onRecord(r);
      });
      const undelivered = report.problems.filter((p) => !delivered.has(id(p)));
      const lateProblems = undelivered
        .filter((p) => recordKeys.has(originKey(p.origin)))
        .map((problem) => ({ key: originKey(problem.origin), problem }));
      // Problems of no record: lines or rows that could not become a user (bad JSON, a CSV row with too few cells...).
      const lineProblems = undelivered.filter((p) => !recordKeys.has(originKey(p.origin)));
      return { summary: report.summary, problems: report.problems, lateProblems, lineProblems, problemsOmitted: report.problemsOmitted };
    },
    async search(input, query, limit) {
      const q = query.trim().toLowerCase();
      const rows: PreviewRecord[] = [];
      let more = false;
      const s = await sourcesOf(input);
      // A pass of its own, every record looked at and dropped unless it matches: memory stays the `limit` rows.
      await prepareRun(s.files, s.read, s.plan, (v) => {
        if (!matches(v.record, q)) return;
        if (rows.length < limit) rows.push({ key: originKey(v.origin), ...v });
        else more = true;
      });
      collectGarbage();
      return { rows, more };
    },
    async prepared(input) {
      if (cached?.key === keyOf(input)) return cached.prepared;
      return validate(input);
    },
  };
}
