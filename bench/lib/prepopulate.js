// Pre-populated sandbox stores for the growing-store benchmark, written directly through the sandbox's own
// store module (openStore + commit, the code every request goes through), so 500,000 users take seconds, not
// minutes of HTTP. Cached in bench/data/ under a name carrying a hash of the store code, so a change to the
// store format makes a new file rather than a stale one.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, copyFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../dist/sandbox/store/index.js';
import { putUser } from '../../dist/sandbox/users.js';
import { DATA_DIR } from './data.js';

const DIST = fileURLToPath(new URL('../../dist/sandbox/', import.meta.url));
const BATCH = 2_000;

function storeCodeHash() {
  const h = createHash('sha256');
  for (const f of [
    'users.js',
    ...readdirSync(join(DIST, 'store'))
      .filter((n) => n.endsWith('.js'))
      .sort()
      .map((n) => `store/${n}`),
  ]) {
    h.update(f).update(readFileSync(join(DIST, f)));
  }
  return h.digest('hex').slice(0, 10);
}

export const PREPOPULATED_PASSWORD_HASH = '$2b$10$q3nXZZo3lNpYQTYJZiQFZuZ15TLLDGexSiBaEx11YcDllNXd7D3e2';
export const prepopulatedEmail = (i) => `stored${i}@bench.example`;

/** Path of a store snapshot holding `size` email-password users (made once), or undefined for 0. */
export async function prepopulatedStore(size, log) {
  if (size === 0) return undefined;
  const tag = storeCodeHash();
  const file = join(DATA_DIR, `store-${size}-${tag}.json`);
  if (existsSync(file)) return file;
  for (const old of readdirSync(DATA_DIR).filter((n) => n.startsWith(`store-${size}-`))) unlinkSync(join(DATA_DIR, old));
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'auth-migrate-bench-store-'));
  try {
    const path = join(dir, 'store.json');
    const store = await openStore(path);
    const t0 = 1_500_000_000_000;
    for (let i = 0; i < size; i += BATCH) {
      const changes = [];
      for (let j = i; j < Math.min(size, i + BATCH); j++) {
        changes.push(
          putUser({
            app: 'public',
            id: randomUUID(),
            recipeId: 'emailpassword',
            tenantIds: ['public'],
            timeJoined: t0 + j,
            email: prepopulatedEmail(j),
            passwordHash: PREPOPULATED_PASSWORD_HASH,
          }),
        );
      }
      await store.commit(changes);
    }
    await store.close();
    copyFileSync(path, `${file}.partial`);
    renameSync(`${file}.partial`, file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  log(`pre-populated a store with ${size} users in ${((Date.now() - started) / 1000).toFixed(1)} s (${file})`);
  return file;
}
