// Step 6: what will be called for how many users, the run options (kept in the profile); dry run, or run.
// The screen routes the keys; optionTexts, planLines and planWindow below say the options, lay the plan out as
// lines and pick the window of them that fits.
import { scrollWindow, wordWrappedRows, wrapToRows } from '../fit.js';
import { Box, Text } from 'ink';
import { useState } from 'react';
import type { Profile } from '../../profiles/index.js';
import type { TargetConnection } from '../services/types.js';
import type { WizardState } from '../state/types.js';
import { Frame } from '../components/Frame.js';
import { useWizard } from '../context.js';
import { useKeys } from '../hooks/useKeys.js';
import { helpLine, type Command } from '../keymap.js';
import { theme } from '../theme.js';
import { DEFAULT_BULK_IMPORT_INTERVAL_SEC } from '../../sandbox/config.js';
import { VIA_EXPLAINED, VIAS } from '../../engine/strategies/via.js';
import { SyncPlan, syncPlanLines } from './SyncLines.js';
import { signInSecretNeeded } from './key-fields.js';
import { lossLine } from '../../operations/partial.js';
import { inWizardWords } from '../wizard-words.js';
import { formatCount as n } from '../../numbers.js';

const KEYS: Command[] = [
  'up',
  'down',
  'pageUp',
  'pageDown',
  'left',
  'right',
  'dryRun',
  'run',
  'allowPartial',
  'back',
  'sync',
  'removeMissing',
];
/** undefined: the preflight learns the name the target takes (as `run` does without --scrypt-algorithm-name). */
const SCRYPT_NAMES: Array<string | undefined> = [undefined, 'external_scrypt', 'firebase_scrypt'];
/** Default of the runner, shown when the profile does not set one. */
const DEFAULT_CONCURRENCY = 16;

type Option =
  'via' | 'jobInterval' | 'concurrency' | 'keepSourceIds' | 'updateExisting' | 'disabled' | 'unusableHashes' | 'scryptAlgorithmName';
const OPTIONS: Option[] = [
  'concurrency',
  'keepSourceIds',
  'updateExisting',
  'disabled',
  'unusableHashes',
  'scryptAlgorithmName',
  'via',
  'jobInterval',
];
/** bulk-staged: how often the core runs its job, in seconds, as `run --job-interval` (undefined: the default). */
const JOB_INTERVALS: Array<number | undefined> = [undefined, 1, 5, 10, 30, 60, 300, 600, 1800, 3600];
/** `run --disabled`: the role choice keeps a role name the profile already has, else `disabled`. */
const disabledChoices = (profile: Profile): string[] => [
  'skip',
  'import',
  profile.disabled?.startsWith('role:') ? profile.disabled : 'role:disabled',
];

/** The profile with one option stepped left or right. */
export function stepOption(profile: Profile, option: Option, direction: 1 | -1): Profile {
  switch (option) {
    case 'concurrency': {
      const now = profile.concurrency ?? DEFAULT_CONCURRENCY;
      const next = direction > 0 ? (now < 8 ? now + 1 : now * 2) : now <= 8 ? now - 1 : now / 2;
      return { ...profile, concurrency: Math.min(256, Math.max(1, Math.round(next))) };
    }
    case 'via': {
      const i = Math.max(0, VIAS.indexOf(profile.via ?? 'steps'));
      return { ...profile, via: VIAS[(i + VIAS.length + direction) % VIAS.length]! };
    }
    case 'jobInterval': {
      const i = Math.max(0, JOB_INTERVALS.indexOf(profile.jobIntervalSec));
      const { jobIntervalSec: _drop, ...rest } = profile;
      const next = JOB_INTERVALS[(i + JOB_INTERVALS.length + direction) % JOB_INTERVALS.length];
      return next === undefined ? rest : { ...rest, jobIntervalSec: next };
    }
    case 'keepSourceIds':
      return { ...profile, keepSourceIds: !profile.keepSourceIds };
    case 'updateExisting':
      return { ...profile, updateExisting: !profile.updateExisting };
    case 'disabled': {
      const choices = disabledChoices(profile);
      const i = Math.max(0, choices.indexOf(profile.disabled ?? 'skip'));
      return { ...profile, disabled: choices[(i + choices.length + direction) % choices.length]! };
    }
    case 'unusableHashes': {
      const choices = ['skip', 'without-password', 'migrate-at-sign-in'] as const;
      const i = Math.max(0, choices.indexOf(profile.unusableHashes ?? 'skip'));
      return { ...profile, unusableHashes: choices[(i + choices.length + direction) % choices.length]! };
    }
    case 'scryptAlgorithmName': {
      const i = Math.max(0, SCRYPT_NAMES.indexOf(profile.scryptAlgorithmName));
      const next = SCRYPT_NAMES[(i + SCRYPT_NAMES.length + direction) % SCRYPT_NAMES.length];
      const { scryptAlgorithmName: _drop, ...rest } = profile;
      return next === undefined ? rest : { ...rest, scryptAlgorithmName: next };
    }
  }
}

