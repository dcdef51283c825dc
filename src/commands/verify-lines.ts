// The headless shell of the verify operation: the first users not ok as lines, a progress line about once a
// second (redrawn in place on a terminal), the credentials refused, and the totals.
import { terminalLines } from '../engine/render/plain.js';
import type { VerifyEvent } from '../operations/verify.js';
import { commonLines } from './run-lines.js';
import { formatCount as n } from '../numbers.js';

/** Users not ok printed one per line before they are only counted. */
const MAX_LINES = 50;

export function createVerifyLines(stderr: NodeJS.WritableStream, o: { json: boolean; intervalMs?: number }): (e: VerifyEvent) => void {
  const err = (line: string) => stderr.write(line + '\n');
  const tty = (stderr as NodeJS.WriteStream).isTTY === true;
  const sink = tty ? terminalLines(stderr) : { write: err, progress: err };
  const interval = o.intervalMs ?? 1000;
  let total = 0;
  let started = Date.now();
  let lastProgress = Date.now();
  let listed = 0;
  return (e) => {
    switch (e.type) {
      case 'verify-started':
        total = e.total;
        started = e.at;
        lastProgress = e.at;
        sink.write(
          e.journal
            ? `journal ${e.journal}`
            : 'no journal of this migration found: users are found by their account info, join dates are not checked',
        );
        if (e.journalNote) sink.write(`warning: ${e.journalNote}`);
        return;
      case 'verify-user': {
        const r = e.result;
        if (r.outcome !== 'ok' && !o.json && listed < MAX_LINES) {
          listed += 1;
          if (r.outcome === 'skipped')
            sink.write(`not migrated (the run leaves it out): ${r.id}${r.email ? ` (${r.email})` : ''}: ${r.differences.join('; ')}`);
          else
            sink.write(
              `${r.outcome}: ${r.id}: ${r.differences.join('; ')}${r.waiting ? `; waiting for first sign-in (${r.waiting})` : ''}`,
            );
        } else if (r.waiting !== undefined && !o.json && listed < MAX_LINES) {
          listed += 1;
          sink.write(`ok: ${r.id}: waiting for first sign-in (${r.waiting})`);
        }
        if (e.at - lastProgress >= interval) {
          lastProgress = e.at;
          const c = e.counts;
          const rate = c.total / Math.max(0.001, (e.at - started) / 1000);
          sink.progress(
            `verified ${n(c.total)}/${n(total)} users (${total > 0 ? Math.floor((c.total / total) * 100) : 100}%), ${n(Math.round(rate))}/s, missing ${n(c.missing)}, mismatch ${n(c.mismatch)}`,
          );
        }
        return;
      }
      case 'credential':
        if (o.json || e.check.ok) return;
        sink.write(
          e.check.status === 'NOT_IN_SOURCE'
            ? `credentials line ${e.line}: ${e.check.email} is not a user of the source files (not tried)`
            : e.check.status === 'NOT_MIGRATED'
              ? `credentials line ${e.line}: ${e.check.email} did not sign in: not migrated: ${e.check.reason ?? 'the run leaves it out'}`
              : e.check.status === 'WRONG_LEGACY_PASSWORD' || e.check.status === 'LEGACY_UNCHECKABLE'
                ? `credentials line ${e.line}: ${e.check.email} is waiting for first sign-in and the password ${e.check.status === 'WRONG_LEGACY_PASSWORD' ? 'does not match its legacy hash' : 'cannot be checked here (the app has what its hash needs)'}`
                : `credentials line ${e.line}: ${e.check.email} did not sign in (${e.check.status})`,
        );
        return;
      case 'verify-finished': {
        const c = e.counts;
        sink.write(
          `verified ${n(c.total)} users in ${n(e.durationMs)} ms: ok ${n(c.ok)}, missing ${n(c.missing)}, mismatch ${n(c.mismatch)}, skipped ${n(c.skipped)}` +
            (c.skipped > 0 ? ' (left out by the run: not a failure)' : '') +
            (e.waiting ? `; waiting for first sign-in ${waitingText(e.waiting)}` : '') +
            (e.credentials.checked > 0 ? `; credentials ${e.credentials.ok}/${e.credentials.checked} signed in` : '') +
            (e.credentials.notMigrated ? ` (${e.credentials.notMigrated} not migrated: left out by the run)` : '') +
            (e.totpCodesChecked ? '; TOTP codes checked' : ''),
        );
        return;
      }
      default:
        // The verify validates quietly, as it always did: its sources were validated by the run it checks.
        if (e.type === 'sandbox' || e.type === 'refused') for (const line of commonLines(e)) sink.write(line);
    }
  };
}

/** `3 (md5 2, pbkdf2-sha256 1)`. */
function waitingText(waiting: Record<string, number>): string {
  const all = Object.values(waiting).reduce((a, b) => a + b, 0);
  const per = Object.entries(waiting)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([a, k]) => `${a} ${n(k)}`)
    .join(', ');
  return `${n(all)} (${per})`;
}
