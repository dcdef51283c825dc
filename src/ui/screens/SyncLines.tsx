// The sync on the wizard's screens (operations/sync.ts): on the plan screen the offer (this profile ran into this
// core before) or, once chosen, the delta per kind of change with the first users of each (ids only: no hash,
// secret or code is ever in a preview) and the changes planned; a line on the run screen; what changed on results.
import { Text } from 'ink';
import { AUTHORITY } from '../../operations/sync.js';
import { linesThatFit } from '../fit.js';
import type { SyncState } from '../state/sync.js';
import { theme } from '../theme.js';

const n = (x: number): string => x.toLocaleString('en-US');

/** The plan screen's sync lines (all of them; the screen shows what fits). */
export function syncPlanLines(s: SyncState, steps: boolean): { lines: string[] } {
  if (!s.offer) return { lines: [] };
  if (!s.on) {
    const how = s.offer.resume
      ? 'a sync of it stopped'
      : s.offer.ended === 'finished'
        ? 'it finished'
        : `it ${s.offer.ended ?? 'did not end'}`;
    return {
      lines: [
        `this profile ran into this core before (${how}): s syncs instead, bringing the core up to this export with only the changes`,
      ],
    };
  }
  const head = `sync (only what changed) · remove missing: ${s.removeMissing ? 'yes (users the migration created, unchanged since)' : 'no (listed, left in the core)'}`;
  if (s.preview.status === 'running' || s.preview.status === 'idle')
    return { lines: [head, 'comparing the export with the earlier run (no request to the core)…'] };
  if (s.preview.status === 'failed') return { lines: [head, `the sync cannot start: ${s.preview.error}`] };
  const p = s.preview.value;
  const changes =
    p.changeLines.length > 0
      ? ['changes planned:', ...p.changeLines]
      : ['no change to make: the core matches this export (a sync sends nothing)'];
  // The counts first (what a small terminal must show), then the base, the first users' steps and the warning.
  const note = p.note ? [`note: ${p.note}`] : [];
  const base = `earlier run: ${p.base}${p.resume ? ` (carrying on from the sync that stopped: ${p.resume})` : ''}`;
  // With `d`, the first changed users' steps come first (d again brings the delta back first).
  if (steps)
    return {
      lines: [
        head,
        "the first changed users' steps (d again: the delta first):",
        ...p.sample,
        ...changes,
        ...p.deltaLines,
        AUTHORITY,
        base,
      ],
    };
  return { lines: [head, ...p.deltaLines, ...changes, ...note, AUTHORITY, base] };
}

export function SyncPlan({ sync, steps, rows, width }: { sync: SyncState; steps: boolean; rows: number; width: number }) {
  const shown = linesThatFit(syncPlanLines(sync, steps).lines, rows, width);
  return (
    <>
      {shown.map((line, i) => (
        <Text key={i} wrap="wrap" {...(i === 0 && sync.on ? theme.title : line.startsWith('  ') ? {} : theme.muted)}>
          {line}
        </Text>
      ))}
    </>
  );
}

/** The results screen's lines after a sync. */
export function syncResultLines(s: SyncState): string[] {
  if (!s.on || !s.applied) return [];
  if (s.nothingChanged) return ['sync: nothing changed since the earlier run: no request was sent, nothing was written'];
  const made = Object.entries(s.applied).filter(([, c]) => c > 0);
  return [
    `sync: changes made (each read back from the core)${made.length === 0 ? ': none' : ''}`,
    ...made.map(([kind, c]) => `  ${kind}: ${n(c)}`),
  ];
}
