// The write session (src/operations/session.ts) driven in process, as the gh CLI tests its commands through an
// options struct without argv: run, sync and rollback each go through it against the real sandbox core on a real
// port, with a fake shell (the test answers the questions and keeps the events). What the session owns is checked:
// the refusal of a real core when nothing can ask, the question and its answer, the journal's end line, the closing
// of the connection, and a stop (Ctrl-C) that leaves a resumable journal and its rerun file.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Confirmation } from '../../src/operations/confirm.js';
import { rollbackMigration, type RollbackOperationEvent } from '../../src/operations/rollback.js';
import { startRun, type RunOutcome } from '../../src/operations/run.js';
import { needsYesLine } from '../../src/operations/session.js';
import { runRequestOf } from '../../src/commands/run-request.js';
import type { RunRequest } from '../../src/operations/requests.js';
import { startSync } from '../../src/operations/sync.js';
import { connectTarget, type ConnectOptions } from '../../src/operations/target.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { usersInTenant } from '../../src/core-client/users-count.js';
import { client, LICENSE } from '../support/cli.js';
import { writeNdjson } from '../support/users.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const user = (n: number) => ({ id: `u${n}`, email: `u${n}@example.test`, password: { hash: BCRYPT } });
let dir: string;
let core: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-session-'));
  core = await startSandbox({ port: 0, store: join(dir, 'core.json'), licenseKey: LICENSE });
});
afterAll(async () => {
  await core.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A fake shell: answers the question with `answer`, keeps the events and the connections it opened. */
function fakeShell<E extends { type: string }>(answer: boolean, extra: { yes?: boolean; canAsk?: boolean } = {}) {
  const events: E[] = [];
  const asked: Confirmation[] = [];
  const opened: Array<{ closed: boolean }> = [];
  return {
    events,
    asked,
    opened,
    shell: {
      ...extra,
      async connect(r: RunRequest, o: ConnectOptions) {
        const conn = await connectTarget(r, o);
        const seen = { closed: false };
        opened.push(seen);
        return { ...conn, close: async () => ((seen.closed = true), conn.close()) };
      },
      confirm: async (c: Confirmation) => (asked.push(c), answer),
      onEvent: (e: E) => void events.push(e),
    },
  };
}

/** The run's request of `file` into the sandbox core by URL (a real core to the session: it asks). */
const requestOf = (file: string, out: string, extra: string[] = []) =>
  runRequestOf(
    { core: core.url, out, via: 'steps' },
    { cwd: dir, env: { AUTH_MIGRATE_LICENSE_KEY: LICENSE }, positionals: [file], rerunArgs: ['run', file, ...extra] },
  );

const endLines = (journal: string) =>
  readFileSync(journal, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; reason?: string })
    .filter((l) => l.type === 'end')
    .map((l) => l.reason);

const usersThere = async (): Promise<number> => (await usersInTenant(client(core.url))) ?? -1;

describe('the write session, in process over the sandbox core', () => {
  it('refuses a real core when nothing can ask and no --yes: before anything is read, connected or made', async () => {
    const out = join(dir, 'unattended');
    const f = fakeShell(true, { canAsk: false });
    const r = await requestOf(join(dir, 'none.ndjson'), out);
    const run = startRun(r, { ...f.shell, connect: (o) => f.shell.connect(r, o) });
    const err = (await run.done.catch((e: unknown) => e)) as Error & { exitCode: number };
    expect(err.message).toBe(needsYesLine('run', core.url));
    expect(err.exitCode).toBe(2);
    expect(f.opened).toHaveLength(0);
    expect(f.events).toHaveLength(0); // the export (which does not exist) was not even read
    expect(existsSync(out)).toBe(false);
  });

  it('run: asks, and a no writes nothing and makes no folder; a yes runs, ends the journal, closes the connection', async () => {
    const file = join(dir, 'users.ndjson');
    writeNdjson(file, [user(1), user(2), user(3)]);
    const out = join(dir, 'runs');
    const r = await requestOf(file, out);
    const no = fakeShell<{ type: string }>(false);
    const refused = await startRun(r, { ...no.shell, connect: (o) => no.shell.connect(r, o) }).done;
    expect(refused.stopped).toBe('refused');
    expect(refused.refusal?.code).toBe('not-confirmed');
    expect(no.asked.map((c) => [c.action, c.typed, c.usersThere])).toEqual([['run', new URL(core.url).host, 0]]);
    expect(no.opened).toEqual([{ closed: true }]);
    expect(existsSync(out)).toBe(false);
    expect(await usersThere()).toBe(0);

    const yes = fakeShell<{ type: string }>(true);
    const done: RunOutcome = await startRun(r, { ...yes.shell, connect: (o) => yes.shell.connect(r, o) }).done;
    expect(done.exitCode).toBe(0);
    expect(done.totals.imported).toBe(3);
    expect(yes.asked).toHaveLength(1);
    const types = yes.events.map((e) => e.type);
    expect(types.indexOf('confirm')).toBeLessThan(types.indexOf('run-folder'));
    expect(types.indexOf('run-folder')).toBeLessThan(types.indexOf('run-started'));
    expect(endLines(done.paths!.journal)).toEqual(['finished']);
    expect(yes.opened).toEqual([{ closed: true }]);
    expect(await usersThere()).toBe(3);
  });

  it('run: a stop (Ctrl-C) once writing leaves the journal ended "stopped" and the rerun file beside it', async () => {
    const file = join(dir, 'many.ndjson');
    writeNdjson(
      file,
      Array.from({ length: 200 }, (_, i) => user(100 + i)),
    );
    const r = await requestOf(file, join(dir, 'stops'));
    const f = fakeShell<{ type: string }>(true);
    const run = startRun(r, {
      ...f.shell,
      connect: (o) => f.shell.connect(r, o),
      onEvent: (e) => {
        f.events.push(e);
        if (e.type === 'user-done') run.stop();
      },
    });
    const o = await run.done;
    expect(o.stopped).toBe('requested');
    expect(o.exitCode).toBe(130);
    expect(o.totals.imported).toBeLessThan(200);
    expect(endLines(o.paths!.journal)).toEqual(['stopped']);
    expect(readFileSync(o.resumeFile!, 'utf8')).toContain(o.paths!.journal);
    expect(f.opened).toEqual([{ closed: true }]);
  });

  it('sync and rollback: each asks through the session, writes, ends its journal and closes', async () => {
    const file = join(dir, 'users.ndjson');
    writeNdjson(file, [user(1), user(2), user(3), user(4)]);
    const r = await requestOf(file, join(dir, 'runs'), ['--sync']);
    const before = await usersThere();
    const s = fakeShell<{ type: string }>(true);
    const sync = await startSync({ ...r, sync: { removeMissing: false } }, { ...s.shell, connect: (o) => s.shell.connect(r, o) }).done;
    expect(s.asked.map((c) => c.action)).toEqual(['sync']);
    expect(sync.applied).toEqual({ new: 1 });
    expect(endLines(sync.paths!.journal)).toEqual(['finished']);
    expect(s.opened).toEqual([{ closed: true }]);
    const there = await usersThere();
    expect(there).toBe(before + 1);

    // The sync first (one history per migration), asked about with the typed host; a no removes nothing.
    const undo = async (journal: string, answer: boolean) => {
      const f = fakeShell<RollbackOperationEvent>(answer);
      const request = { journal, force: false, concurrency: 4, by: 'session test', dryRun: false };
      const o = await rollbackMigration(request, { ...f.shell, connect: (_t, c) => f.shell.connect(r, c) });
      return { o, f };
    };
    const declined = await undo(sync.paths!.journal, false);
    expect(declined.o.refusal?.message).toBe(`not confirmed: nothing was removed from ${core.url}`);
    expect(declined.f.asked.map((c) => [c.action, c.typed])).toEqual([['rollback', new URL(core.url).host]]);
    expect(declined.f.opened).toEqual([{ closed: true }]);
    expect(await usersThere()).toBe(there);
    const undone = await undo(sync.paths!.journal, true);
    expect(undone.o.summary?.removed).toBe(1);
    expect(undone.f.asked[0]!.effects[0]).toContain('would remove 1 users');
    expect(await usersThere()).toBe(there - 1);
  });
});
