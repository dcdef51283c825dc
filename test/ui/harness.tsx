// Test harness for the wizard: render <App> with ink-testing-library and real services, press keys, and
// wait for frames (polling with a deadline, never a fixed sleep).
import { EventEmitter } from 'node:events';
import { render as inkRender } from 'ink';
import { render } from 'ink-testing-library';
import { App } from '../../src/ui/App.js';
import type { WizardServices } from '../../src/ui/services/types.js';
import type { WizardState } from '../../src/ui/state/types.js';

export const KEYS = {
  up: '\u001B[A',
  down: '\u001B[B',
  right: '\u001B[C',
  left: '\u001B[D',
  enter: '\r',
  escape: '\u001B',
  tab: '\t',
  backspace: '\u007F',
} as const;

export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Let React render, commit and run its effects (React's scheduler queues them with setImmediate): a frame can
 * be on screen before the new screen's key handlers are subscribed. Yields to the event loop; no fixed delay.
 */
export async function settle(): Promise<void> {
  for (let i = 0; i < 4; i += 1) await new Promise((r) => setImmediate(r));
}

/** A terminal of a chosen size that can be resized (ink-testing-library's is fixed at 100 columns). */
export class SizedStdout extends EventEmitter {
  frames: string[] = [];
  isTTY = true;
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
  }
  write = (frame: string) => {
    this.frames.push(frame);
    return true;
  };
  lastFrame = () => this.frames[this.frames.length - 1];
  resize(columns: number, rows: number) {
    this.columns = columns;
    this.rows = rows;
    this.emit('resize');
  }
}

function renderSized(tree: React.ReactElement, columns: number, rows: number) {
  const probe = render(<></>); // borrow ink-testing-library's stdin and stderr
  probe.unmount();
  const stdout = new SizedStdout(columns, rows);
  const instance = inkRender(tree, {
    stdout: stdout as never,
    stderr: probe.stderr as never,
    stdin: probe.stdin as never,
    debug: true,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  return { stdout, stdin: probe.stdin, frames: stdout.frames, lastFrame: stdout.lastFrame, unmount: instance.unmount };
}

export function renderWizard(
  services: WizardServices,
  profile?: string,
  size?: { columns: number; rows: number },
  initialState?: WizardState,
) {
  const app = <App services={services} profile={profile} initialState={initialState} />;
  const instance = size ? renderSized(app, size.columns, size.rows) : render(app);
  const frame = () => instance.lastFrame() ?? '';
  const until = async (text: string | RegExp, timeoutMs?: number) => {
    const found = await waitFor(
      () => (typeof text === 'string' ? frame().includes(text) : text.test(frame())) && frame(),
      `a frame with ${String(text)}`,
      timeoutMs,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n--- last frame ---\n${frame()}`);
    });
    await settle();
    return found;
  };
  /** Press one key and let React commit before the next one (several keys in one chunk see one render). */
  const press = async (...keys: (keyof typeof KEYS | string)[]) => {
    for (const k of keys) {
      instance.stdin.write(k in KEYS ? KEYS[k as keyof typeof KEYS] : k);
      await settle();
    }
  };
  return { ...instance, frame, until, press };
}

/**
 * From the keys screen to the preview, a profile's keys and source files taken as they are (the walk most wizard
 * tests begin with).
 */
export async function keysToPreview(w: Pick<ReturnType<typeof renderWizard>, 'until' | 'press'>): Promise<void> {
  await w.until('2/8 keys');
  await w.press('down', 'down', 'down', 'down', 'down', 'down', 'down', 'down', 'enter');
  await w.until('3/8 source files');
  await w.press('down', 'down', 'down', 'down', 'enter');
}

/** Services whose sandboxes can all be awaited to a full stop (their store written) before a temp folder goes. */
export function trackSandboxes(services: WizardServices): { services: WizardServices; stopAll(): Promise<void> } {
  const started: { stop(): Promise<void> }[] = [];
  return {
    services: {
      ...services,
      async startSandbox(opts) {
        const s = await services.startSandbox(opts);
        started.push(s);
        return s;
      },
    },
    async stopAll() {
      await Promise.all(started.map((s) => s.stop()));
    },
  };
}
