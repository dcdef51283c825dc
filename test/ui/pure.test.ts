import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Key } from 'ink';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSecret } from '../../src/profiles/index.js';
import { editText, isFieldKey, type TextState } from '../../src/ui/components/text-edit.js';
import { commonPrefix } from '../../src/ui/components/PathInput.js';
import { commandFor, helpLine } from '../../src/ui/keymap.js';
import { detailLines, tableCells } from '../../src/ui/records-view.js';
import { completePath } from '../../src/ui/services/paths.js';

const none: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
} as Key;
const key = (k: Partial<Key>): Key => ({ ...none, ...k });

describe('key map', () => {
  const cases: [string, Partial<Key>, boolean, string | undefined][] = [
    ['', { escape: true }, false, 'back'],
    ['', { upArrow: true }, false, 'up'],
    ['', { return: true }, false, 'select'],
    ['q', {}, false, 'stop'],
    ['q', {}, true, undefined],
    ['p', {}, false, 'pause'],
    ['p', { ctrl: true }, false, undefined],
    ['', { escape: true }, true, 'back'],
  ];
  it.each(cases)('%j %j (text focus %s) -> %s', (input, k, textFocus, expected) => {
    expect(commandFor(input, key(k), ['back', 'up', 'select', 'pause', 'stop'], textFocus)).toBe(expected);
  });
  it('draws footers from the same bindings', () => {
    expect(helpLine(['up', 'down', 'select', 'back'])).toBe('↑/↓ move · enter choose · esc back');
    expect(helpLine(['pause', 'stop'], { stop: 'stop now' })).toBe('p pause/resume · q stop now');
  });
});

describe('text editing', () => {
  const at = (value: string, cursor = value.length): TextState => ({ value, cursor });
  it.each([
    ['abc', false, { value: 'abc', submit: false }],
    ['name\r', false, { value: 'name', submit: true }],
    ['hash_config {\n a: 1,\r\n b: 2 }', true, { value: 'hash_config {  a: 1,  b: 2 }', submit: true }],
    ['hash_config {\n a: 1,', true, { value: 'hash_config {  a: 1,', submit: false }],
    ['abcdef\u007f\u007f\u007f', false, { value: 'abc', submit: false }],
    ['ab\u007f\u007f\u007f\u007fxy', false, { value: 'xy', submit: false }],
    ['a\u0007b\tc', false, { value: 'abc', submit: false }],
  ])('typing or pasting %j (joinLines %s) into an empty field', (input, join, expected) => {
    const r = editText(at(''), input, none, join);
    expect({ value: r.state.value, submit: r.submit }).toEqual(expected);
    expect(r.state.cursor).toBe(expected.value.length);
  });
  it.each([
    [
      'left then type',
      [
        [at('abcd'), '', key({ leftArrow: true })],
        ['', 'X'],
      ],
      'abcXd',
    ],
    [
      'home then type',
      [
        [at('abcd'), '', key({ home: true })],
        ['', 'X'],
      ],
      'Xabcd',
    ],
    ['backspace in the middle', [[at('abcd', 2), '', key({ backspace: true })]], 'acd'],
    ['DEL key (as terminals send it) at the start does nothing', [[at('abcd', 0), '', key({ delete: true })]], 'abcd'],
    ['ctrl+u clears before the cursor', [[at('abcd', 3), 'u', key({ ctrl: true })]], 'd'],
    ['other ctrl keys insert nothing', [[at('ab'), 'k', key({ ctrl: true })]], 'ab'],
  ] as const)('%s', (_name, steps, expected) => {
    let state = steps[0][0] as TextState;
    for (const step of steps) {
      const [input, k] = step.length === 3 ? [step[1], step[2]] : [step[1], none];
      state = editText(state, input as string, k as Key).state;
    }
    expect(state.value).toBe(expected);
  });
  it('Enter submits what is there; up, down, tab and escape belong to the screen', () => {
    expect(editText(at('x'), '\r', key({ return: true })).submit).toBe(true);
    for (const k of [{ upArrow: true }, { downArrow: true }, { tab: true }, { escape: true }]) expect(isFieldKey('', key(k))).toBe(true);
    expect(isFieldKey('a', none)).toBe(false);
  });
  it.each([
    [['abc/', 'abd.json'], 'ab'],
    [['only'], 'only'],
    [[], ''],
  ])('commonPrefix(%j) = %j', (items, expected) => expect(commonPrefix(items)).toBe(expected));
});

