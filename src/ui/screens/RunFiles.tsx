// What the run wrote and where, on the results screen: its files (the run folder and the names in it, or each
// path), the sandbox store, how to resume a stopped run, and the sign-in migration's counts. A file an undo retired
// (or never written) is left out, looked up on disk again whenever verify or an undo may have changed them.
import { Box, Text } from 'ink';
import { useEffect, useState } from 'react';
import { access } from 'node:fs/promises';
import { sep } from 'node:path';
import { rerunText } from '../../operations/rerun.js';
import type { RunOutcome, TargetConnection, VerifyOutcome } from '../services/types.js';
import type { Task } from '../state/types.js';

/**
 * Where every file the run (and verify) wrote is, and the sandbox store, as lines to wrap (never cut): with a run
 * folder, the folder then the names inside it on one line; otherwise each path.
 */
export function runFileLines(
  o: RunOutcome,
  sandbox: TargetConnection['sandbox'],
  verify: Task<VerifyOutcome>,
  /** Whether a file is there now (an undo retires the journal; a check file may never have been written). */
  exists: (path: string) => boolean = () => true,
): string[] {
  if (!o.paths) return ['files: none, nothing was written (no run folder, no journal)'];
  const files: [string, string | undefined][] = [
    ['journal', o.paths.journal],
    ['report', o.paths.report],
    ['failures', o.paths.failures],
    ['resume command', o.resumeFile],
    ['sign-in migration', o.paths.signIn],
    ['TOTP checks', verify.status === 'done' ? verify.value.totpChecksFile : undefined],
  ];
  const store = sandbox ? [`store ${sandbox.storePath}${sandbox.temporary ? ' (temporary, kept: the journal points at it)' : ''}`] : [];
  const folder = o.folder;
  const present = files.filter((f): f is [string, string] => f[1] !== undefined && exists(f[1]));
  if (folder && present.every(([, p]) => p.startsWith(folder + sep))) {
    return [`run folder ${folder}`, `  ${present.map(([, p]) => p.slice(folder.length + 1)).join(' · ')}`, ...store];
  }
  return [...present.map(([what, p]) => `${what} ${p}`), ...store];
}

/** The counts `auth-migrate signin-status` prints, in one line. */
export function signInStatusLine(s: NonNullable<RunOutcome['signInStatus']>): string {
  const per = Object.entries(s.byAlgorithm)
    .filter(([, n]) => n > 0)
    .map(([a, n]) => `${a} ${n}`)
    .join(', ');
  return `sign-in migration: ${s.waiting} waiting${per ? ` (${per})` : ''} · signed in ${s.ended['sign-in']} · password set ${s.ended['password-set']} · expired ${s.ended.expired} (auth-migrate signin-status)`;
}

/** Which of `paths` are there, looked up again when `when` changes (undefined until the first look). */
function useExistingFiles(paths: string[], when: string): Set<string> | undefined {
  const [found, setFound] = useState<Set<string> | undefined>(undefined);
  const key = `${when}\n${paths.join('\n')}`;
  useEffect(() => {
    let live = true;
    void Promise.all(
      paths.map((p) =>
        access(p).then(
          () => p,
          () => undefined,
        ),
      ),
    ).then((there) => {
      if (live) setFound(new Set(there.filter((p): p is string => p !== undefined)));
    });
    return () => {
      live = false;
    };
  }, [key]);
  return found;
}

/**
 * Which of the run's files are there now. Called by the results screen itself (not by RunFiles, which is not shown
 * while the sign-in panel is open), so what it found is kept while the panel is open.
 */
export function useRunFilesPresent(o: RunOutcome | undefined, verify: Task<VerifyOutcome>, undone: boolean): Set<string> | undefined {
  const listed = o ? [o.paths?.journal, o.paths?.report, o.paths?.failures, o.resumeFile, o.paths?.signIn] : [];
  if (verify.status === 'done') listed.push(verify.value.totpChecksFile);
  return useExistingFiles(
    listed.filter((p): p is string => p !== undefined),
    `${verify.status}:${String(undone)}`,
  );
}

export interface RunFilesProps {
  o: RunOutcome;
  sandbox: TargetConnection['sandbox'];
  verify: Task<VerifyOutcome>;
  /** From useRunFilesPresent (undefined until the first look: every file is listed). */
  present: Set<string> | undefined;
}

/** The files of the run's outcome `o` that are there now, how to resume it, and its sign-in counts. */
export function RunFiles({ o, sandbox, verify, present }: RunFilesProps) {
  return (
    <Box flexDirection="column" marginTop={1}>
      {runFileLines(o, sandbox, verify, (p) => present?.has(p) ?? true).map((line, i) => (
        <Text key={i} wrap="wrap">
          {line}
        </Text>
      ))}
      {o.stopped && o.stopped !== 'refused' ? <Text wrap="wrap">resume: {rerunText(o.rerun)}</Text> : null}
      {o.signInStatus ? <Text wrap="wrap">{signInStatusLine(o.signInStatus)}</Text> : null}
    </Box>
  );
}