type PlanLine = { key: string; text: string; style?: Record<string, unknown> };

export function PlanScreen() {
  const { state, actions, size } = useWizard();
  const [focus, setFocus] = useState(0);
  // The first row shown when the plan is taller than the screen (its top at first, so a refusal is read whole):
  // undefined follows the focused option (↑/↓); pgup/pgdn
  // and the dry run (`d` scrolls to it) set it.
  const [scroll, setScroll] = useState<number | undefined>(0);
  const plan = state.plan;
  const profile = state.profile!;
  const secretNeeded = signInSecretNeeded(state);
  const sync = state.sync;
  useKeys(KEYS, (c) => {
    if (c === 'back') actions.back();
    else if (c === 'sync') {
      if (sync.offer) actions.toggleSync();
    } else if (c === 'removeMissing') {
      if (sync.on) actions.toggleRemoveMissing();
    } else if (c === 'up' || c === 'down') {
      setFocus((f) => Math.max(0, Math.min(OPTIONS.length - 1, f + (c === 'up' ? -1 : 1))));
      setScroll(undefined);
    } else if (c === 'pageUp' || c === 'pageDown') {
      setScroll(Math.max(0, view.first + (c === 'pageUp' ? -1 : 1) * Math.max(1, view.count - 1)));
    } else if (c === 'left' || c === 'right') {
      actions.updateProfile(stepOption(profile, OPTIONS[focus]!, c === 'right' ? 1 : -1));
      // The plan depends on the id and algorithm options: plan again with the new values.
      if (OPTIONS[focus] !== 'concurrency' && OPTIONS[focus] !== 'jobInterval') void actions.plan();
    } else if (c === 'dryRun' && plan.status === 'running') {
      setScroll(state.dryRun ? undefined : rowAt(dryRunAt));
      actions.showDryRun();
    } else if (plan.status !== 'done') actions.notice('error', 'the plan is not ready yet');
    else if (c === 'allowPartial') {
      if (plan.value.losses.length > 0) actions.allowPartial(!state.allowPartial);
    } else if (c === 'dryRun') {
      setScroll(state.dryRun ? undefined : rowAt(dryRunAt));
      actions.showDryRun();
    } else if (c === 'run') {
      if (sync.on) {
        if (sync.preview.status === 'done') actions.run();
        else actions.notice('error', 'the sync is not ready yet (its preview is not done)');
      } else if (plan.value.users === 0) actions.notice('error', 'nothing to migrate');
      else if (secretNeeded) actions.notice('error', secretNeeded);
      else if (plan.value.losses.length > 0 && !state.allowPartial)
        actions.notice('error', 'whole classes of users would be lost (above): fix it, or press a to go on without them');
      else actions.run();
    }
  });
  const target = state.target.status === 'done' ? state.target.value : undefined;
  const width = Math.max(40, size.columns);
  const { lines, optionAt, dryRunAt, shownOptions, help } = planLines(state, focus, target, width, size.rows);
  const { rowLines, rowAt, view, shownHelp, syncRows } = planWindow(
    state,
    lines,
    help,
    width,
    size.rows,
    scroll,
    optionAt + shownOptions.indexOf(focus),
  );
  return (
    <Frame title="plan" help={shownHelp}>
      {rowLines.slice(view.first, view.first + view.count).map((l) => (
        <Text key={l.key} {...(l.style ?? {})} wrap="truncate-end">
          {l.text}
        </Text>
      ))}
      {view.hidden > 0 ? (
        <Text {...theme.muted}>
          ↓ {view.hidden} more line{view.hidden === 1 ? '' : 's'} (pgdn)
        </Text>
      ) : null}
      {sync.on ? (
        <Box flexDirection="column" marginTop={1}>
          <SyncPlan sync={sync} steps={state.dryRun} rows={syncRows} width={width} />
        </Box>
      ) : null}
    </Frame>
  );
}

