// The wizard's one input path. Every key the wizard reads comes through here: a read from the terminal is split
// into keystrokes (split.ts), and each keystroke is handed to the key handlers of the screen as the keystroke
// before it left it: React renders in between, so no handler sees half a burst or the state of an older render.
// Screens and fields never call Ink's useInput; they subscribe with useKeystroke. Command handlers (useKeys) hear
// a keystroke before text fields (Input), and a handler that moves the focus claims the keystroke so the field
// the focus moved to does not take it too. A handler that starts a change of screen that ends later (a profile
// created or opened) holds the keystrokes after it until the new screen is drawn, so they reach that screen.
import { useInput, useStdin, type Key } from 'ink';
import { createContext, useCallback, useContext, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { splitKeystrokes } from './split.js';

/** One printable character (not a control key, not an escape sequence). */
const isText = (k: string) => [...k].length === 1 && k >= ' ' && k !== '\u007f';

/** How long a keystroke waits for the render of the one before it, at most. */
const COMMIT_WAIT_MS = 1000;
/** How long keystrokes wait for a screen change held by `hold`, at most (the keyboard never freezes). */
const HOLD_WAIT_MS = 10_000;

/** Returns true when the keystroke did something beyond typing into a field (a command, a submit). */
export type KeyHandler = (input: string, key: Key) => boolean | void;

interface Subscriber {
  handler: { current: KeyHandler };
  active: { current: () => boolean };
  layer: 'command' | 'text';
}

interface Keyboard {
  subscribe(s: Subscriber): () => void;
  /** The keystroke being handed out moved the focus: no text field takes it. */
  claim(): void;
  claimed(): boolean;
  /** The keystroke being handled started a change of screen that ends with `done`: later keystrokes wait for it. */
  hold(done: Promise<unknown>): void;
}

const KeyboardContext = createContext<Keyboard | undefined>(undefined);

/** What the keyboard's users reach: subscribe to keystrokes, and claim the one being handed out. */
function keyboardOver(state: {
  current: { subscribers: Subscriber[]; seq: number; claimed: number; holds: Promise<unknown>[] };
}): Keyboard {
  return {
    subscribe(s) {
      state.current.subscribers.push(s);
      return () => {
        state.current.subscribers = state.current.subscribers.filter((x) => x !== s);
      };
    },
    claim() {
      state.current.claimed = state.current.seq;
    },
    claimed() {
      return state.current.claimed === state.current.seq;
    },
    hold(done) {
      state.current.holds.push(done);
    },
  };
}

/** Waits for the changes of screen the keystrokes so far started (Keyboard.hold), each until its screen is drawn. */
async function heldScreens(s: { holds: Promise<unknown>[]; drawn: (() => void) | undefined }, render: () => void): Promise<void> {
  while (s.holds.length > 0) {
    const holds = s.holds.splice(0);
    await Promise.race([Promise.allSettled(holds), new Promise((r) => setTimeout(r, HOLD_WAIT_MS).unref())]);
    await new Promise<void>((resolve) => {
      s.drawn = resolve;
      setTimeout(resolve, COMMIT_WAIT_MS).unref();
      render();
    });
  }
}

function useKeyboardCore(): Keyboard {
  const { internal_eventEmitter: events } = useStdin();
  const state = useRef({
    subscribers: [] as Subscriber[],
    seq: 0,
    claimed: -1,
    queue: [] as string[],
    draining: false,
    replaying: false,
    drawn: undefined as (() => void) | undefined,
    acted: false,
    holds: [] as Promise<unknown>[],
  });
  // Bumped with every keystroke handed out: React renders it in the same pass as whatever the handlers changed,
  // so its commit (the layout effect below) says the screen now stands where the keystroke left it.
  const [tick, setTick] = useState(0);
  useLayoutEffect(() => {
    const drawn = state.current.drawn;
    state.current.drawn = undefined;
    drawn?.();
  }, [tick]);

  const keyboard = useMemo<Keyboard>(() => keyboardOver(state), []);

  // Every read is caught before Ink parses it for the handler below, split into keystrokes and queued; the queue
  // replays them one at a time, each once React has committed what the one before it did.
  useLayoutEffect(() => {
    if (!events) return;
    const s = state.current;
    const drain = async () => {
      // Begun after the read that queued it has gone past every listener.
      await Promise.resolve();
      while (s.queue.length > 0) {
        const next = s.queue.shift()!;
        const drawn = new Promise<void>((resolve) => {
          s.drawn = resolve;
          // Never wait for ever: a wizard being torn down commits nothing more.
          setTimeout(resolve, COMMIT_WAIT_MS).unref();
        });
        s.replaying = true;
        s.acted = false;
        try {
          events.emit('input', next);
        } finally {
          s.replaying = false;
        }
        // A character typed into a field changes no one's handlers (the field keeps its text in a ref): the next
        // character goes on at once. Anything else (a command, a submit, a control key) waits for its render.
        if (s.acted || !isText(next) || !isText(s.queue[0] ?? '')) await drawn;
        // A change of screen in flight (a profile being created or opened): the keys after it are for the new screen.
        await heldScreens(s, () => setTick((t) => t + 1));
      }
      s.draining = false;
    };
    const onRaw = (data: string) => {
      if (s.replaying) return;
      s.queue.push(...splitKeystrokes(data));
      if (!s.draining) {
        s.draining = true;
        void drain();
      }
    };
    events.prependListener('input', onRaw);
    return () => {
      events.removeListener('input', onRaw);
    };
  }, [events]);

  const deliver = useCallback((input: string, key: Key) => {
    const s = state.current;
    if (!s.replaying) return;
    s.seq += 1;
    // Who hears this keystroke is settled before anyone handles it: a handler that opens a field does not hand
    // the same keystroke to that field.
    const hearing = [...s.subscribers.filter((x) => x.layer === 'command'), ...s.subscribers.filter((x) => x.layer === 'text')].filter(
      (x) => x.active.current(),
    );
    for (const x of hearing) if (s.subscribers.includes(x) && x.handler.current(input, key) === true) s.acted = true;
    setTick((t) => t + 1);
  }, []);
  useInput(deliver);
  return keyboard;
}

export function KeyboardProvider({ children }: { children: ReactNode }) {
  const keyboard = useKeyboardCore();
  return <KeyboardContext.Provider value={keyboard}>{children}</KeyboardContext.Provider>;
}

function useKeyboard(): Keyboard {
  const keyboard = useContext(KeyboardContext);
  if (!keyboard) throw new Error('a key handler outside <KeyboardProvider>');
  return keyboard;
}

/**
 * Hear keystrokes, one at a time. `isActive` is asked when a keystroke arrives (a function: at that moment, from
 * the screen's refs). The handler of the latest render is the one called.
 */
export function useKeystroke(
  handler: KeyHandler,
  options: { isActive?: boolean | (() => boolean); layer?: 'command' | 'text' } = {},
): void {
  const keyboard = useKeyboard();
  const handlerRef = useRef(handler);
  handlerRef.current = handler;
  const { isActive = true } = options;
  const activeRef = useRef<() => boolean>(() => true);
  activeRef.current = typeof isActive === 'function' ? isActive : () => isActive;
  const layer = options.layer ?? 'command';
  useLayoutEffect(() => keyboard.subscribe({ handler: handlerRef, active: activeRef, layer }), [keyboard, layer]);
}

/** Hold the keystrokes after this one until `done` settles and its screen is drawn (see Keyboard.hold). */
export function useKeyHold(): (done: Promise<unknown>) => void {
  return useKeyboard().hold;
}

/** Claim the keystroke being handled (a move), and ask whether it was claimed (a field). */
export function useKeyClaim(): { claim(): void; claimed(): boolean } {
  const keyboard = useKeyboard();
  return useMemo(() => ({ claim: keyboard.claim, claimed: keyboard.claimed }), [keyboard]);
}
