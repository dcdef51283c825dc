// The wizard's state machine: a pure reducer, unit-tested without rendering anything.
import type { Action, PreviewFilter, PreviewState, RunState, SignInState, Step, WizardState } from './types.js';
import type { Problem } from '../../records/types.js';
import type { PreviewRecord } from '../services/types.js';
import { idleRun, onRunEvent } from './run-events.js';
import { idleSync, isSyncAction, syncReducer } from './sync.js';
import { inWizardWords } from '../wizard-words.js';

/** Rows kept for the preview table; more records are counted and summarised, not kept. */
export const PREVIEW_ROW_LIMIT = 5000;
/** Sign-in checks kept on the results screen. */
export const SIGN_IN_RESULTS = 3;

const closedSignIn: SignInState = { open: false, running: false, results: [] };
const emptyPreview: PreviewState = { rows: [], seen: 0, filter: 'all', cursor: 0, spotCheck: { status: 'idle' } };

export function initialState(): WizardState {
  return {
    step: 'profile',
    profiles: { status: 'running' },
    secrets: {},
    missingSecrets: [],
    validation: { status: 'idle' },
    preview: emptyPreview,
    target: { status: 'idle' },
    preflight: { status: 'idle' },
    plan: { status: 'idle' },
    dryRun: false,
    allowPartial: false,
    run: idleRun,
    sync: idleSync,
    verify: { status: 'idle' },
    signIn: closedSignIn,
    save: { status: 'idle' },
  };
}

/** Where `esc` leads from each step; a running migration cannot be left (stop it with `q`). */
const BACK: Record<Step, Step | undefined> = {
  profile: undefined,
  keys: 'profile',
  source: 'keys',
  preview: 'source',
  target: 'preview',
  plan: 'target',
  run: undefined,
  results: 'plan',
};

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

export function reducer(state: WizardState, action: Action): WizardState {
  if (isSyncAction(action)) return { ...state, sync: syncReducer(state.sync, action) };
  switch (action.type) {
    case 'profiles-loaded':
      return { ...state, profiles: { status: 'done', value: action.profiles } };
    case 'profiles-failed':
      return { ...state, profiles: { status: 'failed', error: action.error } };
    case 'profile-opened':
      return {
        ...initialState(),
        profiles: state.profiles,
        step: 'keys',
        profile: action.loaded.profile,
        secrets: action.loaded.secrets,
        missingSecrets: action.loaded.missing,
        ...(action.loaded.signInSecret !== undefined ? { signInSecret: action.loaded.signInSecret } : {}),
      };
    case 'profile-updated':
      return { ...state, profile: action.profile, save: { status: 'idle' } };
    case 'secret-typed': {
      const missingSecrets = state.missingSecrets.filter((n) => n !== action.name);
      if (action.name === 'signInSecret') return { ...state, signInSecret: action.value, missingSecrets };
      const secrets = { ...state.secrets };
      if (action.value === '') delete secrets[action.name];
      else secrets[action.name] = action.value;
      return { ...state, secrets, missingSecrets };
    }
    case 'go':
      return { ...state, step: action.step, notice: undefined };
    case 'back': {
      const to = BACK[state.step];
      if (state.preview.detail !== undefined && state.step === 'preview') {
        return { ...state, preview: { ...state.preview, detail: undefined, spotCheck: { status: 'idle' } } };
      }
      if (state.signIn.open && state.step === 'results') return { ...state, signIn: { ...state.signIn, open: false } };
      return to ? { ...state, step: to, notice: undefined } : state;
    }
    case 'notice':
      return { ...state, notice: { kind: action.kind, text: action.text } };
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
    case 'target-started':
      return { ...state, target: { status: 'running' }, preflight: { status: 'idle' }, plan: { status: 'idle' } };
    case 'target-ready':
      return { ...state, target: { status: 'done', value: action.target }, preflight: { status: 'running' } };
    case 'target-failed':
      return { ...state, target: { status: 'failed', error: action.error } };
    case 'target-reset':
      return { ...state, target: { status: 'idle' }, preflight: { status: 'idle' }, plan: { status: 'idle' } };
    case 'preflight-finished':
      return { ...state, preflight: { status: 'done', value: action.result } };
    case 'preflight-failed':
      return { ...state, preflight: { status: 'failed', error: action.error } };
    case 'plan-started':
      return { ...state, plan: { status: 'running' } };
    case 'plan-ready':
      return { ...state, plan: { status: 'done', value: action.plan } };
    case 'plan-failed':
      return { ...state, plan: { status: 'failed', error: action.error } };
    case 'dry-run-shown':
      return { ...state, dryRun: !state.dryRun };
    case 'allow-partial':
      return { ...state, allowPartial: action.allow };
    case 'run-started':
      return {
        ...state,
        step: 'run',
        run: { ...idleRun, status: 'preparing', startedAt: action.at },
        verify: { status: 'idle' },
        verifyProgress: undefined,
        signIn: closedSignIn,
      };
    case 'run-events':
      return { ...state, run: action.events.reduce(onRunEvent, state.run) };
    case 'run-stopping':
      return { ...state, run: { ...state.run, status: 'stopping' } };
    case 'run-cancelled':
      return { ...state, step: 'plan', run: idleRun, notice: { kind: 'info', text: action.text } };
    case 'run-finished': {
      const t = action.outcome.totals;
      const refusal = action.outcome.refusal;
      const said = refusal ? [refusal.message, refusal.fix].filter(Boolean).join('; to go on: ') : action.outcome.error;
      const error = said === undefined ? undefined : inWizardWords(said);
      const run: RunState = {
        ...state.run,
        confirm: undefined,
        status: error ? 'failed' : 'finished',
        error,
        outcome: action.outcome,
        total: t.total,
        imported: t.imported,
        alreadyPresent: t.alreadyPresent,
        failed: t.failed,
        skipped: t.skipped,
        resumed: t.resumed,
        done: t.imported + t.alreadyPresent + t.failed + t.skipped,
      };
      return { ...state, step: 'results', run };
    }
    case 'run-failed':
      return { ...state, step: 'results', run: { ...state.run, status: 'failed', error: action.error } };
    case 'verify-started':
      return { ...state, verify: { status: 'running' }, verifyProgress: undefined };
    case 'verify-progress':
      return { ...state, verifyProgress: action.progress };
    case 'verify-finished':
      return { ...state, verify: { status: 'done', value: action.summary } };
    case 'verify-failed':
      return { ...state, verify: { status: 'failed', error: action.error } };
    case 'sign-in-open':
      return { ...state, signIn: { ...state.signIn, open: true } };
    case 'sign-in-close':
      return { ...state, signIn: { ...state.signIn, open: false } };
    case 'sign-in-started':
      return { ...state, signIn: { ...state.signIn, running: true } };
    case 'sign-in-finished':
      return {
        ...state,
        signIn: { ...state.signIn, running: false, results: [...state.signIn.results, action.entry].slice(-SIGN_IN_RESULTS) },
      };
    case 'save-started':
      return { ...state, save: { status: 'running' } };
    case 'save-finished':
      return { ...state, save: { status: 'done', value: action.path } };
    case 'save-failed':
      return { ...state, save: { status: 'failed', error: action.error } };
  }
}
