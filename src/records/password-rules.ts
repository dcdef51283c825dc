// Password hash rules: bcrypt structure and cost, argon2 PHC strings, the external scrypt 7-part string,
// exporter prefixes, stated vs detected algorithm. Returns the normalised password, ready to import.
import { buildExternalScrypt, parseHashingAlgorithmName, stripExporterPrefix, WRAPPING_PREFIXES } from '../hashes/formats.js';
import { detectLegacyHash } from 'auth-migrate-signin/protocol';
import { flag, type RuleContext } from './rule-context.js';
import type { CanonicalLegacyPassword, CanonicalPassword, PasswordAlgorithm } from './types.js';

/** Told of a hash recognised as one the core cannot take (legacy-rules.ts decides what that means for the record). */
export type OnLegacyHash = (legacy: CanonicalLegacyPassword, rule: string, why: string) => void;

const FIELD = 'password.hash';
const KNOWN_ALGORITHMS = new Set<string>(['bcrypt', 'argon2', 'external_scrypt']);
const SHAPES = '`$2a$`/`$2b$`/`$2y$` bcrypt, an argon2 PHC string (`$argon2id$v=19$...`) or the external scrypt string (`$f_scrypt$...`)';

/** The password after normalisation, or undefined when there is no usable hash (the reason is flagged). */
export function checkPassword(
  ctx: RuleContext,
  password: unknown,
  signerKeyBytes: number | undefined,
  onLegacy?: OnLegacyHash,
): CanonicalPassword | undefined {
  if (typeof password !== 'object' || password === null || Array.isArray(password)) {
    flag(ctx, 'error', 'password.type', 'password', 'password must be an object `{ "hash": "...", "algorithm": "..." }`; fix the record');
    return undefined;
  }
  const { hash: rawHash, algorithm: rawAlgorithm } = password as { hash?: unknown; algorithm?: unknown };
  if (typeof rawHash !== 'string' || rawHash.trim() === '') {
    flag(ctx, 'error', 'password.hash.missing', FIELD, 'the record has a password without a hash; add the hash or remove `password`');
    return undefined;
  }
  const stated = statedAlgorithm(ctx, rawAlgorithm, rawHash, onLegacy);
  if (stated === false) return undefined;
  const unprefixed = unwrapped(ctx, rawHash.trim(), onLegacy);
  if (unprefixed === undefined) return undefined;
  let result: { algorithm: PasswordAlgorithm; hash: string } | undefined;
  if (unprefixed.startsWith('$f_scrypt$')) result = checkExternalScrypt(ctx, unprefixed, signerKeyBytes);
  else if (unprefixed.startsWith('$2')) result = checkBcrypt(ctx, unprefixed);
  else if (unprefixed.startsWith('$argon2')) result = checkArgon2(ctx, unprefixed);
  else {
    const legacy = onLegacy && detectLegacyHash(unprefixed);
    if (legacy) {
      onLegacy!(legacy, 'password.unusable', `the password hash is ${legacy.algorithm}`);
      return undefined;
    }
    flag(
      ctx,
      'error',
      'password.format.unknown',
      FIELD,
      `the hash is not ${SHAPES}; the core refuses other formats: leave the password out (the user resets it) or export the hash in one of these forms`,
    );
    return undefined;
  }
  if (!result) return undefined;
  if (stated && stated !== result.algorithm) {
    flag(
      ctx,
      'error',
      'password.algorithm.mismatch',
      'password.algorithm',
      `the record says ${stated} but the hash is ${result.algorithm}; correct the algorithm or leave it out`,
    );
    return undefined;
  }
  return result;
}

