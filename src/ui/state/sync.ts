// The wizard's sync (the second pass of a cutover, operations/sync.ts): whether this profile ran into the connected
// core before (then the plan screen offers a sync), the operator's choice, the preview of the delta, and what the
// sync changed. Its own slice of the state, with its own small reducer (reducer.ts hands it the sync-* actions).
import type { SyncPreview } from '../../operations/sync.js';
import type { Task } from './types.js';

/** An earlier run of this migration into this core: what a sync brings up to date. */
export interface SyncOffer {
  /** Its journal. */
  base: string;
  /** How it ended (a sync of these files that stopped is carried on). */
  ended?: 'finished' | 'stopped' | 'fatal';
  /** A sync that stopped, carried on by the next one. */
  resume?: string;
}

export type SyncPreviewView = Omit<SyncPreview, 'prepared'>;

export interface SyncState {
  /** Undefined: no earlier run of this profile into this core was found, so no sync is offered. */
  offer?: SyncOffer;
  /** The operator chose a sync instead of a run (plan screen `s`). */
  on: boolean;
  removeMissing: boolean;
  preview: Task<SyncPreviewView>;
  /** What the last sync changed (results screen). */
  applied?: Record<string, number>;
  nothingChanged?: boolean;
}

export type SyncAction =
  | { type: 'sync-offered'; offer?: SyncOffer }
  | { type: 'sync-toggled' }
  | { type: 'sync-remove-missing' }
  | { type: 'sync-preview-started' }
  | { type: 'sync-preview-ready'; preview: SyncPreviewView }
  | { type: 'sync-preview-failed'; error: string }
  | { type: 'sync-finished'; applied: Record<string, number>; nothingChanged: boolean };

export const idleSync: SyncState = { on: false, removeMissing: false, preview: { status: 'idle' } };

export const isSyncAction = (a: { type: string }): a is SyncAction => a.type.startsWith('sync-');

export function syncReducer(s: SyncState, a: SyncAction): SyncState {
  switch (a.type) {
    case 'sync-offered':
      // No earlier run: nothing to offer, and a sync chosen before is off.
      return a.offer ? { ...s, offer: a.offer } : { ...idleSync };
    case 'sync-toggled':
      return s.offer ? { ...s, on: !s.on, preview: s.on ? { status: 'idle' } : s.preview } : s;
    case 'sync-remove-missing':
      return { ...s, removeMissing: !s.removeMissing };
    case 'sync-preview-started':
      return { ...s, preview: { status: 'running' } };
    case 'sync-preview-ready':
      return { ...s, preview: { status: 'done', value: a.preview } };
    case 'sync-preview-failed':
      return { ...s, preview: { status: 'failed', error: a.error } };
    case 'sync-finished':
      return { ...s, applied: a.applied, nothingChanged: a.nothingChanged };
  }
}
