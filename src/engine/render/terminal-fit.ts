// Lines redrawn in place on a terminal fit its width: a line wider than the terminal wraps, and the redraw then
// clears only its last row, leaving a fragment behind at every update. The bulk-import job's line has shorter
// forms; any other line is cut with an ellipsis.
// Invariant: a line redrawn in place is never wider than the terminal.
import type { RunEvent } from '../events.js';
import { describeStagedProgress, shortDuration } from './job-line.js';

type Progress = Extract<RunEvent, { type: 'staged-progress' }>;

/** The width to fit: the terminal's columns, else 80 (a terminal that does not say). */
export function widthOf(columns: number | undefined): number {
  return columns !== undefined && Number.isFinite(columns) && columns > 0 ? columns : 80;
}

/**
 * `line` cut to `width - 1` characters (the last column left free: a line ending there makes some terminals wrap).
 * Characters are counted as code points: the lines are ASCII but for the odd name.
 */
export function fitLine(line: string, width: number): string {
  const room = Math.max(1, width - 1);
  const chars = [...line];
  return chars.length <= room ? line : `${chars.slice(0, room - 1).join('')}…`;
}

const n = (x: number): string => Math.round(x).toLocaleString('en-US');

/** The job's line, the longest of its forms that fits `width`. */
export function fitStagedProgress(e: Progress, width: number): string {
  const state = e.running
    ? 'running'
    : e.nextRunInMs === undefined
      ? 'idle'
      : e.nextRunInMs === 0
        ? 'due now'
        : `next run ${e.nextRunExact ? 'in' : 'within'} ${shortDuration(e.nextRunInMs)}`;
  const rate = e.rate !== undefined ? `, ${n(e.rate)}/s` : '';
  const eta = e.etaMs !== undefined && e.etaMs < 48 * 3_600_000 ? `, ETA ${shortDuration(e.etaMs)}` : '';
  const forms = [
    describeStagedProgress(e),
    `bulk-import job: ${state}; ${n(e.staged)} staged, ${n(e.processing)} processing, ${n(e.failed)} failed; ${n(e.imported)}/${n(e.of)} taken${rate}${eta}`,
    `job: ${state}; ${n(e.imported)}/${n(e.of)} taken, ${n(e.staged + e.processing)} waiting${eta}`,
    `job ${n(e.imported)}/${n(e.of)}${eta}`,
  ];
  const room = Math.max(1, width - 1);
  return fitLine(forms.find((f) => [...f].length <= room) ?? forms.at(-1)!, width);
}
