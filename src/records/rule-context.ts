// The record being checked and the problems found on it: every rule reports through `flag`.
import type { Problem, RecordOrigin, Severity } from './types.js';

export interface RuleContext {
  origin: RecordOrigin;
  sourceId?: string;
  problems: Problem[];
}

export function flag(ctx: RuleContext, severity: Severity, rule: string, field: string | undefined, message: string): void {
  const problem: Problem = { severity, rule, origin: ctx.origin, message };
  if (ctx.sourceId !== undefined) problem.sourceId = ctx.sourceId;
  if (field !== undefined) problem.field = field;
  ctx.problems.push(problem);
}

/** A non-empty trimmed string, or undefined (absent, null or blank). Numbers are accepted as their text. */
export function text(value: unknown): string | undefined {
  if (typeof value === 'string') {
    const trimmed = value.trim();
    return trimmed === '' ? undefined : trimmed;
  }
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}