/** The algorithm the record states (undefined: none, detect it), or false when it is unusable (flagged or legacy). */
function statedAlgorithm(
  ctx: RuleContext,
  rawAlgorithm: unknown,
  rawHash: string,
  onLegacy: OnLegacyHash | undefined,
): PasswordAlgorithm | undefined | false {
  if (rawAlgorithm === undefined || rawAlgorithm === null || rawAlgorithm === '') return undefined;
  const parsed =
    typeof rawAlgorithm !== 'string'
      ? null
      : KNOWN_ALGORITHMS.has(rawAlgorithm)
        ? (rawAlgorithm as PasswordAlgorithm)
        : parseHashingAlgorithmName(rawAlgorithm);
  const legacy = parsed ? undefined : onLegacy && detectLegacyHash(rawHash);
  if (legacy) {
    onLegacy!(legacy, 'password.unusable', `the password hash is ${legacy.algorithm}`);
    return false;
  }
  if (!parsed) {
    flag(
      ctx,
      'error',
      'password.algorithm.unknown',
      'password.algorithm',
      'the algorithm must be bcrypt, argon2 or external_scrypt (or left out to detect it from the hash); correct it',
    );
    return false;
  }
  return parsed;
}

/** The hash without an exporter's prefix (warned of), or undefined when a wrapping prefix makes it unusable (flagged). */
function unwrapped(ctx: RuleContext, trimmed: string, onLegacy: OnLegacyHash | undefined): string | undefined {
  // Every exporter prefix starts with something other than `$`; most hashes skip the prefix search.
  if (trimmed.startsWith('$')) return trimmed;
  const wrapped = WRAPPING_PREFIXES.find((w) => w.pattern.test(trimmed));
  const wrappedLegacy = wrapped && onLegacy ? detectLegacyHash(trimmed) : undefined;
  if (wrapped && wrappedLegacy) {
    onLegacy!(wrappedLegacy, 'password.prefix.wrapped', `the hash starts with \`${wrapped.label}\`: ${wrapped.what}`);
    return undefined;
  }
  if (wrapped) {
    flag(
      ctx,
      'error',
      'password.prefix.wrapped',
      FIELD,
      `the hash starts with \`${wrapped.label}\`: ${wrapped.what}, so the core could never match a password against it. Leave the password out (the user resets it, or signs in once through your backend's legacy check) instead of importing it`,
    );
    return undefined;
  }
  const { hash, stripped } = stripExporterPrefix(trimmed);
  if (stripped) {
    flag(
      ctx,
      'warning',
      'password.prefix-stripped',
      FIELD,
      `removed the exporter prefix \`${stripped}\` from the hash (the core wants the bare hash string); nothing to do unless that is wrong`,
    );
  }
  return hash;
}

const BCRYPT = /^\$2([abxy])\$(\d\d)\$[./A-Za-z0-9]{53}$/;

function checkBcrypt(ctx: RuleContext, hash: string): { algorithm: PasswordAlgorithm; hash: string } | undefined {
  const m = BCRYPT.exec(hash);
  if (!m) {
    flag(
      ctx,
      'error',
      'password.bcrypt.structure',
      FIELD,
      'the bcrypt hash is not `$2a$`, `$2b$`, `$2x$` or `$2y$`, a two-digit cost, `$` and 53 characters of the bcrypt alphabet; it was probably cut or altered: export it again',
    );
    return undefined;
  }
  const cost = Number(m[2]);
  if (cost < 4 || cost > 31) {
    flag(
      ctx,
      'error',
      'password.bcrypt.cost',
      FIELD,
      `the bcrypt cost ${cost} is outside 4..31, so no password can match; export the hash again`,
    );
    return undefined;
  }
  if (m[1] === 'x') {
    flag(
      ctx,
      'warning',
      'password.bcrypt.2x',
      FIELD,
      'the hash uses `$2x$` (the old crypt_blowfish variant with the 8-bit bug): the core checks it as `$2a$`, so users with non-ASCII passwords may fail to sign in; spot-check one (validate --check-password EMAIL:PASSWORD, or s on the wizard preview)',
    );
  }
  return { algorithm: 'bcrypt', hash };
}

const ARGON2_VARIANT = /^\$argon2(id|i|d)\$/;
const ARGON2_PARAMS = /^m=(\d+),t=(\d+),p=(\d+)$/;
const B64_UNPADDED = /^[A-Za-z0-9+/]+$/;
const B64_PADDED = /^[A-Za-z0-9+/]+={1,2}$/;