describe('path completion', () => {
  const dir = mkdtempSync(join(tmpdir(), 'am-complete-'));
  mkdirSync(join(dir, 'exports'));
  writeFileSync(join(dir, 'exports', 'users.ndjson'), '');
  writeFileSync(join(dir, 'exports', 'users.json'), '');
  writeFileSync(join(dir, '.hidden'), '');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it('completes relative, absolute and folder paths', async () => {
    expect(await completePath('ex', dir)).toEqual(['exports/']);
    expect(await completePath('exports/us', dir)).toEqual(['exports/users.json', 'exports/users.ndjson']);
    expect(await completePath(`${dir}/exports/users.nd`)).toEqual([`${dir}/exports/users.ndjson`]);
    expect(await completePath('', dir)).toEqual(['exports/']);
    expect(await completePath('.h', dir)).toEqual(['.hidden']);
    expect(await completePath('nowhere/x', dir)).toEqual([]);
  });
});

describe('secret rules', () => {
  it.each([
    ['apiKey', '', undefined],
    ['apiKey', 'short', /too short/],
    ['apiKey', 'a'.repeat(19) + '!', /only letters/],
    ['apiKey', 'abc-DEF=0123456789xyz', undefined],
    ['signerKey', 'not base64!', /base64/],
    ['signerKey', 'Bw==', undefined],
    ['licenseKey', 'has space', /spaces/],
  ] as const)('%s %j', (name, value, expected) => {
    const result = checkSecret(name, value);
    if (expected === undefined) expect(result).toBeUndefined();
    else expect(result).toMatch(expected);
  });
});

describe('record view', () => {
  const HASH = '$2b$10$abcdefghijklmnopqrstuu5Pq1gT9ZHbBmG7F4Q2u3y8vJc4eV1Ve';
  const SECRET = 'JBSWY3DPEHPK3PXP';
  const row = {
    key: 'k',
    record: {
      id: 'u1',
      email: 'a@example.com',
      password: { hash: HASH },
      thirdParty: [{ providerId: 'google', userId: 'g1' }],
      totp: [{ secret: SECRET, deviceName: 'phone' }],
      otpFactors: { phoneNumber: '+4915112345678' },
    },
    origin: { file: 'x.ndjson', line: 3 },
    problems: [{ severity: 'warning' as const, rule: 'r', origin: { file: 'x.ndjson', line: 3 }, sourceId: 'u1', message: 'careful' }],
    valid: true,
  };
  it('fills the table cells', () => {
    expect(tableCells(row)).toEqual({
      id: 'u1',
      email: 'a@example.com',
      first: 'password',
      algorithm: 'bcrypt',
      factors: 'totp×1 sms',
      problems: '1 warning',
    });
  });
  it('describes a record without its hash or TOTP secret', () => {
    const text = detailLines(row).join('\n');
    expect(text).toContain('password bcrypt hash (hidden');
    expect(text).toContain('totp[0] phone · secret hidden');
    expect(text).toContain('warning: x.ndjson:3 (id u1): careful');
    expect(text).not.toContain(HASH);
    expect(text).not.toContain(SECRET);
  });
});

