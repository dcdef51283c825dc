// The per-user state a journal holds, sized for millions of users: a finished user (imported or already
// present) is never run again from this journal, so it is kept as packed bytes outside the JS heap (its source
// id, and its outcome with the recipe user ids its steps produced); users with steps in progress or a failure
// keep their full step map.
// Invariant: a finished user is held packed and never run again from this journal; only unfinished or failed users keep
// a step map.
import { hashKey, KeyTable } from '../../records/key-table.js';
import { PackedStrings } from '../../records/packed-strings.js';
import type { JournalledStep, JournalledSteps, JournalledUser, UserOutcome } from './journal.js';

const SEP = '\u0000';
const OUTCOME_CODE = { imported: 'i', alreadyPresent: 'a' } as const;

/** A finished user's steps, unpacked on demand from `key\0recipeUserId\0key\0recipeUserId...`. */
export class FinishedSteps implements JournalledSteps {
  constructor(
    readonly packed: string,
    readonly size: number,
  ) {}
  get(key: string): JournalledStep | undefined {
    const parts = this.packed.split(SEP);
    for (let i = 0; i + 1 < parts.length; i += 2) {
      if (parts[i] === key) return { result: 'already', ids: { recipeUserId: parts[i + 1]! } };
    }
    return undefined;
  }
  recipeUserIds(): string[] {
    const parts = this.packed === '' ? [] : this.packed.split(SEP);
    return parts.filter((_, i) => i % 2 === 1);
  }
}

/** Read-only view the runner, verify and the journal check use. */
export interface JournalUsersView extends Iterable<[string, JournalledUser]> {
  get(user: string): JournalledUser | undefined;
  readonly size: number;
}

export class JournalUsers implements JournalUsersView {
  /** Users not finished (steps in progress, or failed): their step maps. */
  private readonly open = new Map<string, JournalledUser>();
  /** Finished users: outcome code, step count, then the packed step keys and recipe user ids. */
  private readonly done = new FinishedUsers();

  get size(): number {
    return this.open.size + this.done.size;
  }

  /** Users held with a step map of their own (unfinished or failed); every other one is packed. */
  get openCount(): number {
    return this.open.size;
  }

  get(user: string): JournalledUser | undefined {
    const open = this.open.get(user);
    if (open) return open;
    const packed = this.done.get(user);
    return packed === undefined ? undefined : unpack(packed);
  }

  /** A step entry: a finished user with new steps is being redone by a later run, so its steps start afresh. */
  step(user: string, key: string, step: JournalledStep): void {
    let u = this.open.get(user);
    if (!u) {
      this.done.delete(user);
      this.open.set(user, (u = { steps: new Map() }));
    }
    (u.steps as Map<string, JournalledStep>).set(key, step);
    u.intents?.delete(key);
  }

  /** A staged upload (write-ahead): the user is open again until its outcome; settled users have no `staged`. */
  staged(user: string, joined: number): void {
    this.reopen(user).staged = joined;
  }

  /** Write-ahead: the step is (about to be) sent; its own line, when it comes, settles it. */
  intent(user: string, key: string, who: Record<string, string>): void {
    const u = this.reopen(user);
    (u.intents ??= new Map()).set(key, who);
  }

  /** A user entry: a finished user is packed into one string; any other outcome keeps the steps. */
  outcome(user: string, outcome: UserOutcome): void {
    if (outcome === 'imported' || outcome === 'alreadyPresent') {
      const u = this.open.get(user);
      this.open.delete(user);
      this.done.set(user, pack(outcome, u?.steps));
      return;
    }
    const u = this.reopen(user);
    u.outcome = outcome;
    delete u.staged;
    // The run finished with the user: each intent before this line got its step line, or made nothing.
    delete u.intents;
  }

  /** The user's open entry; a finished user is unpacked back into one, keeping its steps. */
  private reopen(user: string): JournalledUser {
    let u = this.open.get(user);
    if (!u) {
      const was = this.done.get(user);
      this.done.delete(user);
      // As a map of its own: a later step line (a sync's, a rerun's) adds to it.
      u = { steps: was === undefined ? new Map() : new Map(stepEntries(unpack(was).steps)) };
      this.open.set(user, u);
    }
    return u;
  }

