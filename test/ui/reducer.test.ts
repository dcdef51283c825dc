import { describe, expect, it } from 'vitest';
import { emptyProfile } from '../../src/profiles/index.js';
import { initialState, PREVIEW_ROW_LIMIT, reducer, SIGN_IN_RESULTS, visibleRows } from '../../src/ui/state/reducer.js';
import type { Action, WizardState } from '../../src/ui/state/types.js';
import type { PreviewRecord, RunOutcome, SignInOutcome } from '../../src/ui/services/types.js';
import type { UserResult } from '../../src/engine/events.js';
import { Refusal, type RunOperationEvent } from '../../src/operations/events.js';

/** A finished run's outcome with these totals (the rest zero). */
function outcome(t: { total: number; imported?: number; alreadyPresent?: number; failed?: number; skipped?: number }): RunOutcome {
  const totals = { imported: 0, alreadyPresent: 0, failed: 0, skipped: 0, resumed: 0, ...t };
  return { totals, unreadable: 0, durationMs: 5, rerun: { command: 'auth-migrate run', exports: [] }, exitCode: 0 };
}

function row(id: string, severities: ('error' | 'warning')[] = []): PreviewRecord {
  return {
    key: id,
    record: { id, email: `${id}@example.com` },
    origin: { file: 'f.ndjson', line: 1 },
    problems: severities.map((severity) => ({ severity, rule: 'r', origin: { file: 'f.ndjson' }, message: 'm' })),
    valid: !severities.includes('error'),
  };
}

function run(actions: Action[], from: WizardState = initialState()): WizardState {
  return actions.reduce(reducer, from);
}

const opened: Action = {
  type: 'profile-opened',
  loaded: { profile: emptyProfile('p'), secrets: { apiKey: 'k'.repeat(20) }, missing: ['signerKey'] },
};

describe('wizard reducer: steps', () => {
  const cases: { name: string; actions: Action[]; step: string }[] = [
    { name: 'starts on the profile step', actions: [], step: 'profile' },
    { name: 'opening a profile goes to the keys', actions: [opened], step: 'keys' },
    { name: 'esc on keys goes back to the profile', actions: [opened, { type: 'back' }], step: 'profile' },
    { name: 'esc on the profile step stays', actions: [{ type: 'back' }], step: 'profile' },
    { name: 'go moves anywhere', actions: [opened, { type: 'go', step: 'target' }], step: 'target' },
    { name: 'esc on target returns to preview', actions: [opened, { type: 'go', step: 'target' }, { type: 'back' }], step: 'preview' },
    {
      name: 'a running migration cannot be left with esc',
      actions: [opened, { type: 'run-started', at: 1 }, { type: 'back' }],
      step: 'run',
    },
    { name: 'esc on results returns to the plan', actions: [opened, { type: 'go', step: 'results' }, { type: 'back' }], step: 'plan' },
    {
      name: 'esc in a record detail closes the detail, not the screen',
      actions: [opened, { type: 'go', step: 'preview' }, { type: 'preview-detail', key: 'a' }, { type: 'back' }],
      step: 'preview',
    },
    {
      name: 'a finished run lands on the results',
      actions: [
        opened,
        { type: 'run-started', at: 1 },
        {
          type: 'run-finished',
          outcome: outcome({ total: 1, imported: 1 }),
        },
      ],
      step: 'results',
    },
    {
      name: 'a failed run lands on the results',
      actions: [opened, { type: 'run-started', at: 1 }, { type: 'run-failed', error: '401' }],
      step: 'results',
    },
  ];
  it.each(cases)('$name', ({ actions, step }) => {
    expect(run(actions).step).toBe(step);
  });
});

