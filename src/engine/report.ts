// Files a run writes beside its journal: the per-user report (no secrets) and the failures file (canonical
// NDJSON of the failed users, so a fixed subset can be rerun; it holds hashes and secrets, hence mode 0600).
// Invariant: the failures file (hashes and secrets) is 0600 and never written through a link.
import { existsSync, type WriteStream } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { openPrivate as openPrivateFile, openPrivateStream } from '../files/private.js';
import type { UserResult } from './events.js';
import type { ValidatedRecord } from './runner.js';
import { describeOrigin } from '../records/types.js';
import { signInLine } from './signin-migration.js';
import type { PlanOptions } from './plan/plan.js';

export interface RunPaths {
  journal: string;
  report: string;
  failures: string;
  /** Users whose hash the core cannot take (signin-migration.ts); written only when there are some. */
  signIn?: string;
}

/** The files as a finished run left them: the sign-in migration file only if a user needed it (made at its first line). */
export function pathsMade(paths: RunPaths): RunPaths {
  if (paths.signIn === undefined || existsSync(paths.signIn)) return paths;
  const { signIn: _none, ...made } = paths;
  return made;
}

/** `x.journal.ndjson` -> `x.report.ndjson`, `x.failures.ndjson`, `x.signin-migration.ndjson`; in a run folder
 * `journal.ndjson` -> `report.ndjson`, `failures.ndjson`, `signin-migration.ndjson`. */
export function pathsBesideJournal(journal: string): RunPaths {
  if (basename(journal) === 'journal.ndjson') {
    const dir = dirname(journal);
    return {
      journal,
      report: join(dir, 'report.ndjson'),
      failures: join(dir, 'failures.ndjson'),
      signIn: join(dir, 'signin-migration.ndjson'),
    };
  }
  const base = journal.replace(/\.journal\.ndjson$/, '').replace(/\.ndjson$|\.jsonl$/, '');
  return { journal, report: `${base}.report.ndjson`, failures: `${base}.failures.ndjson`, signIn: `${base}.signin-migration.ndjson` };
}

export interface ReportLine {
  id: string;
  outcome: UserResult['outcome'];
  source: string;
  /** For a user skipped or failed: the email it has in the source, so the report names it (ids alone say little). */
  email?: string;
  step?: string;
  status?: string;
  message?: string;
  /** `--update-existing` replaced the password hash of this user, already in the core. */
  replaced?: true;
}

export interface RunFiles {
  write(result: UserResult, input: ValidatedRecord): Promise<void>;
  close(): Promise<void>;
}

/** Resolves at once unless `stream` holds more than its high-water mark, else when it drains (or closes). */
export function drained(stream: NodeJS.WritableStream): Promise<void> {
  const s = stream as NodeJS.WritableStream & { writableNeedDrain?: boolean; destroyed?: boolean };
  if (s.writableNeedDrain !== true || s.destroyed === true) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      s.off('drain', done);
      s.off('close', done);
      s.off('error', done);
      resolve();
    };
    s.on('drain', done);
    s.on('close', done);
    s.on('error', done);
  });
}

function openPrivate(path: string): WriteStream {
  return openPrivateStream(path, 'w');
}

/**
 * A file of lines written in batches: one write per line cost the run about 10 us of CPU a user (a system call
 * and a thread-pool hop each). Lines are gathered and handed to the stream 64 KiB at a time, or 200 ms after the
 * first waiting one, so the file trails the run by a fraction of a second (the journal, not these files, is what
 * a resume trusts).
 */
class LineSink {
  private lines: string[] = [];
  private bytes = 0;
  private timer: NodeJS.Timeout | undefined;
  constructor(private readonly stream: WriteStream) {}

  put(line: string): Promise<void> {
    this.lines.push(line);
    this.bytes += line.length + 1;
    if (this.bytes >= 64 * 1024) return this.flush();
    this.timer ??= setTimeout(() => void this.flush(), 200).unref();
    return Promise.resolve();
  }

  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.lines.length === 0) return Promise.resolve();
    const text = this.lines.join('\n') + '\n';
    this.lines = [];
    this.bytes = 0;
    this.stream.write(text);
    return drained(this.stream);
  }

  async end(): Promise<void> {
    await this.flush();
    await new Promise<void>((resolve, reject) => {
      this.stream.once('error', reject);
      this.stream.end(() => resolve());
    });
  }
}

/** `x.journal.ndjson` -> `x.resume.txt` (in a run folder: `resume.txt`): the command that resumes a stopped run, whole (0600: it names key variables, never keys). */
export const resumeFileOf = (journal: string): string =>
  basename(journal) === 'journal.ndjson'
    ? join(dirname(journal), 'resume.txt')
    : `${pathsBesideJournal(journal).report.replace(/\.report\.ndjson$/, '')}.resume.txt`;

export async function writeResumeCommand(journal: string, command: string): Promise<string> {
  const path = resumeFileOf(journal);
  const fh = await openPrivateFile(path, 'w');
  try {
    await fh.writeFile(command + '\n');
  } finally {
    await fh.close();
  }
  return path;
}

/** `plan`: the run's settings, for what the sign-in migration file says of each user's policy. */
export function openRunFiles(paths: RunPaths, plan?: PlanOptions): RunFiles {
  const report = new LineSink(openPrivate(paths.report));
  const failures = new LineSink(openPrivate(paths.failures));
  // Created at its first line: most runs have no user whose hash the core cannot take.
  let signIn: LineSink | undefined;
  return {
    async write(result, input) {
      const line: ReportLine = { id: result.id, outcome: result.outcome, source: describeOrigin(input.origin) };
      if ((result.outcome === 'skipped' || result.outcome === 'failed') && input.record.email !== undefined)
        line.email = input.record.email;
      if (result.step !== undefined) line.step = result.step;
      if (result.status !== undefined) line.status = result.status;
      if (result.message !== undefined) line.message = result.message;
      if (result.replaced) line.replaced = true;
      await report.put(JSON.stringify(line));
      if (result.outcome === 'failed') await failures.put(JSON.stringify(input.record));
      const legacy = paths.signIn !== undefined ? signInLine(result, input, plan) : undefined;
      if (legacy) await (signIn ??= new LineSink(openPrivate(paths.signIn!))).put(JSON.stringify(legacy));
    },
    async close() {
      await Promise.all([report.end(), failures.end(), signIn?.end()]);
    },
  };
}
