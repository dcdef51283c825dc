// A Keycloak user's `credentials[]`: `password` (pbkdf2 and other hashes the core cannot take become
// `legacyPassword` for migration at first sign-in; argon2 becomes the core's argon2 PHC string) and `otp`
// (the TOTP secret with its digits, period and algorithm). `secretData` and `credentialData` are JSON texts.
import base32 from 'hi-base32';
import type { CanonicalLegacyPassword, CanonicalTotp, CanonicalUser } from '../records/types.js';
import type { FieldReport } from './field-report.js';
import { addProblem, isObject, type FieldContext } from './fields.js';

const FORMAT = 'keycloak';

type Obj = Record<string, unknown>;

/** `secretData` / `credentialData`: a JSON text in exports, an object in some tools' output. */
function jsonField(ctx: FieldContext, cred: Obj, key: string, path: string): Obj | undefined {
  const raw = cred[key];
  if (raw === undefined || raw === null) return undefined;
  if (isObject(raw)) return raw;
  if (typeof raw === 'string') {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (isObject(parsed)) return parsed;
    } catch {
      // reported below
    }
  }
  addProblem(ctx, `${path}.${key}`, `${path}.${key} must be a JSON object (as text); the credential is not carried`);
  return undefined;
}

/** Keycloak's `additionalParameters` hold lists of strings: `{"memory": ["7168"]}`. */
function param(params: unknown, key: string): string | undefined {
  if (!isObject(params)) return undefined;
  const v = params[key];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === 'string' || typeof first === 'number' ? String(first) : undefined;
}

export function readCredentials(ctx: FieldContext, credentials: unknown[], record: CanonicalUser, fields?: FieldReport): void {
  let passwords = 0;
  credentials.forEach((cred, i) => {
    const path = `credentials[${i}]`;
    if (!isObject(cred)) return addProblem(ctx, path, `${path} must be an object`);
    const type = typeof cred['type'] === 'string' ? cred['type'] : '';
    if (type === 'password') {
      if (passwords++ > 0)
        return addProblem(ctx, path, 'a second password credential is ignored; the first is carried', 'keycloak.extra-password', 'warning');
      return readPassword(ctx, cred, path, record, fields);
    }
    if (type === 'otp') return readOtp(ctx, cred, path, record, fields);
    fields?.dropped(
      FORMAT,
      `credentials (type ${type || 'empty'})`,
      'the core has no such credential (it takes passwords and TOTP); the user enrols it again',
    );
  });
}

function readPassword(ctx: FieldContext, cred: Obj, path: string, record: CanonicalUser, fields?: FieldReport): void {
  // Keycloak before 12 wrote the values on the credential itself (hashedSaltedValue, salt, hashIterations, algorithm).
  const secret = jsonField(ctx, cred, 'secretData', path) ?? { value: cred['hashedSaltedValue'], salt: cred['salt'] };
  const data = jsonField(ctx, cred, 'credentialData', path) ?? { hashIterations: cred['hashIterations'], algorithm: cred['algorithm'] };
  const hash = secret['value'];
  const algorithm = typeof data['algorithm'] === 'string' ? data['algorithm'] : 'pbkdf2-sha256';
  if (typeof hash !== 'string' || hash === '') {
    addProblem(ctx, `${path}.secretData.value`, 'the password credential has no hash value', 'source.required');
    return;
  }
  const salt = typeof secret['salt'] === 'string' && secret['salt'] !== '' ? secret['salt'] : undefined;
  const iterations = typeof data['hashIterations'] === 'number' ? data['hashIterations'] : undefined;
  const extra = isObject(data['additionalParameters']) ? data['additionalParameters'] : {};
  if (algorithm === 'argon2' && salt !== undefined && iterations !== undefined) {
    const phc = argon2Phc(hash, salt, iterations, extra);
    if (phc) {
      record.password = { hash: phc, algorithm: 'argon2' };
      fields?.mapped(FORMAT, 'credentials (password, argon2)', 'password.hash (argon2 PHC string)');
      return;
    }
  }
  // Community bcrypt providers store the whole modular-crypt string as the value.
  if (/^\$2[abxy]?\$\d{2}\$/.test(hash)) {
    record.password = { hash, algorithm: 'bcrypt' };
    fields?.mapped(FORMAT, `credentials (password, ${algorithm})`, 'password.hash (bcrypt)');
    return;
  }
  const legacy: CanonicalLegacyPassword = { algorithm, hash };
  if (salt !== undefined) legacy.salt = salt;
  const params: Record<string, string | number> = {};
  if (iterations !== undefined) params['iterations'] = iterations;
  for (const key of Object.keys(extra)) {
    const v = param(extra, key);
    if (v !== undefined) params[key] = v;
  }
  if (Object.keys(params).length > 0) legacy.params = params;
  // The validator names it (password.unusable) and the run's --unusable-hashes decides.
  record.legacyPassword = legacy;
  fields?.mapped(FORMAT, `credentials (password, ${algorithm})`, 'legacyPassword (the core cannot verify it: sign-in migration file)');
}

