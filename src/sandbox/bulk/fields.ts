// The reference core's JsonValidatorUtils for the bulk-import schema: a field is read only when it has the
// expected JSON type (a string must be non-empty, an array's elements must all match), otherwise the error
// `<key> should be of type <type><suffix>` (or `<key> is required<suffix>`) is collected and the field is null.

export type FieldType = 'string' | 'integer' | 'boolean' | 'object' | 'array of string' | 'array of object';
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function hasType(input: Json, key: string, type: FieldType): boolean {
  if (!(key in input)) return false;
  const v = input[key];
  switch (type) {
    case 'string':
      return typeof v === 'string' && v !== '';
    case 'integer':
      return typeof v === 'number' && Number.isFinite(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'object':
      return isObject(v);
    case 'array of string':
      return Array.isArray(v) && v.every((e) => typeof e === 'string' && e !== '');
    case 'array of object':
      return Array.isArray(v) && v.every(isObject);
  }
}

/** parseAndValidateFieldType: the value when it has the type, else undefined (and an error when present or required). */
export function field(input: Json, key: string, type: 'string', required: boolean, errors: string[], suffix: string): string | undefined;
export function field(input: Json, key: string, type: 'integer', required: boolean, errors: string[], suffix: string): number | undefined;
export function field(input: Json, key: string, type: 'boolean', required: boolean, errors: string[], suffix: string): boolean | undefined;
export function field(input: Json, key: string, type: 'object', required: boolean, errors: string[], suffix: string): Json | undefined;
export function field(
  input: Json,
  key: string,
  type: 'array of string',
  required: boolean,
  errors: string[],
  suffix: string,
): string[] | undefined;
export function field(
  input: Json,
  key: string,
  type: 'array of object',
  required: boolean,
  errors: string[],
  suffix: string,
): Json[] | undefined;
export function field(input: Json, key: string, type: FieldType, required: boolean, errors: string[], suffix: string): unknown {
  if (key in input) {
    if (hasType(input, key, type)) {
      const v = input[key];
      // Gson's getAsNumber().intValue()/longValue(): fractions are truncated.
      return type === 'integer' ? Math.trunc(v as number) : v;
    }
    errors.push(`${key} should be of type ${type}${suffix}`);
  } else if (required) {
    errors.push(`${key} is required${suffix}`);
  }
  return undefined;
}

/** Java's List.toString: `[a, b]` (the job's message for a user that no longer validates). */
export const javaList = (items: string[]): string => `[${items.join(', ')}]`;
