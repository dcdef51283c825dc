// A tiny JSON Schema checker for the subset the canonical schema uses (type, properties, required,
// additionalProperties: false, items, enum, minLength, minimum, exclusiveMinimum, local $ref).
export interface Schema {
  $schema?: string;
  $ref?: string;
  $defs?: Record<string, Schema>;
  type?: 'object' | 'array' | 'string' | 'boolean' | 'number' | 'integer';
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: Schema;
  enum?: unknown[];
  minLength?: number;
  minimum?: number;
  exclusiveMinimum?: number;
}

export function checkSchema(root: Schema, value: unknown): string[] {
  const errors: string[] = [];
  check(root, root, value, '', errors);
  return errors;
}

function typeOk(type: NonNullable<Schema['type']>, v: unknown): boolean {
  switch (type) {
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'array':
      return Array.isArray(v);
    case 'integer':
      return Number.isInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    default:
      return typeof v === type;
  }
}

function check(root: Schema, schema: Schema, value: unknown, path: string, errors: string[]): void {
  if (schema.$ref) {
    const name = /^#\/\$defs\/(.+)$/.exec(schema.$ref)?.[1];
    const target = name ? root.$defs?.[name] : undefined;
    if (!target) throw new Error(`unsupported $ref ${schema.$ref}`);
    return check(root, target, value, path, errors);
  }
  if (schema.type && !typeOk(schema.type, value)) {
    errors.push(`${path}: must be ${schema.type}`);
    return;
  }
  if (schema.enum && !schema.enum.includes(value))
    errors.push(`${path}: must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  if (typeof value === 'string' && schema.minLength !== undefined && value.length < schema.minLength)
    errors.push(`${path}: must have at least ${schema.minLength} characters`);
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) errors.push(`${path}: must be >= ${schema.minimum}`);
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum)
      errors.push(`${path}: must be > ${schema.exclusiveMinimum}`);
  }
  if (Array.isArray(value) && schema.items) value.forEach((item, i) => check(root, schema.items!, item, `${path}/${i}`, errors));
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in obj)) errors.push(`${path}: ${key} is required`);
    for (const [key, v] of Object.entries(obj)) {
      const prop = schema.properties?.[key];
      if (prop) check(root, prop, v, `${path}/${key}`, errors);
      else if (schema.additionalProperties === false) errors.push(`${path}/${key}: is not allowed`);
    }
  }
}
