// A small seeded random source (mulberry32): the sandbox's fault draw and the generators in tools/ use it. One seed
// gives one sequence on every run, so fixtures regenerate byte for byte and a fault rehearsal replays.
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  bytes(n: number): Buffer;
  /** Letters and digits, for readable passwords and ids. */
  word(n: number): string;
}

const ALNUM = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: (items) => items[Math.floor(next() * items.length)]!,
    bytes: (n) => {
      const out = Buffer.alloc(n);
      for (let i = 0; i < n; i++) out[i] = Math.floor(next() * 256);
      return out;
    },
    word: (n) => {
      let s = '';
      for (let i = 0; i < n; i++) s += ALNUM[Math.floor(next() * ALNUM.length)];
      return s;
    },
  };
}
