// The delta between the earlier run(s) and a newer export, one record at a time in the validation pass: new users,
// users whose fingerprint changed (and which parts), unchanged ones (no request, no journal line), and at the end
// the users the export no longer has. Counts and the first users of each kind are kept for the dry run and the
// confirmation; the changed users' parts for the sync itself.
// Invariant: an unchanged user costs no request and no journal line.
import type { ValidatedRecord } from '../../records/validate.js';
import { leftOut, type PlanOptions } from '../plan/plan.js';
import { changedParts, fingerprintBytes, fingerprintKey, PARTS, type FingerprintKey, type Part } from './fingerprint.js';
import type { BaseUsers } from './store.js';
import type { SyncWork } from './work.js';

/** Users listed per kind in the dry run and the confirmation. */
export const SAMPLE = 5;

export interface SyncDelta {
  records: number;
  invalid: number;
  unchanged: number;
  /** Not in the core by the journals: migrated as by `run` (found first: one made since is left as it is). */
  new: number;
  /** New, but left out by the run's settings (disabled under skip, only a hash for first sign-in). */
  leftOut: number;
  changed: number;
  /** Changed users per part. */
  parts: Record<Part, number>;
  newlyDisabled: number;
  reEnabled: number;
  /** In the core, not in the export. */
  gone: number;
  /** In the core, now disabled under `--disabled skip`. */
  disabledSkip: number;
  /** Changed users the journal has no fingerprint for (written before fingerprints): every part brought to the export. */
  withoutFingerprint: number;
  /** The first users of each kind: `new`, `gone`, `disabled`, each part. */
  samples: Record<string, string[]>;
  /** The email of each sampled user (from the export; for a gone user, from the previous export when it is there). */
  emails: Record<string, string>;
}

export function emptyDelta(): SyncDelta {
  return {
    records: 0,
    invalid: 0,
    unchanged: 0,
    new: 0,
    leftOut: 0,
    changed: 0,
    parts: Object.fromEntries(PARTS.map((p) => [p, 0])) as Record<Part, number>,
    newlyDisabled: 0,
    reEnabled: 0,
    gone: 0,
    disabledSkip: 0,
    withoutFingerprint: 0,
    samples: {},
    emails: {},
  };
}

function sample(delta: SyncDelta, kind: string, id: string, email?: string): void {
  const list = (delta.samples[kind] ??= []);
  if (list.length >= SAMPLE) return;
  list.push(id);
  if (email) delta.emails[id] = email;
}

/** Classifies each validated record of the newer export against the chain's users; fills `work.changed`. */
export function createDeltaClassifier(users: BaseUsers, work: SyncWork, plan: PlanOptions) {
  const delta = emptyDelta();
  const keys: FingerprintKey[] = users.fingerprintKeys.map((k) => fingerprintKey(k));
  const skipPolicy = (plan.disabled ?? 'skip') === 'skip';
  return {
    delta,
    add(v: ValidatedRecord): void {
      delta.records += 1;
      const id = v.record.id;
      users.see(id);
      if (!v.valid) return void (delta.invalid += 1);
      const state = users.get(id);
      if (state?.kind !== 'finished') {
        if (leftOut(v.record, plan)) delta.leftOut += 1;
        else {
          delta.new += 1;
          sample(delta, 'new', id, v.record.email);
        }
        return;
      }
      const parts = state.fp ? changedParts(state.fp, fingerprintBytes(v.record, keys[state.keyIndex]!)) : [...PARTS];
      if (parts.length === 0) return void (delta.unchanged += 1);
      if (!state.fp) delta.withoutFingerprint += 1;
      if (parts.includes('disabled') && v.record.disabled === true && skipPolicy) {
        work.removals.set(id, 'disabled');
        delta.disabledSkip += 1;
        sample(delta, 'disabled', id, v.record.email);
        return;
      }
      work.changed.set(id, parts);
      delta.changed += 1;
      for (const p of parts) {
        delta.parts[p] += 1;
        sample(delta, p, id, v.record.email);
      }
      if (parts.includes('disabled') && state.fp) {
        if (v.record.disabled === true) delta.newlyDisabled += 1;
        else delta.reEnabled += 1;
      }
    },
    /** After the last record: the users in the core the export no longer has. */
    finish(): SyncDelta {
      for (const id of users.unseen()) {
        work.removals.set(id, 'gone');
        delta.gone += 1;
        sample(delta, 'gone', id);
      }
      return delta;
    },
  };
}
