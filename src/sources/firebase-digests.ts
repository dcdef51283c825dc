// Firebase's modified scrypt as other vendors store it, turned into the string the core imports
// (`$f_scrypt$<hash>$<salt>$m=<mem_cost>$r=<rounds>$s=<salt separator>`, docs/formats.md). Both layouts carry the
// project's signer key inside every digest; the core holds one signer key (its configuration), so the key is taken
// out of the string, never into a record, and every digest of a run must carry the key the run was given.
//
// Supabase (GoTrue), supabase/auth internal/crypto/password.go, fbscryptHashRegexp and firebaseScrypt():
//   $fbscrypt$v=1,n=<log2 N>,r=<block size>,p=<parallelism>[,ss=<salt separator>][,sk=<signer key>]$<salt>$<hash>
//   key = scrypt(password, salt || ss, N = 1 << n, r, p, 32 bytes); hash = AES-256-CTR(key, zero IV) of sk.
//   n is Firebase's mem_cost and r its rounds; Firebase always uses p = 1 (firebase/scrypt), the only p the core
//   knows. The 32-byte key is the first half of the 64 bytes Firebase derives: the same AES key.
// Clerk, Backend API `POST /v1/users` (`password_hasher: scrypt_firebase`, clerk.com/docs/reference/backend-api):
//   <hash>$<salt>$<signer key>$<salt separator>$<rounds>$<memory cost>   (6 segments, base64 values)
import { buildExternalScrypt } from '../hashes/formats.js';
import { formatCount } from '../numbers.js';
import type { Problem, RecordOrigin } from '../records/types.js';
import { normaliseBase64 } from './base64.js';

export type FirebaseDigest =
  /** `hash` is the `$f_scrypt$` string; `signerKey` the project's key in standard padded base64. */
  | { ok: true; hash: string; signerKey: string }
  /** Not convertible; `why` never quotes the digest. */
  | { ok: false; why: string };

const B64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
const INT = /^\d{1,9}$/;
const FBSCRYPT = /^\$fbscrypt\$v=(\d+),n=(\d+),r=(\d+),p=(\d+)(?:,ss=([^,$]*))?(?:,sk=([^$]+))?\$([^$]+)\$([^$]+)$/;

function convert(hash: string, salt: string, signerKey: string, separator: string, rounds: string, memCost: string): FirebaseDigest {
  if (![hash, salt, signerKey].every((v) => B64.test(v)) || (separator !== '' && !B64.test(separator)))
    return { ok: false, why: 'its hash, salt, signer key or salt separator is not base64' };
  if (!INT.test(rounds) || !INT.test(memCost) || Number(rounds) < 1 || Number(memCost) < 1)
    return { ok: false, why: 'its rounds and memory cost must be whole numbers of 1 or more' };
  return {
    ok: true,
    hash: buildExternalScrypt({
      passwordHash: normaliseBase64(hash),
      salt: normaliseBase64(salt),
      memCost: Number(memCost),
      rounds: Number(rounds),
      saltSeparator: separator === '' ? '' : normaliseBase64(separator),
    }),
    signerKey: normaliseBase64(signerKey),
  };
}

/** Supabase's `$fbscrypt$...` (GoTrue's own form of a Firebase hash). */
export function fromFbscrypt(digest: string): FirebaseDigest {
  const m = FBSCRYPT.exec(digest.trim());
  if (!m) return { ok: false, why: 'it is not `$fbscrypt$v=1,n=..,r=..,p=..,ss=..,sk=..$<salt>$<hash>`' };
  const [, v, n, r, p, ss, sk, salt, hash] = m;
  if (v !== '1') return { ok: false, why: `it is version ${v.slice(0, 5)} (only version 1 exists)` };
  if (p !== '1') return { ok: false, why: `its parallelism is p=${p.slice(0, 5)}, and Firebase's scrypt (the core's) has p=1` };
  if (sk === undefined) return { ok: false, why: 'it carries no signer key (sk=), without which Firebase scrypt cannot be checked' };
  return convert(hash!, salt!, sk, ss ?? '', r!, n!);
}

/** Clerk's `scrypt_firebase` digest: `<hash>$<salt>$<signer key>$<salt separator>$<rounds>$<memory cost>`. */
export function fromClerkScryptFirebase(digest: string): FirebaseDigest {
  const parts = digest.trim().split('$');
  if (parts.length !== 6) return { ok: false, why: `it has ${parts.length} segments separated by $, not 6` };
  const [hash, salt, signerKey, separator, rounds, memCost] = parts as [string, string, string, string, string, string];
  return convert(hash, salt, signerKey, separator, rounds, memCost);
}

/**
 * The signer key every Firebase digest of one read must carry: the run's (--signer-key, the hash config), else the
 * first digest's. The core is configured with one key, so a digest made with another could never verify there.
 */
export class SignerKeyCheck {
  private first: string | undefined;
  private firstAt: RecordOrigin | undefined;
  /** How many digests were converted (and so need the core's signer key). */
  converted = 0;

  constructor(private readonly given: string | undefined) {}

  /** Undefined when the digest's key is the run's; else what is wrong, without the keys. */
  check(key: string, origin: RecordOrigin): string | undefined {
    this.converted++;
    this.firstAt ??= origin;
    if (this.given !== undefined)
      return normaliseBase64(this.given.trim()) === key
        ? undefined
        : 'the digest was made with another signer key than the one given (--signer-key or the hash config): the core holds one key, so this password could never verify there; give the key of the project these digests come from';
    this.first ??= key;
    return this.first === key
      ? undefined
      : "the digest was made with another signer key than the file's earlier Firebase digests: the core holds one key, so only one project's users can keep their passwords; migrate the other project's users in a run of their own with its key (--signer-key)";
  }

  /** After the read: when digests were converted but no key was given, a warning saying where the key comes from. */
  withoutKey(): Problem | undefined {
    if (this.converted === 0 || this.given !== undefined) return undefined;
    return {
      severity: 'warning',
      rule: 'password.scrypt.signer-key-needed',
      origin: this.firstAt!,
      field: 'password.hash',
      message: `${formatCount(this.converted)} Firebase scrypt digest(s) (this is the first) carry their project's signer key, which the core must be configured with to check them, and no signer key was given: pass --signer-key (the project's base64_signer_key; also the sk= part of a $fbscrypt$ digest, the third segment of a scrypt_firebase one) so validation checks every digest against it and a sandbox rehearsal gets it`,
    };
  }
}