describe('profile options edited in the wizard', async () => {
  const { parseProviderMap, formatProviderMap } = await import('../../src/ui/screens/SourceScreen.js');
  const { stepOption } = await import('../../src/ui/screens/PlanScreen.js');
  const { emptyProfile } = await import('../../src/profiles/index.js');
  it.each([
    ['', {}],
    ['google.com=google', { 'google.com': 'google' }],
    [' github.com = gh , apple.com=apple ', { 'github.com': 'gh', 'apple.com': 'apple' }],
    ['bad pair', undefined],
    ['a=b=c', undefined],
  ])('parseProviderMap(%j)', (text, expected) => expect(parseProviderMap(text)).toEqual(expected));
  it('formats a provider map back', () => expect(formatProviderMap({ 'github.com': 'gh', x: 'y' })).toBe('github.com=gh, x=y'));
  it('steps the run options', () => {
    const p = emptyProfile('p');
    const seq = (dir: 1 | -1, n: number) => {
      let q = p;
      const out: number[] = [];
      for (let i = 0; i < n; i += 1) out.push((q = stepOption(q, 'concurrency', dir)).concurrency!);
      return out;
    };
    expect(seq(1, 3)).toEqual([32, 64, 128]);
    expect(seq(-1, 4)).toEqual([8, 7, 6, 5]);
    expect(stepOption(stepOption(p, 'keepSourceIds', 1), 'keepSourceIds', -1).keepSourceIds).toBe(false);
    expect(stepOption(p, 'keepSourceIds', 1).keepSourceIds).toBe(true);
    // undefined (learnt by the preflight) -> external_scrypt -> firebase_scrypt -> undefined again.
    const once = stepOption(p, 'scryptAlgorithmName', 1);
    expect(once.scryptAlgorithmName).toBe('external_scrypt');
    expect(stepOption(once, 'scryptAlgorithmName', 1).scryptAlgorithmName).toBe('firebase_scrypt');
    expect('scryptAlgorithmName' in stepOption(stepOption(once, 'scryptAlgorithmName', 1), 'scryptAlgorithmName', 1)).toBe(false);
    expect(stepOption(p, 'updateExisting', 1).updateExisting).toBe(true);
    // --disabled: skip -> import -> role:disabled -> skip; a role name the profile has is kept.
    const d1 = stepOption(p, 'disabled', 1);
    expect([d1.disabled, stepOption(d1, 'disabled', 1).disabled]).toEqual(['import', 'role:disabled']);
    expect(stepOption(p, 'disabled', -1).disabled).toBe('role:disabled');
    expect(stepOption({ ...p, disabled: 'role:blocked' }, 'disabled', 1).disabled).toBe('skip');
    expect(stepOption({ ...p, disabled: 'import' }, 'disabled', 1).disabled).toBe('role:disabled');
    expect(stepOption({ ...p, disabled: 'skip' }, 'disabled', -1).disabled).toBe('role:disabled');
    // --unusable-hashes cycles skip -> without-password -> migrate-at-sign-in -> skip.
    expect(stepOption(p, 'unusableHashes', 1).unusableHashes).toBe('without-password');
    expect(stepOption(stepOption(p, 'unusableHashes', 1), 'unusableHashes', 1).unusableHashes).toBe('migrate-at-sign-in');
    expect(stepOption(p, 'unusableHashes', -1).unusableHashes).toBe('migrate-at-sign-in');
    expect(stepOption({ ...p, unusableHashes: 'migrate-at-sign-in' }, 'unusableHashes', 1).unusableHashes).toBe('skip');
  });
});

describe('the exit code of a run (both shells)', () => {
  it('is 0 all ok, 1 failed or skipped or unreadable, 130 stopped, 2 refused or fatal', async () => {
    const { runExitCode } = await import('../../src/operations/run.js');
    const totals = { total: 3, imported: 3, alreadyPresent: 0, failed: 0, skipped: 0, resumed: 0 };
    expect(runExitCode({ totals, unreadable: 0 })).toBe(0);
    expect(runExitCode({ totals: { ...totals, failed: 1 }, unreadable: 0 })).toBe(1);
    expect(runExitCode({ totals: { ...totals, skipped: 1 }, unreadable: 0 })).toBe(1);
    expect(runExitCode({ totals, unreadable: 1 })).toBe(1);
    expect(runExitCode({ totals, unreadable: 0, stopped: 'requested' })).toBe(130);
    expect(runExitCode({ totals, unreadable: 0, stopped: 'fatal' })).toBe(2);
    expect(runExitCode({ totals, unreadable: 0, stopped: 'refused' })).toBe(2);
  });
});

