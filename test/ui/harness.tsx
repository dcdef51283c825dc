// Test harness for the wizard: render <App> with ink-testing-library and real services, press keys, and
// wait for frames (polling with a deadline, never a fixed sleep).
import { render } from 'ink-testing-library';
import { App } from '../../src/ui/App.js';
import type { WizardServices } from '../../src/ui/services/types.js';

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

export async function waitFor<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 15_000): Promise<T> {
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

export function renderWizard(services: WizardServices, profile?: string) {
  const instance = render(<App services={services} profile={profile} />);
  const frame = () => instance.lastFrame() ?? '';
  const until = async (text: string | RegExp, timeoutMs?: number) => {
    const found = await waitFor(() => (typeof text === 'string' ? frame().includes(text) : text.test(frame())) && frame(), `a frame with ${String(text)}`, timeoutMs).catch((err: Error) => {
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
