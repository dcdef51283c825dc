// Composite keys made of a few parts that repeat for every login method (app, tenant, recipe, kind), joined once
// and reused. The indexes look a scope up for every record they take: a reused string keeps its hash, where a new
// join is built and hashed again each time (at a million users, a large share of start-up outside parsing).
import { key } from './records.js';

interface Node {
  joined?: string;
  next: Map<string, Node>;
}

/** Bounded, in case parts are not the few repeated strings this is for. */
const LIMIT = 10_000;
const root: Node = { next: new Map() };
let nodes = 0;

/** `key(...parts)`, the same string each time for the same parts. */
export function scopeKey(...parts: string[]): string {
  let node = root;
  for (const p of parts) {
    let child = node.next.get(p);
    if (!child) {
      if (nodes >= LIMIT) return key(...parts);
      node.next.set(p, (child = { next: new Map() }));
      nodes++;
    }
    node = child;
  }
  return (node.joined ??= key(...parts));
}