/** Keycloak's argon2 (secretData value and salt in base64, parameters in credentialData) as a PHC string. */
function argon2Phc(hash: string, salt: string, iterations: number, extra: Obj): string | undefined {
  const type = param(extra, 'type') ?? 'id';
  const version = param(extra, 'version') ?? '1.3';
  const memory = param(extra, 'memory');
  const parallelism = param(extra, 'parallelism') ?? '1';
  if (!['id', 'i', 'd'].includes(type) || memory === undefined || !/^\d+$/.test(memory) || !/^\d+$/.test(parallelism)) return undefined;
  const v = version === '1.3' ? 19 : version === '1.0' ? 16 : undefined;
  if (v === undefined) return undefined;
  const b64 = (s: string): string => s.replace(/=+$/, '');
  return `$argon2${type}$v=${v}$m=${memory},t=${iterations},p=${parallelism}$${b64(salt)}$${b64(hash)}`;
}

function readOtp(ctx: FieldContext, cred: Obj, path: string, record: CanonicalUser, fields?: FieldReport): void {
  const secret = jsonField(ctx, cred, 'secretData', path) ?? { value: cred['value'] };
  const data = jsonField(ctx, cred, 'credentialData', path) ?? cred;
  const value = secret['value'];
  if (typeof value !== 'string' || value === '') {
    addProblem(ctx, `${path}.secretData.value`, 'the OTP credential has no secret', 'source.required');
    return;
  }
  const subType = typeof data['subType'] === 'string' ? data['subType'] : 'totp';
  if (subType !== 'totp') {
    addProblem(
      ctx,
      `${path}.credentialData.subType`,
      `a ${subType} (counter-based) OTP cannot be migrated: the core verifies time-based codes only; the user enrols TOTP again`,
      'keycloak.hotp',
    );
    return;
  }
  // Without secretEncoding Keycloak keys the HMAC with the secret text's UTF-8 bytes (and shows their base32).
  const encoding = typeof data['secretEncoding'] === 'string' ? data['secretEncoding'].toUpperCase() : undefined;
  if (encoding !== undefined && encoding !== 'BASE32') {
    addProblem(
      ctx,
      `${path}.credentialData.secretEncoding`,
      `secretEncoding "${encoding.slice(0, 20)}" is not one Keycloak defines (BASE32)`,
    );
    return;
  }
  const totp: CanonicalTotp = {
    secret: encoding === 'BASE32' ? value : base32.encode(Buffer.from(value, 'utf8')).replace(/=+$/, ''),
    encoding: 'base32',
  };
  if (typeof data['period'] === 'number') totp.period = data['period'];
  if (typeof data['digits'] === 'number') totp.digits = data['digits'];
  if (typeof data['algorithm'] === 'string') totp.algorithm = data['algorithm'].replace(/^Hmac/i, '').toUpperCase();
  if (typeof cred['userLabel'] === 'string' && cred['userLabel'] !== '') {
    // Keycloak lets two otp credentials share a label; the core's device names are unique per user.
    const taken = new Set((record.totp ?? []).map((t) => t.deviceName));
    let name = cred['userLabel'];
    for (let n = 2; taken.has(name); n++) name = `${cred['userLabel']} (${n})`;
    totp.deviceName = name;
  }
  (record.totp ??= []).push(totp);
  fields?.mapped(FORMAT, 'credentials (otp)', 'totp[] (secret, digits, period, algorithm; userLabel as deviceName)');
}