describe('wizard reducer: data', () => {
  it('keeps the loaded secrets and the missing list; typing a secret clears it from missing', () => {
    const s1 = run([opened]);
    expect(s1.secrets.apiKey).toBe('k'.repeat(20));
    expect(s1.missingSecrets).toEqual(['signerKey']);
    const s2 = reducer(s1, { type: 'secret-typed', name: 'signerKey', value: 'AAAA' });
    expect(s2.secrets.signerKey).toBe('AAAA');
    expect(s2.missingSecrets).toEqual([]);
    const s3 = reducer(s2, { type: 'secret-typed', name: 'signerKey', value: '' });
    expect('signerKey' in s3.secrets).toBe(false);
  });

  it('opening another profile forgets the previous secrets and results', () => {
    const s = run([opened, { type: 'secret-typed', name: 'licenseKey', value: 'lic' }, { type: 'validation-record', record: row('a') }]);
    const again = reducer(s, { type: 'profile-opened', loaded: { profile: emptyProfile('q'), secrets: {}, missing: [] } });
    expect(again.secrets).toEqual({});
    expect(again.preview.rows).toEqual([]);
    expect(again.profile?.name).toBe('q');
  });

  it('attaches problems found at the end (cross-record) to rows already shown', () => {
    const dup = { severity: 'error' as const, rule: 'externalUserId.duplicate', origin: { file: 'f.ndjson', line: 1 }, message: 'dup' };
    const warn = { ...dup, severity: 'warning' as const, rule: 'w' };
    const s = run([
      { type: 'validation-started' },
      { type: 'validation-record', record: row('a') },
      { type: 'validation-record', record: row('b') },
      { type: 'validation-record', record: row('c') },
      {
        type: 'validation-finished',
        report: {
          summary: {} as never,
          problems: [dup],
          lateProblems: [
            { key: 'a', problem: dup },
            { key: 'c', problem: warn },
          ],
          lineProblems: [],
        },
      },
    ]);
    expect(s.preview.rows.map((r) => [r.key, r.valid, r.problems.length])).toEqual([
      ['a', false, 1],
      ['b', true, 0],
      ['c', true, 1],
    ]);
    expect(visibleRows({ ...s.preview, filter: 'errors' }).map((r) => r.key)).toEqual(['a']);
  });

  it('filters rows by severity and resets the cursor', () => {
    const s = run([
      { type: 'validation-started' },
      { type: 'validation-record', record: row('ok') },
      { type: 'validation-record', record: row('bad', ['error']) },
      { type: 'validation-record', record: row('meh', ['warning']) },
      { type: 'validation-record', record: row('both', ['warning', 'error']) },
      { type: 'preview-move', delta: 2 },
    ]);
    expect(s.preview.cursor).toBe(2);
    const cases: [string, string[]][] = [
      ['all', ['ok', 'bad', 'meh', 'both']],
      ['errors', ['bad', 'both']],
      ['warnings', ['meh', 'both']],
    ];
    for (const [filter, ids] of cases) {
      const f = reducer(s, { type: 'preview-filter', filter: filter as 'all' });
      expect(f.preview.cursor).toBe(0);
      expect(visibleRows(f.preview).map((r) => r.key)).toEqual(ids);
    }
  });

  it('clamps the cursor to the visible rows, by line and by page', () => {
    const base = run(['a', 'b', 'c', 'd', 'e'].map((id) => ({ type: 'validation-record', record: row(id) }) as Action));
    const cases: [Action[], number][] = [
      [[{ type: 'preview-move', delta: -1 }], 0],
      [
        [
          { type: 'preview-move', delta: 1 },
          { type: 'preview-move', delta: 1 },
        ],
        2,
      ],
      [[{ type: 'preview-move', delta: 1, pageSize: 3 }], 3],
      [[{ type: 'preview-move', delta: 1, pageSize: 30 }], 4],
      [
        [
          { type: 'preview-move', delta: 1, pageSize: 30 },
          { type: 'preview-move', delta: -1, pageSize: 3 },
        ],
        1,
      ],
    ];
    for (const [actions, cursor] of cases) expect(run(actions, base).preview.cursor).toBe(cursor);
  });

  it('keeps at most PREVIEW_ROW_LIMIT rows but counts every record', () => {
    let s = initialState();
    for (let i = 0; i < PREVIEW_ROW_LIMIT + 3; i += 1) s = reducer(s, { type: 'validation-record', record: row(`u${i}`) });
    expect(s.preview.rows.length).toBe(PREVIEW_ROW_LIMIT);
    expect(s.preview.seen).toBe(PREVIEW_ROW_LIMIT + 3);
  });

  it('counts from the run events, keeps the latest five failures and the skips with why, and honours pause/stop', () => {
    const totals = { total: 10, imported: 0, alreadyPresent: 0, failed: 0, skipped: 0, resumed: 0 };
    const done = (id: string, outcome: UserResult['outcome'], more: Partial<UserResult> = {}): RunOperationEvent => {
      if (outcome === 'imported') totals.imported += 1;
      else if (outcome === 'alreadyPresent') totals.alreadyPresent += 1;
      else if (outcome === 'failed') totals.failed += 1;
      else totals.skipped += 1;
      if (more.resumed) totals.resumed += 1;
      const result = { id, outcome, stepsRun: 1, stepsFromJournal: 0, ...more };
      return { type: 'user-done', result, done: 0, totals: { ...totals }, at: 1 };
    };
    const events: Action = {
      type: 'run-events',
      events: [
        { type: 'run-started', total: 10, concurrency: 4, journal: '/j', at: 1 },
        done('a', 'imported'),
        done('b', 'alreadyPresent'),
        done('c', 'skipped', { status: 'DISABLED', message: 'disabled in the source' }),
        ...[1, 2, 3, 4, 5, 6].map((i) => done(`f${i}`, 'failed', { step: 'password', status: 'HTTP 400' })),
        { type: 'retry', method: 'POST', path: '/x', attempt: 1, delayMs: 1, reason: 'HTTP 503', at: 1 },
        { type: 'paused', at: 1000 },
      ],
    };
    const s = run([{ type: 'run-started', at: 1 }, events]);
    expect(s.run).toMatchObject({
      status: 'paused',
      total: 10,
      done: 9,
      imported: 1,
      alreadyPresent: 1,
      skipped: 1,
      failed: 6,
      retries: 1,
    });
    expect(s.run.latestFailures).toEqual([
      'f2: password HTTP 400',
      'f3: password HTTP 400',
      'f4: password HTTP 400',
      'f5: password HTTP 400',
      'f6: password HTTP 400',
    ]);
    expect(s.run.latestSkips).toEqual(['c: disabled in the source']);
    const resumed = reducer(s, { type: 'run-events', events: [{ type: 'resumed', at: 4000 }] });
    expect(resumed.run.status).toBe('running');
    // The pause is kept apart, so the rate and elapsed time leave it out.
    expect(resumed.run.pausedMs).toBe(3000);
    const stopping = reducer(resumed, {
      type: 'run-events',
      events: [
        { type: 'stopping', reason: 'requested', at: 5000 },
        { type: 'paused', at: 5000 },
        { type: 'resumed', at: 5500 },
      ],
    });
    expect(stopping.run.status).toBe('stopping');
    // Users resumed from an earlier run's journal are counted apart (not in the rate).
    const again = reducer(resumed, { type: 'run-events', events: [done('r', 'alreadyPresent', { resumed: true })] });
    expect(again.run).toMatchObject({ done: 10, resumed: 1 });
  });

  it('the question before a real core is written, then the run folder once it goes on', () => {
    const confirmation = {
      action: 'run' as const,
      url: 'https://core',
      tenant: 'public',
      app: 'public',
      usersThere: 3,
      effects: ['writes up to 2 users'],
      typed: 'core',
    };
    const s = run([
      { type: 'run-started', at: 1 },
      { type: 'run-events', events: [{ type: 'confirm', confirmation }] },
    ]);
    expect(s.run).toMatchObject({ status: 'confirming', confirm: confirmation });
    const folder: RunOperationEvent = {
      type: 'run-folder',
      url: 'https://core',
      app: 'public',
      tenant: 'public',
      folder: '/runs/x',
      journal: '/runs/x/journal.ndjson',
      carriedOn: true,
      fromJournal: 5,
    };
    const going = reducer(s, { type: 'run-events', events: [folder] });
    expect(going.run).toMatchObject({ status: 'running', confirm: undefined, folder: { fromJournal: 5, folder: '/runs/x' } });
    const cancelled = reducer(s, { type: 'run-cancelled', text: 'not confirmed: nothing was written' });
    expect([cancelled.step, cancelled.run.status, cancelled.notice?.text]).toEqual(['plan', 'idle', 'not confirmed: nothing was written']);
  });

  it("--via bulk-staged: the latest line about the core's job replaces the one before, counting nothing", () => {
    const s = run([
      { type: 'run-started', at: 1 },
      {
        type: 'run-events',
        events: [
          { type: 'run-started', total: 3, concurrency: 1, journal: '/j', at: 1 },
          {
            type: 'staged-progress',
            staged: 3,
            processing: 0,
            failed: 0,
            imported: 0,
            of: 3,
            running: false,
            idleMs: 0,
            intervalMs: 5000,
            at: 1,
          },
          {
            type: 'staged-progress',
            staged: 0,
            processing: 0,
            failed: 0,
            imported: 3,
            of: 3,
            running: false,
            idleMs: 0,
            intervalMs: 5000,
            at: 2,
          },
        ],
      },
    ]);
    expect(s.run.staged).toMatch(/^core's bulk-import job: .*; 0 staged.*3 of this run's 3 taken by the job/);
    expect(s.run).toMatchObject({ done: 0, retries: 0 });
  });

  it("keeps how a steps run learns what the core holds, for the run screen's where lines", () => {
    const detail = "the core holds 0 users, at most 10 for each of the run's 3: read once in bulk";
    const s = run([
      { type: 'run-started', at: 1 },
      {
        type: 'run-events',
        events: [
          { type: 'run-started', total: 3, concurrency: 1, journal: '/j', at: 1 },
          { type: 'core-knowledge', listed: true, coreUsers: 0, runUsers: 3, detail, at: 1 },
        ],
      },
    ]);
    expect(s.run.knowledge).toBe(detail);
  });

  it('a run that ended on a fatal core answer is failed, with its outcome kept; a refused one says why and the fix', () => {
    const s = run([
      { type: 'run-started', at: 1 },
      { type: 'run-finished', outcome: { ...outcome({ total: 4, imported: 1 }), stopped: 'fatal', error: 'HTTP 402', folder: '/f' } },
    ]);
    expect(s.step).toBe('results');
    expect(s.run).toMatchObject({ status: 'failed', error: 'HTTP 402', imported: 1 });
    expect(s.run.outcome?.folder).toBe('/f');
    const refusal = new Refusal('partial', 'nothing was written: 5 users lose their passwords', 'give the hash config');
    const r = run([
      { type: 'run-started', at: 1 },
      { type: 'run-finished', outcome: { ...outcome({ total: 4 }), stopped: 'refused', refusal } },
    ]);
    expect(r.run).toMatchObject({
      status: 'failed',
      error: 'nothing was written: 5 users lose their passwords; to go on: give the hash config',
    });
  });

  it('the final totals come from the operation, not from the counted events', () => {
    const s = run([
      { type: 'run-started', at: 1 },
      { type: 'run-finished', outcome: { ...outcome({ total: 4, imported: 2, alreadyPresent: 1, skipped: 1 }), stopped: 'requested' } },
    ]);
    expect(s.run).toMatchObject({ status: 'finished', total: 4, done: 4, imported: 2, alreadyPresent: 1, skipped: 1 });
    expect(s.run.outcome?.stopped).toBe('requested');
  });

  it('a new target clears the preflight and the plan; a new validation clears the plan', () => {
    const withPlan = run([
      { type: 'target-ready', target: { url: 'http://x' } },
      { type: 'preflight-finished', result: { ok: true, checks: [], warnings: [] } },
      { type: 'plan-ready', plan: { users: 1, skipped: 0, totalCalls: 1, calls: [], sample: [], fromJournal: 0, losses: [] } },
    ]);
    expect(withPlan.preflight.status).toBe('done');
    const retarget = reducer(withPlan, { type: 'target-started' });
    expect([retarget.target.status, retarget.preflight.status, retarget.plan.status]).toEqual(['running', 'idle', 'idle']);
    expect(reducer(withPlan, { type: 'validation-started' }).plan.status).toBe('idle');
    expect(reducer(withPlan, { type: 'target-reset' }).target.status).toBe('idle');
  });

  it('tasks move through running, done and failed', () => {
    const cases: [Action, (s: WizardState) => unknown, unknown][] = [
      [{ type: 'verify-started' }, (s) => s.verify.status, 'running'],
      [{ type: 'verify-failed', error: 'x' }, (s) => s.verify, { status: 'failed', error: 'x' }],
      [{ type: 'save-finished', path: '/p' }, (s) => s.save, { status: 'done', value: '/p' }],
      [{ type: 'spot-check-finished', result: { result: 'match', detail: 'd' } }, (s) => s.preview.spotCheck.status, 'done'],
      [{ type: 'profiles-failed', error: 'bad json' }, (s) => s.profiles, { status: 'failed', error: 'bad json' }],
      [{ type: 'notice', kind: 'error', text: 't' }, (s) => s.notice, { kind: 'error', text: 't' }],
      [{ type: 'dry-run-shown' }, (s) => s.dryRun, true],
    ];
    for (const [action, pick, expected] of cases) expect(pick(reducer(initialState(), action))).toEqual(expected);
  });

  it('editing the profile marks it unsaved; go clears the notice', () => {
    const saved = run([opened, { type: 'save-finished', path: '/x' }, { type: 'notice', kind: 'info', text: 'hi' }]);
    expect(reducer(saved, { type: 'profile-updated', profile: emptyProfile('p') }).save.status).toBe('idle');
    expect(reducer(saved, { type: 'go', step: 'source' }).notice).toBeUndefined();
  });
});

