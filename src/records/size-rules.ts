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

function valuesAt(input: unknown, parts: string[], prefix: string, out: Array<[string, unknown]>): void {
  if (parts.length === 0) {
    out.push([prefix, input]);
    return;
  }
  if (typeof input !== 'object' || input === null) return;
  const [head, ...rest] = parts;
  if (head!.endsWith('[]')) {
    const name = head!.slice(0, -2);
    const list = (input as Record<string, unknown>)[name];
    if (!Array.isArray(list)) return;
    list.forEach((item, i) => valuesAt(item, rest, `${prefix}${prefix ? '.' : ''}${name}[${i}]`, out));
    return;
  }
  valuesAt((input as Record<string, unknown>)[head!], rest, `${prefix}${prefix ? '.' : ''}${head}`, out);
}

/** Flags every field over its limit; true when the record has one (its other rules are then not run). */
export function checkSizes(ctx: RuleContext, input: Record<string, unknown>): boolean {
  let over = false;
  for (const limit of FIELD_LIMITS) {
    const found: Array<[string, unknown]> = [];
    valuesAt(input, limit.path.split('.'), '', found);
    for (const [field, value] of found) {
      if (typeof value !== 'string' || value.length <= limit.max) continue;
      over = true;
      flag(
        ctx,
        'error',
        'field.too-long',
        field,
        `${field} is ${value.length} characters; at most ${limit.max} can be stored (${limit.why}): fix the record`,
      );
    }
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