describe('colours', () => {
  it('NO_COLOR turns them off, FORCE_COLOR (when set) decides', async () => {
    const { colourOverride } = await import('../../src/commands/wizard.js');
    expect(colourOverride({})).toBeUndefined();
    expect(colourOverride({ NO_COLOR: '1' })).toBe('0');
    expect(colourOverride({ NO_COLOR: '' })).toBeUndefined();
    expect(colourOverride({ NO_COLOR: '1', FORCE_COLOR: '2' })).toBe('2');
    expect(colourOverride({ FORCE_COLOR: '0' })).toBe('0');
  });
});

describe('the results screen says where every file is', () => {
  it('a run folder then the names in it (sign-in migration file and TOTP checks log when present); else each path; nothing when blocked', async () => {
    const { runFileLines } = await import('../../src/ui/screens/ResultsScreen.js');
    const f = '/runs/night-2026-11-23T09-35-08Z';
    const rerun = { command: 'auth-migrate run --profile night', exports: [] };
    const o = {
      totals: { total: 1, imported: 1, alreadyPresent: 0, failed: 0, skipped: 0, resumed: 0 },
      unreadable: 0,
      stopped: 'requested' as const,
      durationMs: 1,
      folder: f,
      paths: {
        journal: `${f}/journal.ndjson`,
        report: `${f}/report.ndjson`,
        failures: `${f}/failures.ndjson`,
        signIn: `${f}/signin-migration.ndjson`,
      },
      resumeFile: `${f}/resume.txt`,
      rerun,
      exitCode: 130,
    };
    const verify = {
      status: 'done' as const,
      value: {
        counts: { total: 1, ok: 1, missing: 0, mismatch: 0, skipped: 0 },
        problems: [],
        notOk: 0,
        credentials: [],
        totpCodesChecked: true,
        durationMs: 1,
        exitCode: 0,
        totpChecksFile: `${f}/journal.ndjson.totp-checks.ndjson`,
      },
    };
    expect(runFileLines(o, { storePath: '/s.json', temporary: true }, verify)).toEqual([
      `run folder ${f}`,
      '  journal.ndjson · report.ndjson · failures.ndjson · resume.txt · signin-migration.ndjson · journal.ndjson.totp-checks.ndjson',
      'store /s.json (temporary, kept: the journal points at it)',
    ]);
    expect(
      runFileLines(
        {
          ...o,
          folder: undefined,
          paths: { journal: '/x/a.journal.ndjson', report: '/x/a.report.ndjson', failures: '/x/a.failures.ndjson' },
          resumeFile: undefined,
        },
        undefined,
        { status: 'idle' },
      ),
    ).toEqual(['journal /x/a.journal.ndjson', 'report /x/a.report.ndjson', 'failures /x/a.failures.ndjson']);
    const refused = { totals: o.totals, unreadable: 0, stopped: 'refused' as const, durationMs: 0, rerun, exitCode: 2 };
    expect(runFileLines(refused, undefined, { status: 'idle' })).toEqual(['files: none, nothing was written (no run folder, no journal)']);
  });
});

describe('a record the run leaves out (issue 23 item 8)', () => {
  it('is not "valid: will be migrated" in its details', () => {
    const origin = { file: 'u.json', index: 0 } as unknown as Parameters<typeof detailLines>[0]['origin'];
    const row = (message?: string) => ({
      key: 'k',
      record: { id: 'd1', email: 'd1@example.test', disabled: true },
      origin,
      valid: true,
      problems: message ? [{ severity: 'warning' as const, rule: 'user.disabled', field: 'disabled', message, origin }] : [],
    });
    const skipped = detailLines(
      row('the user is disabled in the source: its record is valid, but `run` leaves it out under --disabled skip') as never,
    );
    expect(skipped).toContain('valid, but the run leaves it out (below)');
    expect(skipped).not.toContain('valid: will be migrated');
    expect(detailLines(row() as never)).toContain('valid: will be migrated');
  });
});