/** The job interval in words: the profile's, or the core's default, and what it is for. */
function jobIntervalText(profile: Profile, target: TargetConnection | undefined): string {
  const running = target?.sandbox?.jobIntervalSec;
  const every =
    profile.jobIntervalSec !== undefined
      ? `every ${profile.jobIntervalSec} s`
      : target?.sandbox
        ? `every ${running ?? DEFAULT_BULK_IMPORT_INTERVAL_SEC} s (the sandbox's)`
        : "every 300 s (the reference core's default)";
  if (profile.via !== 'bulk-staged') return `${every} (bulk-staged only)`;
  // The wizard's sandbox runs its job at the interval it was started with (the target screen starts it again).
  if (running !== undefined && profile.jobIntervalSec !== undefined && profile.jobIntervalSec !== running)
    return `${every}: the sandbox runs its job every ${running} s; connect it again on the target screen to change it`;
  return `${every}: how often the core runs its bulk-import job`;
}

/** The options' labels, and the values the profile gives them in words. */
function optionTexts(
  profile: Profile,
  target: TargetConnection | undefined,
): { values: Record<Option, string>; labels: Record<Option, string> } {
  const values: Record<Option, string> = {
    via: `${profile.via ?? 'steps'}: ${VIA_EXPLAINED[profile.via ?? 'steps']}`,
    jobInterval: jobIntervalText(profile, target),
    concurrency: `${profile.concurrency ?? DEFAULT_CONCURRENCY} users at a time`,
    keepSourceIds: profile.keepSourceIds ? 'yes: map each user to its source id' : 'no',
    updateExisting: profile.updateExisting
      ? 'yes: replace the password hash of users already in the core'
      : 'no: leave existing users unchanged',
    disabled:
      (profile.disabled ?? 'skip') === 'skip'
        ? 'skip: users disabled in the source are left out'
        : profile.disabled === 'import'
          ? 'import: they are migrated and could sign in'
          : `give them the role ${profile.disabled!.slice(5)} (the app refuses them)`,
    unusableHashes:
      profile.unusableHashes === 'without-password'
        ? 'import the rest of those users; hashes listed for first sign-in'
        : profile.unusableHashes === 'migrate-at-sign-in'
          ? "import them whole; the app's sign-in part (the package auth-migrate-signin) checks the old hash once"
          : 'skip: users whose hash the core cannot take are left out (listed for first sign-in)',
    scryptAlgorithmName: profile.scryptAlgorithmName ?? 'as the target takes it (learnt by the preflight)',
  };
  const labels: Record<Option, string> = {
    via: 'write users via',
    jobInterval: 'job interval',
    concurrency: 'concurrency',
    keepSourceIds: 'keep source ids',
    updateExisting: 'update existing',
    disabled: 'disabled users',
    unusableHashes: 'unusable hashes',
    scryptAlgorithmName: 'scrypt name',
  };
  return { values, labels };
}

/**
 * The plan as lines, in order: the summary, the classes of users lost (the whole refusal), the options, then the
 * calls or the dry run; and the key help that goes with them.
 */
