// Drives the built wizard in a detached tmux session: send keys, read the screen (capture-pane), wait for text.
import { execa } from 'execa';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach } from 'vitest';

export const BIN = fileURLToPath(new URL('../../bin/auth-migrate.js', import.meta.url));
export const TMUX = (process.env.PATH ?? '')
  .split(delimiter)
  .concat('/usr/bin')
  .map((d) => join(d, 'tmux'))
  .find((p) => existsSync(p));

export interface TmuxDriver {
  /** Start `auth-migrate <args>` in `cwd` (the pane stays after it exits and shows `EXIT CODE n`). */
  launch(args: string[], o: { cwd: string; env: Record<string, string>; columns: number; rows: number }): Promise<void>;
  capture(): Promise<string>;
  /** The screen once it contains `text` (or matches it). */
  until(text: string | RegExp, timeoutMs?: number): Promise<string>;
  /** The screen once `ok` holds for it. */
  untilScreen(ok: (screen: string) => boolean, what: string, timeoutMs?: number): Promise<string>;
  /** Keys one at a time, each waited for (the screen changes). */
  press(...keys: string[]): Promise<void>;
  /** Literal text in one write. */
  type(text: string): Promise<void>;
  /** Raw `tmux send-keys` arguments in one call (e.g. an arrow and characters: one read for the wizard). */
  sendKeys(...args: string[]): Promise<void>;
  /** Paste a file's text as one bracketed burst (tmux load-buffer + paste-buffer), as a terminal paste arrives. */
  paste(file: string): Promise<void>;
  resize(columns: number, rows: number): Promise<void>;
  kill(): Promise<void>;
  close(): Promise<void>;
}

export function tmuxDriver(socket: string, session = 'wizard'): TmuxDriver {
  const tmux = async (...args: string[]) => (await execa(TMUX!, ['-S', socket, ...args])).stdout;
  const capture = () => tmux('capture-pane', '-p', '-t', session);
  const waitForChange = async (before: string, what: string) => {
    const deadline = Date.now() + 10_000;
    while ((await capture()) === before) {
      if (Date.now() > deadline) throw new Error(`the screen did not change after ${what}\n--- screen ---\n${before}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return {
    async launch(args, o) {
      const cmd = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ');
      // On a line of its own: the last frame may end at the last column, where the cursor stays.
      const script = `cd '${o.cwd}' && ${cmd}; code=$?; echo; echo "EXIT CODE $code"; sleep 600`;
      const vars = Object.entries(o.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
      await tmux('new-session', '-d', '-s', session, '-x', String(o.columns), '-y', String(o.rows), ...vars, 'sh', '-c', script);
    },
    capture,
    async until(text, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const screen = await capture();
        if (typeof text === 'string' ? screen.includes(text) : text.test(screen)) return screen;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(text)}\n--- screen ---\n${screen}`);
        await new Promise((r) => setTimeout(r, 30));
      }
    },
    async untilScreen(ok, what, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const screen = await capture();
        if (ok(screen)) return screen;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n--- screen ---\n${screen}`);
        await new Promise((r) => setTimeout(r, 30));
      }
    },
    async press(...keys) {
      for (const key of keys) {
        const before = await capture();
        await tmux('send-keys', '-t', session, key);
        await waitForChange(before, key);
      }
    },
    async type(text) {
      const before = await capture();
      await tmux('send-keys', '-t', session, '-l', text);
      await waitForChange(before, `typing ${text.length} characters`);
    },
    async sendKeys(...args) {
      await tmux('send-keys', '-t', session, ...args);
    },
    async paste(file) {
      await tmux('load-buffer', '-b', 'paste', file);
      await tmux('paste-buffer', '-b', 'paste', '-t', session);
    },
    async resize(columns, rows) {
      await tmux('resize-window', '-t', session, '-x', String(columns), '-y', String(rows));
    },
    async kill() {
      await tmux('kill-session', '-t', session);
    },
    async close() {
      await execa(TMUX!, ['-S', socket, 'kill-server'], { reject: false });
    },
  };
}

/**
 * A driver on a socket in a temp folder of its own (`dir`, for the test's files too), with the hooks a test file
 * needs: the session killed after each test, the tmux server closed and the folder removed after all of them. Call it
 * at the top level of a test file.
 */
export function tmuxInTempDir(prefix: string): { dir: string; t: TmuxDriver } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const t = tmuxDriver(join(dir, 'tmux.sock'));
  afterEach(async () => {
    if (TMUX) await t.kill().catch(() => undefined);
  });
  afterAll(async () => {
    if (TMUX) await t.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, t };
}
