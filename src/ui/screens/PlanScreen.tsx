// Step 6: what will be called for how many users, the run options (kept in the profile); dry run, or run.
import { linesThatFit, wordWrappedRows, wrappedRows } from '../fit.js';
import { Box, Text } from 'ink';
import { useState } from 'react';
import type { Profile } from '../../profiles/index.js';
import { Frame } from '../components/Frame.js';
import { useWizard } from '../context.js';
import { useKeys } from '../hooks/useKeys.js';
import { helpLine, type Command } from '../keymap.js';
import { theme } from '../theme.js';
import { VIA_EXPLAINED, VIAS } from '../../migration/via.js';
import { SyncPlan } from './SyncLines.js';
import { lossLine } from '../../operations/partial.js';
import { inWizardWords } from '../wizard-words.js';
import { formatCount as n } from '../../numbers.js';

const KEYS: Command[] = ['up', 'down', 'left', 'right', 'dryRun', 'run', 'allowPartial', 'back', 'sync', 'removeMissing'];
/** undefined: the preflight learns the name the target takes (as `run` does without --scrypt-algorithm-name). */
const SCRYPT_NAMES: Array<string | undefined> = [undefined, 'external_scrypt', 'firebase_scrypt'];
/** Default of the runner, shown when the profile does not set one. */
const DEFAULT_CONCURRENCY = 16;

type Option = 'via' | 'concurrency' | 'keepSourceIds' | 'updateExisting' | 'disabled' | 'unusableHashes' | 'scryptAlgorithmName';
const OPTIONS: Option[] = ['concurrency', 'keepSourceIds', 'updateExisting', 'disabled', 'unusableHashes', 'scryptAlgorithmName', 'via'];
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

export function PlanScreen() {
  const { state, actions, size } = useWizard();
  const [focus, setFocus] = useState(0);
  const plan = state.plan;
  const profile = state.profile!;
  const sync = state.sync;
  useKeys(KEYS, (c) => {
    if (c === 'back') actions.back();
    else if (c === 'sync') {
      if (sync.offer) actions.toggleSync();
    } else if (c === 'removeMissing') {
      if (sync.on) actions.toggleRemoveMissing();
    } else if (c === 'up' || c === 'down') setFocus((f) => Math.max(0, Math.min(OPTIONS.length - 1, f + (c === 'up' ? -1 : 1))));
    else if (c === 'left' || c === 'right') {
      actions.updateProfile(stepOption(profile, OPTIONS[focus]!, c === 'right' ? 1 : -1));
      // The plan depends on the id and algorithm options: plan again with the new values.
      if (OPTIONS[focus] !== 'concurrency') void actions.plan();
    } else if (plan.status !== 'done') actions.notice('error', 'the plan is not ready yet');
    else if (c === 'allowPartial') {
      if (plan.value.losses.length > 0) actions.allowPartial(!state.allowPartial);
    } else if (c === 'dryRun') actions.showDryRun();
    else if (c === 'run') {
      if (sync.on) {
        if (sync.preview.status === 'done') actions.run();
        else actions.notice('error', 'the sync is not ready yet (its preview is not done)');
      } else if (plan.value.users === 0) actions.notice('error', 'nothing to migrate');
      else if (plan.value.losses.length > 0 && !state.allowPartial)
        actions.notice('error', 'whole classes of users would be lost (above): fix it, or a to go on without them');
      else actions.run();
    }
  });
  const target = state.target.status === 'done' ? state.target.value : undefined;
  const values: Record<Option, string> = {
    via: `${profile.via ?? 'steps'}: ${VIA_EXPLAINED[profile.via ?? 'steps']}`,
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
          : `give them the role ${profile.disabled!.slice(5)} (the app refuses them); another name: run --disabled role:NAME`,
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
    concurrency: 'concurrency',
    keepSourceIds: 'keep source ids',
    updateExisting: 'update existing',
    disabled: 'disabled users',
    unusableHashes: 'unusable hashes',
    scryptAlgorithmName: 'scrypt name',
  };
  // Everything wraps. With the dry run shown, its steps replace the list of calls and get the rows the rest leaves.
  const width = Math.max(40, size.columns);
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
            ? 'going on without them (a again: refuse the run until it is fixed)'
            : 'the run is refused until this is fixed; a: go on without them',
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
  const above = (sync.on ? [] : [summaryLine, ...lossLines]).reduce((n, l) => n + wrappedRows(l, width), 0);
  // A sync's delta needs the rows: on a small terminal only the focused option is shown (↑/↓ still move).
  const shownOptions = sync.on && size.rows < 30 ? [focus] : OPTIONS.map((_o, i) => i);
  // Room for the options wrapped whole (title, margins, notice, key help and two call lines aside); when there is
  // not, the focused option wraps and the others take one row each, so the option ←/→ changes stays in view.
  const room = size.rows - 1 - 6 - wordWrappedRows(help, width) - above;
  const wrappedOptions = shownOptions.reduce((n, i) => n + wrappedRows(optionLines[i]!, width), 0);
  const wrapAll = wrappedOptions <= room;
  const optionRows = wrapAll ? wrappedOptions : shownOptions.length + 1;
  const sampleRows = Math.max(2, size.rows - 1 - above - optionRows - 2 - 8);
  const syncRows = Math.max(1, size.rows - 1 - optionRows - 6);
  return (
    <Frame title="plan" help={help}>
      {/* What the plan comes to first, then the options, then the calls (and the dry run) in what is left. */}
      {plan.status === 'running' ? <Text {...theme.muted}>planning every valid record…</Text> : null}
      {plan.status === 'failed' ? <Text {...theme.error}>{plan.error}</Text> : null}
      {plan.status === 'done' && !sync.on ? <Text wrap="wrap">{summaryLine}</Text> : null}
      {lossLines.map((line) => (
        <Text key={line} {...theme.warning} wrap="wrap">
          {line}
        </Text>
      ))}
      <Box flexDirection="column" marginTop={sync.on ? 0 : 1}>
        {shownOptions.map((i) => (
          <Text key={OPTIONS[i]} {...(i === focus ? theme.selected : {})} wrap={wrapAll || i === focus ? 'wrap' : 'truncate-end'}>
            {optionLines[i]}
          </Text>
        ))}
      </Box>
      <Box flexDirection="column" marginTop={1}>
        {sync.on ? <SyncPlan sync={sync} steps={state.dryRun} rows={syncRows} width={width} /> : null}
        {plan.status === 'done' && !sync.on ? (
          <>
            {callLines.map((line) => (
              <Text key={line} wrap="wrap">
                {line}
              </Text>
            ))}
            {state.dryRun ? (
              <Box flexDirection="column" marginTop={1}>
                <Text {...theme.title}>dry run: nothing was written (d again shows the calls)</Text>
                {linesThatFit(plan.value.sample, sampleRows, width).map((line, i) => (
                  <Text key={i} {...theme.muted} wrap="wrap">
                    {line}
                  </Text>
                ))}
              </Box>
            ) : null}
            {sync.offer ? <SyncPlan sync={sync} steps={false} rows={2} width={width} /> : null}
          </>
        ) : null}
      </Box>
    </Frame>
  );
}
