// A key that moves the focus belongs to the move: the field that gets the focus from it must not take it too
// (an enter that moved on would submit the next field, the `n` that opened a name prompt would be typed in it).
// Ink gives each key to every listener in turn, in an order that changes as listeners re-register, so a move
// claims the key being read and fields skip a claimed key. Keys are counted per Ink instance by a listener that
// runs before all others (prepended once, living as long as the instance's emitter).
import { useStdin } from 'ink';
import type { EventEmitter } from 'node:events';
import { useMemo } from 'react';

interface Count {
  seq: number;
  claimed: number;
}

const counts = new WeakMap<EventEmitter, Count>();

function countOf(events: EventEmitter): Count {
  let count = counts.get(events);
  if (!count) {
    const c: Count = { seq: 0, claimed: -1 };
    events.prependListener('input', () => {
      c.seq += 1;
    });
    counts.set(events, c);
    count = c;
  }
  return count;
}

export interface KeyClaim {
  /** The key being read moved the focus: no field takes it. */
  claim(): void;
  /** Whether the key being read was claimed by a move. */
  claimed(): boolean;
}

export function useKeyClaim(): KeyClaim {
  const { internal_eventEmitter: events } = useStdin();
  return useMemo(() => {
    const count = events ? countOf(events) : undefined;
    return {
      claim: () => {
        if (count) count.claimed = count.seq;
      },
      claimed: () => count !== undefined && count.claimed === count.seq,
    };
  }, [events]);
}