  *[Symbol.iterator](): IterableIterator<[string, JournalledUser]> {
    yield* this.open;
    for (const [user, packed] of this.done.entries()) yield [user, unpack(packed)];
  }
}

/** A finished user's packed steps as entries (each `already` with its recipe user id, as FinishedSteps answers). */
function stepEntries(steps: JournalledSteps): Array<[string, JournalledStep]> {
  if (!(steps instanceof FinishedSteps)) return [...(steps as Map<string, JournalledStep>)];
  const parts = steps.packed === '' ? [] : steps.packed.split(SEP);
  const out: Array<[string, JournalledStep]> = [];
  for (let i = 0; i + 1 < parts.length; i += 2) out.push([parts[i]!, { result: 'already', ids: { recipeUserId: parts[i + 1]! } }]);
  return out;
}

/** Built with join, which gives a flat string (a template or + would keep a tree of pieces alive per user). */
function pack(outcome: 'imported' | 'alreadyPresent', steps: JournalledSteps | undefined): string {
  const head = OUTCOME_CODE[outcome] + String(steps?.size ?? 0);
  if (steps instanceof FinishedSteps) return steps.packed === '' ? [head, ''].join(SEP) : [head, steps.packed].join(SEP);
  const parts: string[] = [head];
  for (const [key, step] of (steps as Map<string, JournalledStep> | undefined) ?? []) {
    if (step.ids.recipeUserId !== undefined) parts.push(key, step.ids.recipeUserId);
  }
  if (parts.length === 1) parts.push('');
  return parts.join(SEP);
}

function unpack(packed: string): JournalledUser {
  const sep = packed.indexOf(SEP);
  return {
    outcome: packed[0] === 'i' ? 'imported' : 'alreadyPresent',
    steps: new FinishedSteps(packed.slice(sep + 1), Number(packed.slice(1, sep))),
  };
}

/** Where a finished user's source id was claimed by another one (a removed entry, or a redone user's old one). */
const GONE = 2 ** 31 - 2;

/**
 * Finished users' packed strings by source id: a 64-bit hash of the id in a KeyTable gives the index of the id and
 * its packed string in two PackedStrings (about 30 bytes plus the id and the packed string per user, none of it
 * objects for the garbage collector); the id is compared on every hit, and the rare id whose hash another
 * finished user holds goes to a small map.
 */
class FinishedUsers {
  private readonly table = new KeyTable();
  private readonly users = new PackedStrings();
  private readonly packed = new PackedStrings();
  private collided: Map<string, string> | undefined;
  private live = 0;

  get size(): number {
    return this.live;
  }

  get(user: string): string | undefined {
    hashKey(user);
    const i = this.table.getHashed();
    if (i !== undefined && i !== GONE && this.users.get(i) === user) return this.packed.get(i);
    return this.collided?.get(user);
  }

  set(user: string, packed: string): void {
    this.delete(user);
    hashKey(user);
    const i = this.table.getHashed();
    if (i === undefined || i === GONE) {
      this.table.setHashed(this.users.length);
      this.users.push(user);
      this.packed.push(packed);
    } else {
      (this.collided ??= new Map()).set(user, packed);
    }
    this.live++;
  }

  delete(user: string): void {
    hashKey(user);
    const i = this.table.getHashed();
    if (i !== undefined && i !== GONE && this.users.get(i) === user) {
      this.table.setHashed(GONE);
      this.live--;
    } else if (this.collided?.delete(user)) {
      this.live--;
    }
  }

  /** In the order they last finished: an entry replaced by a later finish of the same user is skipped. */
  *entries(): IterableIterator<[string, string]> {
    for (let i = 0; i < this.users.length; i++) {
      const user = this.users.get(i);
      hashKey(user);
      if (this.table.getHashed() === i) yield [user, this.packed.get(i)];
    }
    if (this.collided) yield* this.collided;
  }
}
