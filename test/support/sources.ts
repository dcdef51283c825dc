// Shared helpers of the reader tests: collect a read into records and problems, temp files, fixture paths.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Problem, SourceRecord } from '../../src/records/types.js';
import { readSources, type ReadOptions } from '../../src/sources/index.js';
import { UserError } from '../../src/errors.js';

export const FIXTURES = resolve(__dirname, '../../fixtures');
export const fixture = (path: string): string => join(FIXTURES, path);

export interface Collected {
  records: SourceRecord[];
  problems: Problem[];
  /** Problems attached to records, and item problems, together. */
  all: Problem[];
}

export async function collect(paths: string[], options: ReadOptions = {}): Promise<Collected> {
  const records: SourceRecord[] = [];
  const problems: Problem[] = [];
  for await (const item of readSources(paths, options)) {
    if (item.kind === 'record') records.push(item.value);
    else problems.push(item.problem);
  }
  return { records, problems, all: [...problems, ...records.flatMap((r) => r.problems)] };
}

/** Read until the UserError; returns it with the records yielded before it. */
export async function readUntilError(paths: string[], options: ReadOptions = {}): Promise<{ error: UserError; records: SourceRecord[] }> {
  const records: SourceRecord[] = [];
  try {
    for await (const item of readSources(paths, options)) if (item.kind === 'record') records.push(item.value);
  } catch (err) {
    if (!(err instanceof UserError)) throw err;
    expectOneLine(err.message);
    return { error: err, records };
  }
  throw new Error(`expected a UserError reading ${paths.join(', ')}`);
}

/** A user-facing message: one line, no stack frames. */
export function expectOneLine(message: string): void {
  if (message.includes('\n') || /\s+at\s+\S+\s+\(/.test(message)) throw new Error(`not a one-line message: ${message}`);
}

export async function tempDir(): Promise<{
  dir: string;
  file: (name: string, content: string | Buffer) => Promise<string>;
  cleanup: () => Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), 'am-sources-'));
  return {
    dir,
    file: async (name, content) => {
      const path = join(dir, name);
      await writeFile(path, content);
      return path;
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

export function byId(records: SourceRecord[]): Map<string, SourceRecord> {
  return new Map(records.map((r) => [r.record.id, r]));
}