describe('wizard reducer: sign-in checks on the results screen', () => {
  const onResults = run([opened, { type: 'go', step: 'results' }]);
  const single = (email: string, outcome: SignInOutcome): Action => ({
    type: 'sign-in-finished',
    entry: { kind: 'single', email, outcome },
  });

  it('i opens the fields; esc closes them and stays on the results; a second esc goes back to the plan', () => {
    const open = reducer(onResults, { type: 'sign-in-open' });
    expect(open.signIn.open).toBe(true);
    const closed = reducer(open, { type: 'back' });
    expect([closed.step, closed.signIn.open]).toEqual(['results', false]);
    expect(reducer(closed, { type: 'back' }).step).toBe('plan');
    expect(reducer(open, { type: 'sign-in-close' }).signIn.open).toBe(false);
  });

  it('a check runs, then its outcome joins a short list, newest last', () => {
    const started = run([{ type: 'sign-in-open' }, { type: 'sign-in-started' }], onResults);
    expect(started.signIn.running).toBe(true);
    const done = reducer(started, single('ada@example.com', { status: 'signed-in', userId: 'u1', loginMethods: 2 }));
    expect(done.signIn).toEqual({
      open: true,
      running: false,
      results: [{ kind: 'single', email: 'ada@example.com', outcome: { status: 'signed-in', userId: 'u1', loginMethods: 2 } }],
    });
    const many = run(
      Array.from({ length: SIGN_IN_RESULTS + 2 }, (_, i) =>
        single(`u${i}@x`, i % 2 ? { status: 'wrong-credentials' } : { status: 'error', error: 'HTTP 500' }),
      ),
      done,
    );
    expect(many.signIn.results).toHaveLength(SIGN_IN_RESULTS);
    expect(many.signIn.results.map((e) => (e.kind === 'single' ? e.email : ''))).toEqual(
      Array.from({ length: SIGN_IN_RESULTS }, (_, i) => `u${i + 2}@x`),
    );
  });

  it('file checks are kept like single ones; a new run starts with the fields closed and no results', () => {
    const withFile = run(
      [
        { type: 'sign-in-open' },
        {
          type: 'sign-in-finished',
          entry: { kind: 'file', path: 'c.txt', result: { checked: 3, ok: 2, failed: [{ email: 'bob@x', status: 'wrong credentials' }] } },
        },
        { type: 'sign-in-finished', entry: { kind: 'file-error', path: 'nope.txt', error: 'cannot read' } },
      ],
      onResults,
    );
    expect(withFile.signIn.results.map((e) => e.kind)).toEqual(['file', 'file-error']);
    expect(reducer(withFile, { type: 'run-started', at: 1 }).signIn).toEqual({ open: false, running: false, results: [] });
  });

  it('no action carries a password: the state after a check holds the email and the outcome only', () => {
    const done = run(
      [{ type: 'sign-in-open' }, { type: 'sign-in-started' }, single('ada@example.com', { status: 'wrong-credentials' })],
      onResults,
    );
    expect(JSON.stringify(done.signIn)).not.toMatch(/password/i);
  });
});
