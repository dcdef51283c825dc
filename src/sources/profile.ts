// Profile fields of the vendor exports -> the canonical `metadata` and `roles`: one place that decides how a
// source value is kept (strings as they are, JSON text parsed, empty values left out), so every reader maps alike.
import type { CanonicalRole, CanonicalUser } from '../records/types.js';
import { addProblem, describe, isObject, type FieldContext } from './fields.js';

/** Keep `value` under `key` in the record's metadata when it says something (not undefined, null or ''). */
export function keepMeta(record: CanonicalUser, key: string, value: unknown): void {
  if (value === undefined || value === null || value === '') return;
  // In place: the record is the reader's own object (a copy per key cost the Firebase reader 5% of validation).
  (record.metadata ??= {})[key] = value;
}

/** A string field kept as it is; another type is named in a warning and left out. */
export function keepMetaString(ctx: FieldContext, record: CanonicalUser, o: Record<string, unknown>, key: string, metaKey = key): void {
  const value = o[key];
  if (value === undefined || value === null) return;
  if (typeof value !== 'string') {
    addProblem(ctx, key, `${key} must be a string, not ${describe(value)}; it is left out of the metadata`, 'source.type', 'warning');
    return;
  }
  keepMeta(record, metaKey, value);
}

/** A JSON object field (or JSON text holding one, as Firebase writes `customAttributes`) kept under `metaKey`. */
export function keepMetaObject(ctx: FieldContext, record: CanonicalUser, o: Record<string, unknown>, key: string, metaKey = key): void {
  let value = o[key];
  if (value === undefined || value === null || value === '') return;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      addProblem(ctx, key, `${key} is not valid JSON; it is left out of the metadata`, 'source.json-field', 'warning');
      return;
    }
  }
  if (!isObject(value)) {
    addProblem(ctx, key, `${key} must be a JSON object, not ${describe(value)}; it is left out of the metadata`, 'source.type', 'warning');
    return;
  }
  if (Object.keys(value).length > 0) keepMeta(record, metaKey, value);
}

/** Role names from a list of strings or `{ name }` objects; anything else is named and skipped. */
export function readRoleNames(ctx: FieldContext, list: unknown, path: string): CanonicalRole[] {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) {
    addProblem(ctx, path, `${path} must be a list of role names, not ${describe(list)}; no role is carried`, 'source.type', 'warning');
    return [];
  }
  const out: CanonicalRole[] = [];
  list.forEach((item, i) => {
    const name = typeof item === 'string' ? item : isObject(item) && typeof item['name'] === 'string' ? item['name'] : undefined;
    if (name === undefined || name.trim() === '')
      addProblem(ctx, `${path}[${i}]`, `${path}[${i}] is not a role name; it is not carried`, 'source.type', 'warning');
    else if (!out.includes(name)) out.push(name);
  });
  return out;
}

/** Add roles to the record, once each. */
export function addRoles(record: CanonicalUser, roles: CanonicalRole[]): void {
  if (roles.length === 0) return;
  const have = new Set((record.roles ?? []).map((r) => (typeof r === 'string' ? r : r.role)));
  const fresh = roles.filter((r) => !have.has(typeof r === 'string' ? r : r.role));
  if (fresh.length > 0) record.roles = [...(record.roles ?? []), ...fresh];
}
