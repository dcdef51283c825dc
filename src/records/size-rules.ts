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

/** Each limit's path split once (this runs on every record of every pass). */
const PARSED = FIELD_LIMITS.map((limit) => ({
  limit,
  parts: limit.path.split('.').map((p): PathPart => (p.endsWith('[]') ? { name: p.slice(0, -2), list: true } : { name: p, list: false })),
}));

/** The field's name as messages give it, e.g. `thirdParty[1].userId`: built only for a value over its limit. */
function fieldName(parts: PathPart[], indexes: number[]): string {
  let k = 0;
  return parts.map((p) => (p.list ? `${p.name}[${indexes[k++]}]` : p.name)).join('.');
}

/** Calls `over` for every string at `parts` longer than `max` (lists walked), with the list indexes on the way. */
function walk(input: unknown, parts: PathPart[], at: number, max: number, indexes: number[], over: (value: string) => void): void {
  if (at === parts.length) {
    if (typeof input === 'string' && input.length > max) over(input);
    return;
  }
  if (typeof input !== 'object' || input === null) return;
  const part = parts[at]!;
  const value = (input as Record<string, unknown>)[part.name];
  if (!part.list) return walk(value, parts, at + 1, max, indexes, over);
  if (!Array.isArray(value)) return;
  for (let i = 0; i < value.length; i++) {
    indexes.push(i);
    walk(value[i], parts, at + 1, max, indexes, over);
    indexes.pop();
  }
}

/** Flags every field over its limit; true when the record has one (its other rules are then not run). */
export function checkSizes(ctx: RuleContext, input: Record<string, unknown>): boolean {
  let over = false;
  const indexes: number[] = [];
  for (const { limit, parts } of PARSED) {
    walk(input, parts, 0, limit.max, indexes, (value) => {
      over = true;
      const field = fieldName(parts, indexes);
      flag(
        ctx,
        'error',
        'field.too-long',
        field,
        `${field} is ${value.length} characters; at most ${limit.max} can be stored (${limit.why}): fix the record`,
      );
    });
  }
  const metadata = input.metadata;
  if (metadata !== undefined && metadata !== null) {
    const bytes = Buffer.byteLength(JSON.stringify(metadata) ?? '');
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
