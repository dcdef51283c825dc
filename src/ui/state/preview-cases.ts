// The reducer's cases for the source and preview screens: the records the validation streams in (only the first
// PREVIEW_ROW_LIMIT kept, all counted), problems found late, the table's filter, search, cursor and detail, and the
// spot check of one record. The cursor always stays on a visible row.
import type { Problem } from '../../records/types.js';
import type { PreviewRecord } from '../services/types.js';
import { actionsNamed, type ActionsNamed } from './action-groups.js';
import { emptyPreview } from './initial.js';
import type { PreviewFilter, PreviewState, WizardState } from './types.js';

/** Rows kept for the preview table; more records are counted and summarised, not kept. */
export const PREVIEW_ROW_LIMIT = 5000;

const PREFIXES = ['validation', 'preview', 'spot-check'] as const;
export type PreviewAction = ActionsNamed<(typeof PREFIXES)[number]>;
export const isPreviewAction = actionsNamed(PREFIXES);

export function visibleRows(preview: PreviewState): PreviewRecord[] {
  return filterRows(preview.search ? preview.search.rows : preview.rows, preview.filter);
}

export function filterRows(rows: PreviewRecord[], filter: PreviewFilter): PreviewRecord[] {
  if (filter === 'all') return rows;
  if (filter === 'lines') return [];
  const severity = filter === 'errors' ? 'error' : 'warning';
  return rows.filter((r) => r.problems.some((p) => p.severity === severity));
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, n));
}

export function previewCases(state: WizardState, action: PreviewAction): WizardState {
  switch (action.type) {
    case 'validation-started':
      return { ...state, validation: { status: 'running' }, preview: emptyPreview, plan: { status: 'idle' } };
    case 'validation-record': {
      const p = state.preview;
      const rows = p.rows.length < PREVIEW_ROW_LIMIT ? [...p.rows, action.record] : p.rows;
      return { ...state, preview: { ...p, rows, seen: p.seen + 1 } };
    }
    case 'validation-finished': {
      const late = new Map<string, Problem[]>();
      for (const { key, problem } of action.report.lateProblems) late.set(key, [...(late.get(key) ?? []), problem]);
      const rows =
        late.size === 0
          ? state.preview.rows
          : state.preview.rows.map((r) => {
              const more = late.get(r.key);
              return more ? { ...r, problems: [...r.problems, ...more], valid: r.valid && !more.some((p) => p.severity === 'error') } : r;
            });
      return { ...state, validation: { status: 'done', value: action.report }, preview: { ...state.preview, rows } };
    }
    case 'validation-failed':
      return { ...state, validation: { status: 'failed', error: action.error } };
    case 'preview-search':
      return { ...state, preview: { ...state.preview, search: action.search, cursor: 0 } };
    case 'preview-filter':
      return { ...state, preview: { ...state.preview, filter: action.filter, cursor: 0 } };
    case 'preview-move': {
      const count = visibleRows(state.preview).length;
      const delta = action.pageSize !== undefined ? action.delta * action.pageSize : action.delta;
      return { ...state, preview: { ...state.preview, cursor: clamp(state.preview.cursor + delta, 0, Math.max(0, count - 1)) } };
    }
    case 'preview-detail':
      return { ...state, preview: { ...state.preview, detail: action.key, spotCheck: { status: 'idle' } } };
    case 'spot-check-started':
      return { ...state, preview: { ...state.preview, spotCheck: { status: 'running' } } };
    case 'spot-check-finished':
      return { ...state, preview: { ...state.preview, spotCheck: { status: 'done', value: action.result } } };
    case 'spot-check-failed':
      return { ...state, preview: { ...state.preview, spotCheck: { status: 'failed', error: action.error } } };
  }
}
