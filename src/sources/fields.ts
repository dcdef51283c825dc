// Typed reads of fields from parsed JSON: a value of the wrong type is dropped and named in a problem
// (`totp[0].period must be a number`), so one bad field never hides the rest of the record.
import type { Problem, RecordOrigin, Severity } from '../records/types.js';

export interface FieldContext {
  origin: RecordOrigin;
  sourceId?: string;
  problems: Problem[];
}

export function addProblem(
  ctx: FieldContext,
  field: string | undefined,
  message: string,
  rule = 'source.type',
  severity: Severity = 'error',
): void {
  const p: Problem = { severity, rule, origin: ctx.origin, message };
  if (ctx.sourceId !== undefined) p.sourceId = ctx.sourceId;
  if (field !== undefined) p.field = field;
  ctx.problems.push(p);
}

type Obj = Record<string, unknown>;

function read<T>(
  ctx: FieldContext,
  obj: Obj,
  key: string,
  path: string,
  test: (v: unknown) => v is T,
  kind: string,
  required: boolean,
): T | undefined {
  const value = obj[key];
  if (value === undefined || value === null) {
    if (required) addProblem(ctx, path, `${path} is required`, 'source.required');
    return undefined;
  }
  if (!test(value)) {
    addProblem(ctx, path, `${path} must be ${kind}, not ${describe(value)}`);
    return undefined;
  }
  return value;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isArray = (v: unknown): v is unknown[] => Array.isArray(v);
export const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The source id every record starts with: required and non-empty. Sets `ctx.sourceId` so later problems name
 * the record; `undefined` when there is none (the problem saying why is then `ctx.problems[0]`).
 */
export function sourceIdOf(ctx: FieldContext, o: Obj, key: string, emptyMessage = `${key} is empty`): string | undefined {
  const id = str(ctx, o, key, key, true);
  if (id === '') addProblem(ctx, key, emptyMessage, 'source.required');
  if (id === undefined || id === '') return undefined;
  ctx.sourceId = id;
  return id;
}

export function str(ctx: FieldContext, obj: Obj, key: string, path = key, required = false): string | undefined {
  return read(ctx, obj, key, path, isString, 'a string', required);
}
export function bool(ctx: FieldContext, obj: Obj, key: string, path = key): boolean | undefined {
  return read(ctx, obj, key, path, isBoolean, 'true or false', false);
}
export function num(ctx: FieldContext, obj: Obj, key: string, path = key): number | undefined {
  return read(ctx, obj, key, path, isNumber, 'a number', false);
}
export function arr(ctx: FieldContext, obj: Obj, key: string, path = key): unknown[] | undefined {
  return read(ctx, obj, key, path, isArray, 'an array', false);
}
export function obj(ctx: FieldContext, o: Obj, key: string, path = key): Obj | undefined {
  return read(ctx, o, key, path, isObject, 'an object', false);
}
export function oneOf<T extends string>(ctx: FieldContext, o: Obj, key: string, path: string, allowed: readonly T[]): T | undefined {
  const value = str(ctx, o, key, path);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    addProblem(ctx, path, `${path} must be one of ${allowed.join(', ')}, not "${value.slice(0, 40)}"`);
    return undefined;
  }
  return value as T;
}

/** Warn about keys the format does not know (usually a typo, e.g. `thirdparty`). */
export function unknownKeys(ctx: FieldContext, o: Obj, known: ReadonlySet<string>, prefix = ''): void {
  for (const key of Object.keys(o)) {
    if (!known.has(key))
      addProblem(ctx, prefix + key, `unknown field ${prefix}${key} is ignored; check its spelling`, 'source.unknown-field', 'warning');
  }
}

/** The kind of a value, never the value itself (it could be a secret or a hash). */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'boolean') return 'true or false';
  return `a ${typeof value}`;
}
