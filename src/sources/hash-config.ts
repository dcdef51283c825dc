// Firebase's scrypt "Password hash parameters": the console's `hash_config { ... }` block as pasted, or JSON
// (snake_case as in the block, or the camelCase of the Admin API).
import { UserError } from '../errors.js';
import type { HashConfig } from './index.js';
import { isBase64Text, normaliseBase64 } from './base64.js';

const HOW = 'copy it from the Firebase console (Authentication, Users, ⋮, Password hash parameters)';

const ALIASES: Record<string, keyof HashConfig | 'algorithm'> = {
  algorithm: 'algorithm',
  base64_signer_key: 'signerKey',
  signer_key: 'signerKey',
  signerkey: 'signerKey',
  base64_salt_separator: 'saltSeparator',
  salt_separator: 'saltSeparator',
  saltseparator: 'saltSeparator',
  rounds: 'rounds',
  mem_cost: 'memCost',
  memcost: 'memCost',
  memorycost: 'memCost',
  memory_cost: 'memCost',
};

export function parseHashConfig(input: string): HashConfig {
  const text = input.replace(/^\uFEFF/, '').trim();
  if (text === '') throw new UserError(`the hash config is empty; ${HOW}`);
  const pairs = text.startsWith('{') ? jsonPairs(text) : blockPairs(text);
  const found: Partial<Record<keyof HashConfig | 'algorithm', string>> = {};
  for (const [key, value] of pairs) {
    const name = ALIASES[key.toLowerCase()];
    if (name) found[name] = value;
  }
  if (found.algorithm !== undefined && found.algorithm.toUpperCase() !== 'SCRYPT') return otherAlgorithm(found);
  const missing = (['saltSeparator', 'rounds', 'memCost'] as const).filter((k) => found[k] === undefined);
  if (missing.length > 0) {
    const names = missing.map((k) => ({ saltSeparator: 'base64_salt_separator', rounds: 'rounds', memCost: 'mem_cost' })[k]);
    throw new UserError(`the hash config has no ${names.join(', ')}; ${HOW}`);
  }
  const rounds = toInt(found.rounds!, 'rounds');
  const memCost = toInt(found.memCost!, 'mem_cost');
  const saltSeparator = normaliseBase64(found.saltSeparator!);
  if (!isBase64Text(saltSeparator)) throw new UserError(`the hash config's base64_salt_separator is not base64; ${HOW}`);
  const config: HashConfig = { saltSeparator, rounds, memCost };
  if (found.signerKey !== undefined && found.signerKey !== '') {
    const signerKey = normaliseBase64(found.signerKey);
    if (!isBase64Text(signerKey)) throw new UserError(`the hash config's base64_signer_key is not base64; ${HOW}`);
    config.signerKey = signerKey;
  }
  return config;
}

/** Firebase's other hash algorithms: the core takes none of them, so their users go to migration at first sign-in. */
const OTHER_ALGORITHMS = new Set([
  'HMAC_SHA512',
  'HMAC_SHA256',
  'HMAC_SHA1',
  'HMAC_MD5',
  'MD5',
  'SHA1',
  'SHA256',
  'SHA512',
  'PBKDF_SHA1',
  'PBKDF2_SHA256',
  'BCRYPT',
  'STANDARD_SCRYPT',
]);

function otherAlgorithm(found: Partial<Record<keyof HashConfig | 'algorithm', string>>): HashConfig {
  const algorithm = found.algorithm!.toUpperCase();
  if (!OTHER_ALGORITHMS.has(algorithm)) {
    throw new UserError(
      `the hash config's algorithm ${found.algorithm!.slice(0, 20)} is not one Firebase uses (SCRYPT, HMAC_SHA256, MD5, PBKDF2_SHA256, ...); ${HOW}`,
    );
  }
  const config: HashConfig = {
    algorithm,
    saltSeparator: '',
    rounds: found.rounds !== undefined ? toInt(found.rounds, 'rounds') : 0,
    memCost: 0,
  };
  if (found.signerKey !== undefined && found.signerKey !== '') config.signerKey = normaliseBase64(found.signerKey);
  return config;
}

function toInt(value: string, name: string): number {
  if (!/^\d+$/.test(value)) throw new UserError(`the hash config's ${name} must be a whole number; ${HOW}`);
  return Number(value);
}

function jsonPairs(text: string): Array<[string, string]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UserError(`the hash config is not valid JSON (${(err as Error).message}); ${HOW}`);
  }
  if (typeof parsed !== 'object' || parsed === null) throw new UserError(`the hash config must be a JSON object; ${HOW}`);
  let o = parsed as Record<string, unknown>;
  for (const wrapper of ['hash_config', 'hashConfig']) {
    const inner = o[wrapper];
    if (typeof inner === 'object' && inner !== null) o = inner as Record<string, unknown>;
  }
  return Object.entries(o)
    .filter(([, v]) => typeof v === 'string' || typeof v === 'number')
    .map(([k, v]) => [k, String(v)]);
}

/** `hash_config { algorithm: SCRYPT, base64_signer_key: ..., rounds: 8, mem_cost: 14 }`, commas or newlines. */
function blockPairs(text: string): Array<[string, string]> {
  const body = text.replace(/^hash_config\s*\{/i, '').replace(/\}\s*$/, '');
  const pairs: Array<[string, string]> = [];
  const re = /([A-Za-z][A-Za-z0-9_]*)\s*[:=]\s*(?:"([^"]*)"|'([^']*)'|([^\s,}]+))/g;
  for (let m = re.exec(body); m; m = re.exec(body)) pairs.push([m[1]!, (m[2] ?? m[3] ?? m[4])!]);
  if (pairs.length === 0) throw new UserError(`the hash config has no "name: value" pairs; ${HOW}`);
  return pairs;
}
