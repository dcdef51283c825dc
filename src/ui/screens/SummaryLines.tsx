// The counts per kind of the validated files, as the preview screen shows them while they are read. The lines are
// data first (summaryLines), so the screen can measure them and fold them to their first line on a short terminal.
import { Text } from 'ink';
import { useWizard } from '../context.js';
import { formatCount as n } from '../../numbers.js';
import { theme } from '../theme.js';
import { lineProblemsHint } from './LineProblems.js';
import type { WizardState } from '../state/types.js';

export interface SummaryLine {
  text: string;
  style?: Record<string, unknown>;
  /** Kept when the summary folds (the counts, and what stops records from being read). */
  keep?: boolean;
}

export function summaryLines(state: WizardState): SummaryLine[] {
  const v = state.validation;
  if (v.status === 'running' || v.status === 'idle')
    return [{ text: `reading and validating… ${n(state.preview.seen)} records so far`, style: theme.muted, keep: true }];
  if (v.status === 'failed') {
    return [
      {
        text: `the files could not be read to the end (${n(state.preview.seen)} records before the problem): ${v.error}`,
        style: theme.error,
        keep: true,
      },
    ];
  }
  const s = v.value.summary;
  const hint = lineProblemsHint(v.value.lineProblems.length);
  const list = (counts: Record<string, number>) =>
    Object.entries(counts)
      .filter(([, count]) => count > 0)
      .map(([k, count]) => `${k === 'external_scrypt' ? 'scrypt' : k} ${n(count)}`)
      .join(' ') || 'none';
  const lines: SummaryLine[] = [
    {
      text: `records ${n(s.records)} · valid ${n(s.valid)} · invalid ${n(s.invalid)} · errors ${n(s.errors)} · warnings ${n(s.warnings)}`,
      style: s.invalid ? theme.error : {},
      keep: true,
    },
    { text: `passwords ${list(s.passwordUsers)} · third-party ${list(s.thirdPartyUsers)} · phone sign-in ${n(s.phoneSignInUsers)}` },
    { text: `TOTP devices ${n(s.totpDevices)} · email factors ${n(s.emailFactors)} · SMS factors ${n(s.smsFactors)}` },
  ];
  if (s.unusableHashes) {
    const u = s.unusableHashes;
    lines.push({
      text:
        `hash the core cannot take: ${n(u.users)} (${list(u.byAlgorithm)}): ` +
        (u.policy === 'skip'
          ? 'left out; the plan screen\'s "unusable hashes" imports the rest of them'
          : u.policy === 'migrate-at-sign-in'
            ? 'imported with an unusable password; the hash waits in the core for first sign-in'
            : 'imported without a password') +
        '; listed for migration at first sign-in',
      style: u.policy === 'skip' ? theme.error : {},
    });
  }
  if (s.fields && s.fields.dropped.length > 0) {
    lines.push({ text: `not carried: ${s.fields.dropped.map((d) => `${d.field} (${n(d.records)})`).join(', ')}`, style: theme.muted });
  }
  if (hint) lines.push({ text: hint, style: theme.error, keep: true });
  return lines;
}

export function SummaryLines({ folded = false }: { folded?: boolean }) {
  const { state } = useWizard();
  const lines = summaryLines(state).filter((l) => !folded || l.keep);
  return (
    <>
      {lines.map((l, i) => (
        <Text key={i} {...(l.style ?? {})} wrap="wrap">
          {l.text}
        </Text>
      ))}
    </>
  );
}
