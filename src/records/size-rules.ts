// Size limits of every field the core stores, checked before any other rule: a value over its limit could never
// be stored (the reference core's columns and its bulk-import checks), and a 30 MiB field must not reach the
// regular expressions of the other rules. Limits are in characters (docs/validation.md lists them).
import { flag, type RuleContext } from './rule-context.js';

export interface FieldLimit {
  /** Dotted path; `[]` stands for every element of a list. */
  path: string;
  max: number;
  why: string;
}

export const FIELD_LIMITS: FieldLimit[] = [
  { path: 'id', max: 1024, why: 'a source id this long is surely not an id' },
  { path: 'email', max: 256, why: 'the core\'s email columns (bulk import: "Max length is 256")' },
  { path: 'password.hash', max: 256, why: "the core's password hash column (bulk import: at most 256)" },
  { path: 'thirdParty[].providerId', max: 28, why: "the core's third_party_id column (VARCHAR(28))" },
  { path: 'thirdParty[].userId', max: 256, why: "the core's third_party_user_id column" },
  { path: 'thirdParty[].email', max: 256, why: "the core's email columns" },
  { path: 'phoneNumber', max: 64, why: 'no phone number, however written, is longer' },
  { path: 'totp[].secret', max: 256, why: "the core's TOTP secret column (bulk import: at most 256)" },
  { path: 'totp[].deviceName', max: 256, why: "the core's TOTP device name column" },
  { path: 'otpFactors.email', max: 256, why: "the core's email columns" },
  { path: 'otpFactors.phoneNumber', max: 64, why: 'no phone number, however written, is longer' },
];

/** The core refuses request bodies over 1 MiB; user metadata goes in one request with a few ids around it. */
export const MAX_METADATA_BYTES = 512 * 1024;

interface PathPart {
  name: string;
  list: boolean;
}

interface ParsedLimit {
  limit: FieldLimit;
  parts: PathPart[];
}

/** Each limit's path split once (this runs on every record of every pass). */
const PARSED: ParsedLimit[] = FIELD_LIMITS.map((limit) => ({
  limit,
  parts: limit.path.split('.').map((p): PathPart => (p.endsWith('[]') ? { name: p.slice(0, -2), list: true } : { name: p, list: false })),
}));

/** The field's name as messages give it, e.g. `thirdParty[1].userId`: built only for a value over its limit. */
function fieldName(parts: PathPart[], indexes: number[]): string {
  let k = 0;
  return parts.map((p) => (p.list ? `${p.name}[${indexes[k++]}]` : p.name)).join('.');
}

/**
 * Flags every string at `parts` longer than `limit.max` (lists walked, their indexes kept for the field's name).
 * No closure per limit and record: this runs on every record of every pass.
 */
function walk(ctx: RuleContext, input: unknown, item: ParsedLimit, at: number, indexes: number[]): boolean {
  const { parts, limit } = item;
  if (at === parts.length) {
    if (typeof input !== 'string' || input.length <= limit.max) return false;
    const field = fieldName(parts, indexes);
    flag(
      ctx,
      'error',
      'field.too-long',
      field,
      `${field} is ${input.length} characters; at most ${limit.max} can be stored (${limit.why}): fix the record`,
    );
    return true;
  }
  if (typeof input !== 'object' || input === null) return false;
  const part = parts[at]!;
  const value = (input as Record<string, unknown>)[part.name];
  if (value === undefined) return false;
  if (!part.list) return walk(ctx, value, item, at + 1, indexes);
  if (!Array.isArray(value)) return false;
  let over = false;
  for (let i = 0; i < value.length; i++) {
    indexes.push(i);
    if (walk(ctx, value[i], item, at + 1, indexes)) over = true;
    indexes.pop();
  }
  return over;
}

/** Flags every field over its limit; true when the record has one (its other rules are then not run). */
export function checkSizes(ctx: RuleContext, input: Record<string, unknown>): boolean {
  let over = false;
  const indexes: number[] = [];
  for (const item of PARSED) if (walk(ctx, input, item, 0, indexes)) over = true;
  const metadata = input.metadata;
  if (metadata !== undefined && metadata !== null) {
    // Most metadata is far below the limit: a cheap upper bound spares serialising it on every record and pass.
    const bytes = jsonBytesAtMost(metadata, MAX_METADATA_BYTES) ? 0 : Buffer.byteLength(JSON.stringify(metadata) ?? '');
    if (bytes > MAX_METADATA_BYTES) {
      over = true;
      flag(
        ctx,
        'error',
        'field.too-long',
        'metadata',
        `metadata is ${bytes} bytes as JSON; at most ${MAX_METADATA_BYTES} fit in one request (the core refuses bodies over 1 MiB): move the bulk elsewhere`,
      );
    }
  }
  return over;
}

/**
 * Whether `value` as JSON is surely at most `budget` bytes of UTF-8, from an upper bound: every UTF-16 unit of a
 * string or key counted as 6 bytes (a `\uXXXX` escape; unescaped, a unit is at most 3 bytes), 24 for a number.
 * False means "maybe more", and the caller measures the real text.
 */
function jsonBytesAtMost(value: unknown, budget: number): boolean {
  const stack: unknown[] = [value];
  let total = 0;
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') total += v.length * 6 + 2;
    else if (v === null || typeof v !== 'object') total += 24;
    else if (Array.isArray(v)) {
      total += 2 + v.length;
      for (const item of v) stack.push(item);
    } else {
      total += 2;
      for (const k in v) {
        total += k.length * 6 + 4;
        stack.push((v as Record<string, unknown>)[k]);
      }
    }
    if (total > budget) return false;
  }
  return true;
}
