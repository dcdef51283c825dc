import { describe, expect, it } from 'vitest';
import { emptyProfile } from '../../src/profiles/index.js';
import { initialState, PREVIEW_ROW_LIMIT, reducer, SIGN_IN_RESULTS, visibleRows } from '../../src/ui/state/reducer.js';
import type { Action, WizardState } from '../../src/ui/state/types.js';
import type { PreviewRecord, SignInOutcome } from '../../src/ui/services/types.js';

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
          outcome: { totals: { total: 1, imported: 1, alreadyPresent: 0, failed: 0, skipped: 0 }, stopped: false, durationMs: 5 },
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

  it('counts run updates, keeps the latest five failures, and honours pause/stop', () => {
    const updates: Action = {
      type: 'run-updates',
      updates: [
        { type: 'started', total: 10 },
        { type: 'user', outcome: 'imported', sourceId: 'a' },
        { type: 'user', outcome: 'already-present', sourceId: 'b' },
        { type: 'user', outcome: 'skipped', sourceId: 'c' },
        ...[1, 2, 3, 4, 5, 6].map((i) => ({ type: 'user' as const, outcome: 'failed' as const, sourceId: `f${i}`, failure: 'HTTP 400' })),
        { type: 'retry', detail: 'POST /x: HTTP 503' },
        { type: 'paused', at: 1000 },
      ],
    };
    const s = run([{ type: 'run-started', at: 1 }, updates]);
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
    expect(s.run.latestFailures).toEqual(['f2: HTTP 400', 'f3: HTTP 400', 'f4: HTTP 400', 'f5: HTTP 400', 'f6: HTTP 400']);
    const resumed = reducer(s, { type: 'run-updates', updates: [{ type: 'resumed', at: 4000 }] });
    expect(resumed.run.status).toBe('running');
    // The pause is kept apart, so the rate and elapsed time leave it out.
    expect(resumed.run.pausedMs).toBe(3000);
    const stopping = reducer(resumed, {
      type: 'run-updates',
      updates: [{ type: 'stopping' }, { type: 'paused', at: 5000 }, { type: 'resumed', at: 5500 }],
    });
    expect(stopping.run.status).toBe('stopping');
    // Users resumed from an earlier run's journal are counted apart (not in the rate).
    const again = reducer(resumed, {
      type: 'run-updates',
      updates: [{ type: 'user', outcome: 'already-present', sourceId: 'r', resumed: true }],
    });
    expect(again.run).toMatchObject({ done: 10, resumed: 1 });
  });

  it("--via bulk-staged: the latest line about the core's job replaces the one before, counting nothing", () => {
    const s = run([
      { type: 'run-started', at: 1 },
      {
        type: 'run-updates',
        updates: [
          { type: 'started', total: 3 },
          {
            type: 'staged',
            detail: "core's bulk-import job: 3 staged, 0 processing, 0 failed in its list; 0 of this run's users imported",
          },
          {
            type: 'staged',
            detail: "core's bulk-import job: 0 staged, 0 processing, 0 failed in its list; 3 of this run's users imported",
          },
        ],
      },
    ]);
    expect(s.run.staged).toMatch(/^core's bulk-import job: 0 staged/);
    expect(s.run).toMatchObject({ done: 0, retries: 0 });
  });

  it('a run that ended on a fatal core answer is failed, with its outcome kept', () => {
    const s = run([
      { type: 'run-started', at: 1 },
      {
        type: 'run-finished',
        outcome: {
          totals: { total: 4, imported: 1, alreadyPresent: 0, failed: 0, skipped: 0 },
          stopped: true,
          durationMs: 3,
          journal: '/j',
          error: 'HTTP 402',
        },
      },
    ]);
    expect(s.step).toBe('results');
    expect(s.run).toMatchObject({ status: 'failed', error: 'HTTP 402', imported: 1 });
    expect(s.run.outcome?.journal).toBe('/j');
  });

  it('the final totals come from the runner, not from the counted updates', () => {
    const s = run([
      { type: 'run-started', at: 1 },
      { type: 'run-updates', updates: [{ type: 'user', outcome: 'imported', sourceId: 'a' }] },
      {
        type: 'run-finished',
        outcome: { totals: { total: 4, imported: 2, alreadyPresent: 1, failed: 0, skipped: 1 }, stopped: true, durationMs: 10 },
      },
    ]);
    expect(s.run).toMatchObject({ status: 'finished', total: 4, done: 4, imported: 2, alreadyPresent: 1, skipped: 1 });
    expect(s.run.outcome?.stopped).toBe(true);
  });

  it('a new target clears the preflight and the plan; a new validation clears the plan', () => {
    const withPlan = run([
      { type: 'target-ready', target: { url: 'http://x' } },
      { type: 'preflight-finished', result: { ok: true, checks: [], warnings: [] } },
      { type: 'plan-ready', plan: { users: 1, skipped: 0, totalCalls: 1, calls: [], sample: [] } },
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
