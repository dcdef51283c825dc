// Puts each finished user's fingerprint on the journal line that finishes it, whatever the `--via` path: the
// engine (runner.ts) notes the fingerprint when it admits a user and hands the strategies this journal, whose
// append adds it to that user's `imported` or `alreadyPresent` line (the same line, so the same group commit).
// Invariant: a fingerprint is added only to a user line that finishes the user (imported or alreadyPresent), never as a
// line of its own.
import type { Journal, JournalEntry } from './journal.js';
import type { ValidatedRecord } from '../runner.js';
import { fingerprint, fingerprintKey } from '../sync/fingerprint.js';

/** The fingerprint to journal for a user (a sync gives its own); undefined writes none. */
export type FingerprintOf = (input: ValidatedRecord) => string | undefined;

export interface FingerprintingJournal {
  /** The journal the strategies write through. */
  readonly journal: Journal;
  /** A user handed to the strategy: its fingerprint waits for its finishing line. */
  admit(input: ValidatedRecord): void;
  /** A user finished (with or without a journal line): nothing waits for it any more. */
  forget(user: string): void;
}

export function fingerprintingJournal(journal: Journal, custom?: FingerprintOf): FingerprintingJournal {
  const key = journal.fingerprintKey !== undefined ? fingerprintKey(journal.fingerprintKey) : undefined;
  const of: FingerprintOf | undefined = custom ?? (key ? (input) => fingerprint(input.record, key) : undefined);
  /**
   * Users in flight: at most what the strategy holds (`concurrency` users, or the staged path's batches). Their
   * fingerprint is taken when the finishing line comes (a staged user is forgotten at its upload and admitted
   * again once read back: one fingerprint, not two, and none in the way of the upload).
   */
  const waiting = new Map<string, ValidatedRecord>();
  const append = (entry: JournalEntry): void => {
    if (entry.type === 'user' && (entry.outcome === 'imported' || entry.outcome === 'alreadyPresent')) {
      const input = waiting.get(entry.user);
      if (input !== undefined) {
        waiting.delete(entry.user);
        const fp = of?.(input);
        if (fp !== undefined) return journal.append({ ...entry, fp });
      }
    }
    journal.append(entry);
  };
  const wrapped: Journal = {
    get path() {
      return journal.path;
    },
    get users() {
      return journal.users;
    },
    get fingerprintKey() {
      return journal.fingerprintKey;
    },
    append,
    appendDurable: (entry) => journal.appendDurable(entry),
    flush: () => journal.flush(),
    close: () => journal.close(),
  };
  return {
    journal: of ? wrapped : journal,
    admit(input) {
      if (of && input.valid) waiting.set(input.record.id, input);
    },
    forget(user) {
      waiting.delete(user);
    },
  };
}