function checkArgon2(ctx: RuleContext, hash: string): { algorithm: PasswordAlgorithm; hash: string } | undefined {
  if (!ARGON2_VARIANT.test(hash)) {
    flag(
      ctx,
      'error',
      'password.argon2.variant',
      FIELD,
      'the argon2 variant must be argon2id, argon2i or argon2d; correct the hash string',
    );
    return undefined;
  }
  const parts = hash.split('$');
  if (parts.length !== 6 || !parts[2]!.startsWith('v=')) {
    flag(
      ctx,
      'error',
      'password.argon2.version',
      FIELD,
      'the argon2 hash has no `v=19` part (it must be `$argon2id$v=19$m=..,t=..,p=..$<salt>$<hash>`); export it again in the PHC form',
    );
    return undefined;
  }
  if (parts[2] !== 'v=19') {
    flag(
      ctx,
      'error',
      'password.argon2.version',
      FIELD,
      'the argon2 hash is not version 19 (`v=19`); only argon2 1.3 hashes can be imported',
    );
    return undefined;
  }
  const params = ARGON2_PARAMS.exec(parts[3]!);
  const [m, t, p] = params ? [Number(params[1]), Number(params[2]), Number(params[3])] : [0, 0, 0];
  if (!params || t < 1 || p < 1 || m < 8 * p) {
    flag(
      ctx,
      'error',
      'password.argon2.params',
      FIELD,
      'the argon2 parameters must be `m=<KiB>,t=<iterations>,p=<lanes>` in that order, with t >= 1, p >= 1 and m >= 8*p; correct the hash string',
    );
    return undefined;
  }
  let padded = false;
  const encoded: string[] = [];
  for (const part of [parts[4]!, parts[5]!]) {
    if (B64_UNPADDED.test(part) && part.length % 4 !== 1) encoded.push(part);
    else if (B64_PADDED.test(part) && part.replace(/=+$/, '').length % 4 !== 1) {
      padded = true;
      encoded.push(part.replace(/=+$/, ''));
    } else {
      flag(
        ctx,
        'error',
        'password.argon2.base64',
        FIELD,
        'the argon2 salt or hash is not base64 (A-Z, a-z, 0-9, +, /); export the hash again',
      );
      return undefined;
    }
  }
  if (padded) {
    flag(
      ctx,
      'warning',
      'password.argon2.padding',
      FIELD,
      'removed `=` padding from the argon2 salt or hash (PHC strings are unpadded; the bytes are unchanged); nothing to do',
    );
  }
  return { algorithm: 'argon2', hash: padded ? `$${parts[1]}$v=19$${parts[3]}$${encoded[0]}$${encoded[1]}` : hash };
}

const JAVA_INT = /^[+-]?\d{1,10}$/;
const B64_ANY = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Standard, padded base64 of web-safe or unpadded text; undefined if it is not base64 at all. */
function standardBase64(part: string): string | undefined {
  if (!B64_ANY.test(part)) return undefined;
  const body = part.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
  if (body.length % 4 === 1) return undefined;
  return body + '='.repeat((4 - (body.length % 4)) % 4);
}

// The string as the core compares it: standard padded base64, m, r, s in this order. Most hashes take this path.
const SCRYPT_CANONICAL =
  /^\$f_scrypt\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})\$m=([1-9]\d{0,8})\$r=([1-9]\d{0,8})\$s=([A-Za-z0-9+/]*={0,2})$/;

