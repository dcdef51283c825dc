// A handful of real password hashes (bcrypt, argon2id, the external scrypt variant) with known passwords,
// computed once per run and reused across millions of generated users: hashing is not what is measured.
import { createCipheriv, createHash } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { argon2id, scrypt } from 'hash-wasm';

/** Firebase-style scrypt parameters of the generated exports (the signer key is bench-only, not a real one). */
export const SCRYPT_CONFIG = {
  signerKey: createHash('sha512').update('auth-migrate bench signer key').digest('base64'),
  saltSeparator: 'Bw==',
  rounds: 8,
  memCost: 14,
};

export const SAMPLES_PER_FORMAT = 4;

export function samplePassword(k) {
  return `bench-password-${k}`;
}

function seededBytes(label, n) {
  return createHash('sha512').update(label).digest().subarray(0, n);
}

async function firebaseScrypt(password, saltB64) {
  const salt = Buffer.concat([Buffer.from(saltB64, 'base64'), Buffer.from(SCRYPT_CONFIG.saltSeparator, 'base64')]);
  const dk = await scrypt({
    password,
    salt,
    costFactor: 2 ** SCRYPT_CONFIG.memCost,
    blockSize: SCRYPT_CONFIG.rounds,
    parallelism: 1,
    hashLength: 64,
    outputType: 'binary',
  });
  const cipher = createCipheriv('aes-256-ctr', Buffer.from(dk).subarray(0, 32), Buffer.alloc(16));
  return Buffer.concat([cipher.update(Buffer.from(SCRYPT_CONFIG.signerKey, 'base64')), cipher.final()]).toString('base64');
}

/** {bcrypt: [...], argon2: [...], scrypt: [{passwordHash, salt, imported}]} with password samplePassword(k). */
export async function computeHashSamples() {
  const bcryptSamples = [];
  const argon2Samples = [];
  const scryptSamples = [];
  for (let k = 0; k < SAMPLES_PER_FORMAT; k++) {
    const password = samplePassword(k);
    bcryptSamples.push(bcrypt.hashSync(password, bcrypt.genSaltSync(10)));
    argon2Samples.push(
      await argon2id({
        password,
        salt: seededBytes(`argon2-salt-${k}`, 16),
        iterations: 2,
        memorySize: 19456,
        parallelism: 1,
        hashLength: 32,
        outputType: 'encoded',
      }),
    );
    const salt = seededBytes(`scrypt-salt-${k}`, 12).toString('base64');
    const passwordHash = await firebaseScrypt(password, salt);
    const { memCost, rounds, saltSeparator } = SCRYPT_CONFIG;
    scryptSamples.push({ passwordHash, salt, imported: `$f_scrypt$${passwordHash}$${salt}$m=${memCost}$r=${rounds}$s=${saltSeparator}` });
  }
  return { bcrypt: bcryptSamples, argon2: argon2Samples, scrypt: scryptSamples };
}
