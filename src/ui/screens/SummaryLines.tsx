// The counts per kind of the validated files, as the preview screen shows them while they are read.
import { Text } from 'ink';
import { useWizard } from '../context.js';
import { formatCount as n } from '../../numbers.js';
import { theme } from '../theme.js';
import { lineProblemsHint } from './LineProblems.js';

export function SummaryLines() {
  const { state } = useWizard();
  const v = state.validation;
  if (v.status === 'running' || v.status === 'idle')
    return <Text {...theme.muted}>reading and validating… {n(state.preview.seen)} records so far</Text>;
  if (v.status === 'failed') {
    return (
      <Text {...theme.error} wrap="wrap">
        the files could not be read to the end ({n(state.preview.seen)} records before the problem): {v.error}
      </Text>
    );
  }
  const s = v.value.summary;
  const hint = lineProblemsHint(v.value.lineProblems.length);
  const list = (counts: Record<string, number>) =>
    Object.entries(counts)
      .filter(([, count]) => count > 0)
      .map(([k, count]) => `${k === 'external_scrypt' ? 'scrypt' : k} ${n(count)}`)
      .join(' ') || 'none';
  return (
    <>
      <Text wrap="wrap">
        records {n(s.records)} · <Text {...theme.ok}>valid {n(s.valid)}</Text> ·{' '}
        <Text {...(s.invalid ? theme.error : {})}>invalid {n(s.invalid)}</Text> · errors {n(s.errors)} · warnings {n(s.warnings)}
      </Text>
      <Text wrap="wrap">
        passwords {list(s.passwordUsers)} · third-party {list(s.thirdPartyUsers)} · phone sign-in {n(s.phoneSignInUsers)}
      </Text>
      <Text wrap="wrap">
        TOTP devices {n(s.totpDevices)} · email factors {n(s.emailFactors)} · SMS factors {n(s.smsFactors)}
      </Text>
      {s.unusableHashes ? (
        <Text {...(s.unusableHashes.policy === 'skip' ? theme.error : {})} wrap="wrap">
          hash the core cannot take: {n(s.unusableHashes.users)} ({list(s.unusableHashes.byAlgorithm)}):{' '}
          {s.unusableHashes.policy === 'skip'
            ? 'left out; the plan screen\'s "unusable hashes" imports the rest of them'
            : s.unusableHashes.policy === 'migrate-at-sign-in'
              ? 'imported with an unusable password; the hash waits in the core for first sign-in'
              : 'imported without a password'}
          ; listed for migration at first sign-in
        </Text>
      ) : null}
      {s.fields && s.fields.dropped.length > 0 ? (
        <Text {...theme.muted} wrap="wrap">
          not carried: {s.fields.dropped.map((d) => `${d.field} (${n(d.records)})`).join(', ')} (validate lists why)
        </Text>
      ) : null}
      {hint ? (
        <Text {...theme.error} wrap="wrap">
          {hint}
        </Text>
      ) : null}
    </>
  );
}
