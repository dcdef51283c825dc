// Running the built CLI and reading a core's users, for the end-to-end tests.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { createCoreClient } from '../../src/core-client/client.js';
import type { CoreClient, CoreUser } from '../../src/core-client/types.js';
import { decodeJournalLine } from '../../src/engine/journal/lines.js';

export const BIN = fileURLToPath(new URL('../../bin/auth-migrate.js', import.meta.url));

/** A licence key for sandbox rehearsals (the sandbox accepts any non-empty key). */
export const LICENSE = 'test-licence-key-0123456789';

/** The child's environment: no AUTH_MIGRATE_* of the developer's shell leaks in. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AUTH_MIGRATE_')) env[k] = v;
  return { ...env, ...extra };
}

export function cli(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): ResultPromise<{ cwd: string; reject: false; env: NodeJS.ProcessEnv; extendEnv: false }> {
  return execa(process.execPath, [BIN, ...args], { cwd, reject: false, env: cleanEnv(env), extendEnv: false });
}

/**
 * `run users.ndjson` into `url` via bulk-staged, the job looked at for a 1 s interval, journal j.ndjson, a JSON
 * summary (or, with `--json-events`, the events on stderr).
 */
export const stagedRunArgs = (url: string, extra: string[] = [], output: '--json' | '--json-events' = '--json'): string[] => [
  'run',
  'users.ndjson',
  '--core',
  url,
  '--yes',
  '--via',
  'bulk-staged',
  '--job-interval',
  '1',
  '--journal',
  'j.ndjson',
  output,
  ...extra,
];

export function client(url: string, apiKey?: string): CoreClient {
  return createCoreClient({ url, apiKey, retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
}

/** Every user of the public tenant, through GET /users pages of 500. */
export async function allUsers(core: CoreClient): Promise<CoreUser[]> {
  const out: CoreUser[] = [];
  let token: string | undefined;
  do {
    const page = await core.listUsers({ limit: 500, paginationToken: token });
    out.push(...page.users);
    token = page.nextPaginationToken;
  } while (token);
  return out;
}

/** Poll a condition with a deadline (never a fixed sleep). */
export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Parse the single JSON summary a `--json` run prints on stdout. */
export function summaryOf(stdout: string): Record<string, unknown> {
  const lines = stdout.trim().split('\n');
  if (lines.length !== 1) throw new Error(`expected one JSON line on stdout, got ${lines.length}: ${stdout.slice(0, 500)}`);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

/** A journal's entries, decoded (each line may hold a step and its user's outcome), as plain records. */
export function journalEntries(path: string): Array<Record<string, unknown>> {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .flatMap((l) => decodeJournalLine(l) as unknown as Array<Record<string, unknown>>);
}
