// Keys typed in the same read as a key that moves the focus (`↓abc` arrives as one chunk): Ink hands every key
// of the chunk to the listeners of the last render, so the text would reach the field that had the focus (or,
// when that was no text field, nobody). The relay notes each focus-moving key; the text keys after it in the
// same burst are left by the fields and given, once React has committed the move, to the field that has the
// focus then. Per Ink instance (its input emitter).
import { useStdin, type Key } from 'ink';
import type { EventEmitter } from 'node:events';
import { useLayoutEffect } from 'react';

type Apply = (input: string, key: Key) => void;

interface Relay {
  /** The text field that has the focus as of the last commit. */
  focused?: Apply;
  /** Events seen, and the one that moved the focus in the current burst (undefined: none). */
  events: number;
  movedAt?: number;
  /** Commits seen (useCommitMark), and the keys waiting for the commit of a move. */
  commits: number;
  queue: { input: string; key: Key }[];
}

const relays = new WeakMap<object, Relay>();
const relayOf = (instance: object): Relay =>
  relays.get(instance) ?? relays.set(instance, { events: 0, commits: 0, queue: [] }).get(instance)!;

/** Raw keys that move the focus or change the screen: ↑ ↓ (CSI and SS3), tab, shift-tab, esc, pgup, pgdn, enter. */
const MOVES = new Set(['\u001b[A', '\u001b[B', '\u001bOA', '\u001bOB', '\t', '\u001b[Z', '\u001b', '\u001b[5~', '\u001b[6~', '\r', '\n']);

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/** The (input, key) a field gets for a raw chunk of text (or a ← → arrow) that followed a move. */
export function keyOf(data: string): { input: string; key: Key } | undefined {
  if (data === '\u001b[D' || data === '\u001bOD') return { input: '', key: { ...NO_KEY, leftArrow: true } };
  if (data === '\u001b[C' || data === '\u001bOC') return { input: '', key: { ...NO_KEY, rightArrow: true } };
  if (data.startsWith('\u001b')) return undefined;
  return { input: data, key: NO_KEY };
}

/** Up to ~100 ms for the commit: a move that changed nothing (↓ on the last row) commits nothing. */
const MAX_WAITS = 50;

function deliverAfterCommit(relay: Relay, commitsBefore: number, waits: number): void {
  if (relay.commits === commitsBefore && waits < MAX_WAITS) {
    setTimeout(() => deliverAfterCommit(relay, commitsBefore, waits + 1), 2);
    return;
  }
  const queue = relay.queue.splice(0);
  for (const e of queue) relay.focused?.(e.input, e.key);
}

/** In every frame: counts the commits, so keys after a focus move wait for the move's commit. */
export function useCommitMark(): void {
  const { internal_eventEmitter: instance } = useStdin();
  useLayoutEffect(() => {
    if (instance) relayOf(instance).commits += 1;
  });
}

/** In the wizard's root: watch every raw key before any other listener (prepended), as long as the app lives. */
export function useFocusHandover(): void {
  const { internal_eventEmitter: instance } = useStdin();
  useLayoutEffect(() => {
    if (!instance) return undefined;
    const relay = relayOf(instance);
    const onInput = (data: string) => {
      relay.events += 1;
      if (MOVES.has(data)) {
        if (relay.movedAt === undefined) {
          relay.movedAt = relay.events;
          // The burst ends when the loop over the chunk does; React's commit of the move is queued before this.
          queueMicrotask(() => (relay.movedAt = undefined));
        }
        return;
      }
      if (relay.movedAt === undefined) return;
      const event = keyOf(data);
      if (!event) return;
      // Given once React has committed the move (a commit after this key), in the order typed.
      relay.queue.push(event);
      if (relay.queue.length === 1) deliverAfterCommit(relay, relay.commits, 0);
    };
    instance.prependListener('input', onInput);
    return () => {
      instance.removeListener('input', onInput);
    };
  }, [instance]);
}

/** Make `apply` the focused field of this instance; the returned function undoes it (if still the focused one). */
export function focusedInput(instance: EventEmitter | undefined, apply: Apply): () => void {
  if (!instance) return () => {};
  const relay = relayOf(instance);
  relay.focused = apply;
  return () => {
    if (relay.focused === apply) relay.focused = undefined;
  };
}

/** True when this event follows a focus move in the same burst: the relay delivers it, the field must not. */
export function handedOver(instance: EventEmitter | undefined): boolean {
  if (!instance) return false;
  const relay = relays.get(instance);
  return relay?.movedAt !== undefined && relay.movedAt < relay.events;
}
