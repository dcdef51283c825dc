// Users a run or sync leaves out (skipped: disabled or banned in the source, an invalid record, a hash the core
// cannot take, a gone user not removed...) named with their reason: the first few kept for the shells' summary,
// every one counted by reason. The report names them all (engine/report.ts). Never a hash or a secret.
// Invariant: never a hash or a secret; every skipped user is counted under one reason.
import type { UserResult } from '../engine/events.js';
import type { CanonicalUser } from '../records/types.js';

/** A user left out, as the summary names it. */
export interface SkippedUser {
  id: string;
  email?: string;
  /** The report's status: DISABLED, SIGN_IN_MIGRATION, a validation rule, NOT_CREATED_BY_MIGRATION... */
  status: string;
  /** Why, in a sentence (the report's message). */
  reason: string;
}

/** Users named in a summary; the rest are counted (and in the report). */
export const SKIPPED_SHOWN = 10;

export interface SkippedSummary {
  first: SkippedUser[];
  /** Users left out per status. */
  byStatus: Record<string, number>;
}

/** Collects the skipped users of a run as their results come in. */
export function skippedCollector(): { add(result: UserResult, record: CanonicalUser): void; summary(): SkippedSummary } {
  const first: SkippedUser[] = [];
  const byStatus: Record<string, number> = {};
  return {
    add(result, record) {
      if (result.outcome !== 'skipped') return;
      const status = result.status ?? 'skipped';
      byStatus[status] = (byStatus[status] ?? 0) + 1;
      if (first.length < SKIPPED_SHOWN)
        first.push({
          id: result.id,
          ...(record.email !== undefined ? { email: record.email } : {}),
          status,
          reason: result.message ?? status,
        });
    },
    summary: () => ({ first, byStatus }),
  };
}

/** "disabled in the source", "invalid", ... : a status in words, for the per-reason counts. */
export function statusWords(status: string): string {
  switch (status) {
    case 'DISABLED':
      return 'disabled or blocked in the source';
    case 'DISABLED_STILL_ACTIVE':
      return 'disabled in the source but still active in the core';
    case 'SIGN_IN_MIGRATION':
      return 'waiting for migration at first sign-in';
    case 'NOT_CREATED_BY_MIGRATION':
      return 'gone from the export, not created by the migration';
    case 'CHANGED_SINCE':
      return 'gone from the export, changed since';
    default:
      return status;
  }
}

/** The summary's lines: the count per reason, the first users each with why, where the rest are. */
export function skippedLines(total: number, s: SkippedSummary, report?: string): string[] {
  if (total === 0) return [];
  const reasons = Object.entries(s.byStatus)
    .sort((a, b) => b[1] - a[1])
    .map(([status, n]) => `${n} ${statusWords(status)}`)
    .join(', ');
  const lines = [
    `not migrated: ${total} user${total === 1 ? '' : 's'} skipped (${reasons})${report ? `; all in the report ${report}` : ''}`,
  ];
  for (const u of s.first) lines.push(`  ${u.id}${u.email ? ` (${u.email})` : ''}: ${u.reason}`);
  if (total > s.first.length) lines.push(`  ... and ${total - s.first.length} more (the report names each)`);
  return lines;
}
