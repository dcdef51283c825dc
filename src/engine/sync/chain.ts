// Reading the journals of a migration's chain of runs (base.ts) for a sync: first every user's state and
// fingerprint (one pass, compact: store.ts), then, for the few users the sync will touch, what the migration
// made of them step by step (which logins, devices and roles it created: only those may a sync remove).
// Invariant: only what the migration itself created is offered for removal.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { JournalEntry, JournalledStep } from '../journal/journal.js';
import { decodeJournalLine } from '../journal/lines.js';
import type { JournalHead } from './base.js';
import { decodeFingerprint } from './fingerprint.js';
import { BaseUsers } from './store.js';

/** The fingerprint a sync journals for a user it removed. */
export const REMOVED_FP = '-';

async function* entriesOf(path: string, wanted?: Set<string>): AsyncGenerator<JournalEntry> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    if (wanted && !wanted.has(userOfLine(line) ?? '')) continue;
    try {
      yield* decodeJournalLine(line);
    } catch {
      // a torn line: its step is redone by the run that resumes that journal, as the engine reads it
    }
  }
}

/** The user a journal line is about, read without parsing it (undefined when unsure: the line is parsed). */
function userOfLine(line: string): string | undefined {
  const at = line.indexOf('"user":"');
  if (at < 0) return line.includes('"type":"run"') || line.includes('"type":"end"') ? '' : undefined;
  const start = at + 8;
  const end = line.indexOf('"', start);
  const id = line.slice(start, end);
  return id.includes('\\') ? undefined : id;
}

/** Every user of the chain: in the core or not, with its last fingerprint (the chain's journals, oldest first). */
export async function readChainUsers(chain: JournalHead[]): Promise<BaseUsers> {
  const users = new BaseUsers();
  for (const head of chain) {
    let keyIndex = head.fpKey === undefined ? -1 : users.fingerprintKeys.indexOf(head.fpKey);
    if (head.fpKey !== undefined && keyIndex < 0) keyIndex = users.fingerprintKeys.push(head.fpKey) - 1;
    for await (const entry of entriesOf(head.path)) {
      if (entry.type === 'user') {
        if (entry.outcome === 'imported' || entry.outcome === 'alreadyPresent') {
          if (entry.fp === REMOVED_FP) users.removed(entry.user);
          else users.finished(entry.user, keyIndex >= 0 && entry.fp ? decodeFingerprint(entry.fp) : undefined, keyIndex);
        } else users.touched(entry.user);
      } else if (entry.type === 'step') users.touched(entry.user);
    }
  }
  return users;
}

/** What the migration's runs made of one user, by step key (plan.ts's keys; a sync's removals take theirs out). */
export type UserHistory = Map<string, JournalledStep>;

/** Step keys a sync's removal takes out of the history: the device, login, role or whole user it removed. */
function applyRemoval(history: UserHistory, key: string): void {
  if (key === 'sync:remove-user') return history.clear();
  const [, what, ...rest] = key.split(':');
  const ref = rest.join(':');
  if (what === 'remove-totp') history.delete(`totp:${ref}`);
  else if (what === 'remove-role') history.delete(`user-role:${ref}`);
  else if (what === 'remove-login') {
    history.delete(ref);
    history.delete(`link:${ref}`);
  }
}

/**
 * A sync changed a login's email (or phone): the login's fingerprint (rollback/shape.ts) follows, so that a later
 * removal or rollback sees the login as the migration left it, not as changed by someone since.
 */
function applyNewSig(history: UserHistory, key: string, ids: Record<string, string>): void {
  const ref = key.split(':').slice(2).join(':');
  const login = history.get(ref);
  if (login) history.set(ref, { ...login, ids: { ...login.ids, sig: ids.sig! } });
  for (const bulk of ['bulk', 'bulk-staged']) {
    const step = history.get(bulk);
    if (!step?.ids.methods || ids.was === undefined) continue;
    try {
      const methods = JSON.parse(step.ids.methods) as string[];
      const at = methods.indexOf(ids.was);
      if (at >= 0) methods[at] = ids.sig!;
      history.set(bulk, { ...step, ids: { ...step.ids, methods: JSON.stringify(methods) } });
    } catch {
      // not a list: left as the run wrote it
    }
  }
}

/** The merged step history of `wanted` users over the chain (a later "already" never hides an earlier "created"). */
export async function readChainHistory(chain: JournalHead[], wanted: Set<string>): Promise<Map<string, UserHistory>> {
  const out = new Map<string, UserHistory>();
  if (wanted.size === 0) return out;
  for (const head of chain) {
    for await (const entry of entriesOf(head.path, wanted)) {
      if (entry.type !== 'step' || !wanted.has(entry.user)) continue;
      let history = out.get(entry.user);
      if (!history) out.set(entry.user, (history = new Map()));
      if (entry.step.startsWith('sync:remove-')) {
        applyRemoval(history, entry.step);
        continue;
      }
      if (entry.ids.sig !== undefined && /^sync:(email|login|phone):/.test(entry.step)) applyNewSig(history, entry.step, entry.ids);
      const prev = history.get(entry.step);
      history.set(
        entry.step,
        prev?.result === 'created' ? { result: 'created', ids: { ...prev.ids, ...entry.ids } } : { result: entry.result, ids: entry.ids },
      );
    }
  }
  return out;
}

const FIRST_FACTOR = (key: string): boolean => key === 'password' || key === 'phone' || key === 'otp' || key.startsWith('thirdparty:');

/** The id to read a user by: its external id when mapped, else its first login's (or the bulk import's). */
export function userIdOf(history: UserHistory): string | undefined {
  const ext = history.get('map')?.ids.externalUserId;
  if (ext !== undefined) return ext;
  for (const [key, step] of history) if (FIRST_FACTOR(key) && step.ids.recipeUserId) return step.ids.recipeUserId;
  return history.get('bulk')?.ids.recipeUserId ?? history.get('bulk-staged')?.ids.recipeUserId;
}
