// HTTP plumbing of the sandbox core: the reference core's error answers (plain text) and business answers
// (JSON, HTTP 200), and its JSON-input parsing quirks (InputParser) with their exact 400 texts.

/** Any non-200 answer: plain text `message\n`, as the reference core's sendTextResponse. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string): HttpError => new HttpError(400, message);

/** `durable`: the commit this answer waits for (set by commitThen); answers without it wait for the store to settle. */
export type Reply = ({ kind: 'json'; status: number; body: unknown } | { kind: 'text'; status: number; body: string }) & {
  durable?: Promise<void>;
};

export const json = (body: unknown): Reply => ({ kind: 'json', status: 200, body });
export const ok = (fields: Record<string, unknown> = {}): Reply => json({ status: 'OK', ...fields });
export const status = (name: string, fields: Record<string, unknown> = {}): Reply => json({ status: name, ...fields });
export const text = (body: string, code = 200): Reply => ({ kind: 'text', status: code, body });

type JsonObject = Record<string, unknown>;

const invalid = (field: string): HttpError => badRequest(`Field name '${field}' is invalid in JSON input`);

/** parseStringOrThrowError: a JSON string; explicit null is rejected even for a nullable field. */
export function str(input: JsonObject, field: string): string;
export function str(input: JsonObject, field: string, nullable: true): string | undefined;
export function str(input: JsonObject, field: string, nullable = false): string | undefined {
  if (!(field in input)) {
    if (nullable) return undefined;
    throw invalid(field);
  }
  const v = input[field];
  if (typeof v !== 'string') throw invalid(field);
  return v;
}

/** For the few endpoints that test isJsonNull themselves: undefined = absent, null = explicit null. */
export function strOrNull(input: JsonObject, field: string): string | null | undefined {
  if (!(field in input)) return undefined;
  const v = input[field];
  if (v === null) return null;
  if (typeof v !== 'string') throw invalid(field);
  return v;
}

/** parseIntOrThrowError: Gson getAsInt accepts numeric strings and truncates fractions. */
export function int(input: JsonObject, field: string): number;
export function int(input: JsonObject, field: string, nullable: true): number | undefined;
export function int(input: JsonObject, field: string, nullable = false): number | undefined {
  if (!(field in input)) {
    if (nullable) return undefined;
    throw invalid(field);
  }
  const v = input[field];
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isFinite(n)) throw invalid(field);
  return Math.trunc(n);
}

export function bool(input: JsonObject, field: string): boolean;
export function bool(input: JsonObject, field: string, nullable: true): boolean | undefined;
export function bool(input: JsonObject, field: string, nullable = false): boolean | undefined {
  if (!(field in input)) {
    if (nullable) return undefined;
    throw invalid(field);
  }
  const v = input[field];
  if (typeof v !== 'boolean') throw invalid(field);
  return v;
}

export function obj(input: JsonObject, field: string): JsonObject {
  const v = input[field];
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalid(field);
  return v as JsonObject;
}

/** Optional array of strings (null allowed and returned as null). */
export function strArray(input: JsonObject, field: string): string[] | null | undefined {
  if (!(field in input)) return undefined;
  const v = input[field];
  if (v === null) return null;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw invalid(field);
  return v as string[];
}

/** A required query parameter. */
export function query(params: URLSearchParams, name: string): string;
export function query(params: URLSearchParams, name: string, optional: true): string | undefined;
export function query(params: URLSearchParams, name: string, optional = false): string | undefined {
  const v = params.get(name);
  if (v === null) {
    if (optional) return undefined;
    throw badRequest(`Field name '${name}' is missing in GET request`);
  }
  return v;
}

export function queryInt(params: URLSearchParams, name: string): number | undefined {
  const v = params.get(name);
  if (v === null) return undefined;
  if (!/^[+-]?\d+$/.test(v.trim())) throw badRequest(`Field name '${name}' must be an int in the GET request`);
  return Number(v.trim());
}

/** Parse a request body as the reference core does: it must be a JSON object. */
export function parseJsonObject(body: string): JsonObject {
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch {
    throw badRequest('Invalid Json Input');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw badRequest('Invalid Json Input');
  return v as JsonObject;
}