function planLines(state: WizardState, focus: number, target: TargetConnection | undefined, width: number, rows: number) {
  const secretNeeded = signInSecretNeeded(state);
  const plan = state.plan;
  const profile = state.profile!;
  const sync = state.sync;
  const { values, labels } = optionTexts(profile, target);
  // Everything wraps. With the dry run shown, its steps replace the list of calls and get the rows the rest leaves.
  const optionLines = OPTIONS.map((o, i) => `${i === focus ? theme.symbols.pointer : ' '} ${labels[o].padEnd(16)} ${values[o]}`);
  const summaryLine =
    plan.status === 'done'
      ? `${n(plan.value.users)} users to migrate in ${n(plan.value.totalCalls)} calls to ${target?.sandbox ? 'the sandbox' : target?.url}; ${n(plan.value.skipped)} records skipped` +
        // A migration carried on: what its earlier run finished is said, as `run` says it, and not sent again.
        (plan.value.fromJournal > 0
          ? `; the earlier run of this migration finished ${n(plan.value.fromJournal)} of them (carried on from its journal, not sent again)`
          : '')
      : '';
  const callLines =
    plan.status === 'done' && !state.dryRun ? plan.value.calls.map((c) => `${String(c.count).padStart(7)} × ${c.what}`) : [];
  // Whole classes of users the sources lose for a missing setting: the run refuses them unless `a` allows it.
  const losses = plan.status === 'done' && !sync.on ? plan.value.losses : [];
  const lossLines =
    losses.length === 0
      ? []
      : [
          ...losses.map((l) => `${theme.symbols.warn} ${lossLine(l)}; ${inWizardWords(l.fix)}`),
          state.allowPartial
            ? 'going on without them (press a again to refuse the run until it is fixed)'
            : 'the run is refused until this is fixed; press a to go on without them',
        ];
  const syncHelp = sync.on
    ? helpLine(['run', 'removeMissing', 'dryRun', 'sync', 'back'], { dryRun: 'steps', run: 'sync', sync: 'run instead' })
    : undefined;
  const commands: Command[] = [
    ...(sync.offer ? ['sync' as const] : []),
    'dryRun',
    'run',
    ...(losses.length > 0 ? ['allowPartial' as const] : []),
    'back',
  ];
  const help = syncHelp
    ? `${syncHelp} · ↑/↓ option · ←/→ change`
    : `↑/↓ option · ←/→ change · ${helpLine(commands, { dryRun: 'dry run', run: 'run the migration' })}`;
  // The plan as lines, in order: the summary, the classes of users lost (the whole refusal), the options, then the
  // calls or the dry run. The frame shows the window of them that fits its rows; pgup/pgdn scroll it, ↑/↓ keep the
  // focused option in it, and `d` scrolls to the dry run.
  const lines: PlanLine[] = [];
  if (plan.status === 'running') lines.push({ key: 'running', text: 'planning every valid record…', style: theme.muted });
  if (plan.status === 'failed') lines.push({ key: 'failed', text: plan.error, style: theme.error });
  if (plan.status === 'done' && !sync.on) lines.push({ key: 'summary', text: summaryLine });
  lossLines.forEach((text, i) => lines.push({ key: `loss${i}`, text, style: theme.warning }));
  if (secretNeeded) lines.push({ key: 'secret', text: `${theme.symbols.warn} ${secretNeeded}`, style: theme.warning });
  const optionAt = lines.length;
  const shownOptions = sync.on && rows < 30 ? [focus] : OPTIONS.map((_o, i) => i);
  shownOptions.forEach((i) => lines.push({ key: OPTIONS[i]!, text: optionLines[i]!, style: i === focus ? theme.selected : {} }));
  const dryRunAt = lines.length;
  if (plan.status === 'done' && !sync.on) {
    callLines.forEach((text, i) => lines.push({ key: `call${i}`, text }));
    if (state.dryRun) {
      lines.push({ key: 'dry', text: 'dry run: nothing was written (d again shows the calls)', style: theme.title });
      plan.value.sample.forEach((text, i) => lines.push({ key: `sample${i}`, text, style: theme.muted }));
    }
    if (sync.offer) syncPlanLines(sync, false).lines.forEach((text, i) => lines.push({ key: `offer${i}`, text, style: theme.muted }));
  }
  return { lines, optionAt, dryRunAt, shownOptions, help };
}

/** The window of the plan's rows that fits the frame: pgup/pgdn scroll it, ↑/↓ keep the focused option in it. */
function planWindow(
  state: WizardState,
  lines: PlanLine[],
  help: string,
  width: number,
  rows: number,
  scroll: number | undefined,
  focusLine: number,
) {
  const sync = state.sync;
  const noticeRows = state.notice ? wordWrappedRows(inWizardWords(state.notice.text), width) : 1;
  const helpOf = (scrolls: boolean) => (scrolls ? `${help} · pgup/dn scroll` : help);
  const bodyRowsFor = (h: string) => rows - 1 - 2 - noticeRows - wordWrappedRows(h, width);
  // Pre-wrapped to the width, so a refusal taller than the room scrolls row by row instead of being cut.
  const rowsOfLine = lines.map((l) => wrapToRows(l.text, width));
  const rowLines = lines.flatMap((l, i) => rowsOfLine[i]!.map((text, j) => ({ key: `${l.key}.${j}`, text, style: l.style })));
  const rowAt = (line: number) => rowsOfLine.slice(0, line).reduce((n, r) => n + r.length, 0);
  const heights = rowLines.map(() => 1);
  const syncRows = sync.on ? Math.max(1, bodyRowsFor(help) - heights.reduce((a, b) => a + b, 0) - 1) : 0;
  const overflows = heights.reduce((a, b) => a + b, 0) + (sync.on ? syncRows + 1 : 0) > bodyRowsFor(help);
  const shownHelp = helpOf(overflows && !sync.on);
  const view = sync.on
    ? { first: 0, count: lines.length, hidden: 0 }
    : scrollWindow(heights, bodyRowsFor(shownHelp), scroll, rowAt(focusLine));
  return { rowLines, rowAt, view, shownHelp, syncRows };
}