function checkExternalScrypt(
  ctx: RuleContext,
  hash: string,
  signerKeyBytes: number | undefined,
): { algorithm: PasswordAlgorithm; hash: string } | undefined {
  const canonical = SCRYPT_CANONICAL.exec(hash);
  if (canonical && canonical[1]!.length % 4 === 0 && canonical[2]!.length % 4 === 0 && canonical[5]!.length % 4 === 0) {
    if (signerKeyBytes === undefined || base64Length(canonical[1]!) === signerKeyBytes) return { algorithm: 'external_scrypt', hash };
  }
  const parts = hash.split('$');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length !== 7) {
    flag(
      ctx,
      'error',
      'password.scrypt.parts',
      FIELD,
      `the external scrypt string has ${parts.length} parts separated by \`$\`; it needs 7: \`$f_scrypt$<hash>$<salt>$m=<mem_cost>$r=<rounds>$s=<salt separator>\``,
    );
    return undefined;
  }
  const params = scryptParams(ctx, parts);
  if (!params) return undefined;
  const { memCost, rounds } = params;
  const normalised = normalisedScryptParts(ctx, [parts[2]!, parts[3]!, params.separator]);
  if (!normalised) return undefined;
  const [passwordHash, salt, saltSeparator] = normalised;
  if (signerKeyBytes !== undefined && base64Length(passwordHash) !== signerKeyBytes) {
    flag(
      ctx,
      'error',
      'password.scrypt.signer-key-length',
      FIELD,
      `the hash is ${base64Length(passwordHash)} bytes but the signer key is ${signerKeyBytes} bytes, so it can never verify; check that the signer key belongs to this project`,
    );
    return undefined;
  }
  return { algorithm: 'external_scrypt', hash: buildExternalScrypt({ passwordHash, salt, memCost, rounds, saltSeparator }) };
}

/** m, r and s of a 7-part external scrypt string, once each and in range; undefined when not (flagged). */
function scryptParams(ctx: RuleContext, parts: string[]): { memCost: number; rounds: number; separator: string } | undefined {
  let memCost: number | undefined;
  let rounds: number | undefined;
  let separator: string | undefined;
  let badParam = false;
  for (const part of parts.slice(4)) {
    const value = part.slice(2);
    if (part.startsWith('m=') && memCost === undefined && JAVA_INT.test(value)) memCost = Number(value);
    else if (part.startsWith('r=') && rounds === undefined && JAVA_INT.test(value)) rounds = Number(value);
    else if (part.startsWith('s=') && separator === undefined) separator = value;
    else badParam = true;
  }
  if (
    badParam ||
    memCost === undefined ||
    rounds === undefined ||
    separator === undefined ||
    memCost < 1 ||
    rounds < 1 ||
    memCost > 2147483647 ||
    rounds > 2147483647
  ) {
    flag(
      ctx,
      'error',
      'password.scrypt.params',
      FIELD,
      'the external scrypt string needs `m=<mem_cost>`, `r=<rounds>` (whole numbers >= 1) and `s=<salt separator>`, once each; take them from the hash parameters of the source project',
    );
    return undefined;
  }
  return { memCost, rounds, separator };
}

/** The hash, salt and salt separator in standard padded base64 (a change is warned of); undefined when not base64 (flagged). */
function normalisedScryptParts(ctx: RuleContext, raw: [string, string, string]): [string, string, string] | undefined {
  const normalised: string[] = [];
  let changed = false;
  for (const [i, part] of raw.entries()) {
    const std = standardBase64(part);
    // The salt separator may be empty; the hash and the salt may not.
    if (std === undefined || (std === '' && i < 2)) {
      flag(
        ctx,
        'error',
        'password.scrypt.base64',
        FIELD,
        'the scrypt hash, salt or salt separator is not base64; export the user again (and check the hash parameters)',
      );
      return undefined;
    }
    if (std !== part) changed = true;
    normalised.push(std);
  }
  if (changed) {
    flag(
      ctx,
      'warning',
      'password.scrypt.base64-normalised',
      FIELD,
      'converted web-safe or unpadded base64 in the scrypt string to standard padded base64 (what the core compares against); nothing to do',
    );
  }
  return normalised as [string, string, string];
}

/** Decoded length of standard padded base64, without decoding. */
export function base64Length(b64: string): number {
  const padding = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return (b64.length / 4) * 3 - padding;
}
