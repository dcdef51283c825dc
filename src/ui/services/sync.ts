// The wizard's sync service: the sync operation (operations/sync.ts) on the connected target, for the plan screen
// (is there an earlier run of this migration into this core? what would a sync change?) and the run screen (the
// sync itself, the same events and question as `run --sync`). Adapters only: the operation decides.
import { chooseSyncBase } from '../../engine/sync/base.js';
import type { Confirmation } from '../../operations/confirm.js';
import type { RunRequest } from '../../operations/requests.js';
import { previewSync, startSync, syncSetupOf, type SyncHandle, type SyncOperationEvent, type SyncPreview } from '../../operations/sync.js';
import { describeTarget } from '../../operations/target.js';
import type { SyncOffer, SyncPreviewView } from '../state/sync.js';
import { connectionTo } from './settings.js';
import type { WizardInput, TargetConnection } from './types.js';

export interface SyncService {
  /** The earlier run a sync would bring up to date, or undefined (never ran into this core: a sync is not offered). */
  offer(input: WizardInput, target: TargetConnection): Promise<SyncOffer | undefined>;
  /** The delta and the changes planned (no request to the core); kept for the sync that follows. */
  preview(input: WizardInput, target: TargetConnection, o: { removeMissing: boolean; profileName: string }): Promise<SyncPreviewView>;
  start(
    input: WizardInput,
    target: TargetConnection,
    o: {
      removeMissing: boolean;
      profileName: string;
      onEvent: (e: SyncOperationEvent) => void;
      confirm: (c: Confirmation) => Promise<boolean>;
    },
  ): SyncHandle;
}

type Settings = (input: WizardInput, target: TargetConnection, profileName?: string) => Promise<RunRequest>;

export function createSyncService(settings: Settings): SyncService {
  /** The last preview, reused by the sync when nothing changed in between (the same input, target and choice). */
  let last: { key: string; preview: SyncPreview } | undefined;
  const keyOf = (input: WizardInput, target: TargetConnection, removeMissing: boolean) =>
    JSON.stringify([input, target.url, target.tenant, target.app, target.sandbox?.storePath, removeMissing]);
  return {
    async offer(input, target) {
      const s = await settings(input, target);
      try {
        const choice = await chooseSyncBase({ cwd: s.output.out, out: s.output.out, target: describeTarget(s.target), sources: s.files });
        // An unfinished plain run of these files is carried on by a run, not brought up to date by a sync.
        const sameFiles = JSON.stringify(choice.base.identity.sources) === JSON.stringify(s.files);
        if (!choice.resume && !choice.base.sync && choice.base.ended !== 'finished' && sameFiles) return undefined;
        return {
          base: choice.base.path,
          ...(choice.base.ended ? { ended: choice.base.ended } : {}),
          ...(choice.resume ? { resume: choice.resume.path } : {}),
        };
      } catch {
        return undefined; // no earlier run of this target under the run folders' folder
      }
    },
    async preview(input, target, o) {
      // The profile's name names the sync's run folder (`<profile>-sync-<time>`), as for a run.
      const s = await settings(input, target, o.profileName);
      const preview = await previewSync(syncSetupOf(s, describeTarget(s.target), { removeMissing: o.removeMissing }));
      last = { key: keyOf(input, target, o.removeMissing) + o.profileName, preview };
      const { prepared: _kept, ...view } = preview;
      return view;
    },
    start(input, target, o) {
      let handle: SyncHandle | undefined;
      let early: 'stop' | 'pause' | undefined;
      const key = keyOf(input, target, o.removeMissing) + o.profileName;
      const preview = last?.key === key ? last.preview : undefined;
      last = undefined; // a preview is used once: the next sync reads the journals again
      const done = (async () => {
        const s = await settings(input, target, o.profileName);
        // The rerun command (a stopped sync's resume.txt) is the same sync.
        s.rerun.args.push('--sync', ...(o.removeMissing ? ['--remove-missing'] : []));
        handle = startSync(
          { ...s, sync: { removeMissing: o.removeMissing } },
          {
            connect: async (c) => connectionTo(target, s, c),
            confirm: o.confirm,
            onEvent: o.onEvent,
            ...(preview ? { preview } : {}),
          },
        );
        if (early === 'pause') handle.pause();
        if (early === 'stop') handle.stop();
        return handle.done;
      })();
      return {
        done,
        pause: () => (handle ? handle.pause() : (early = 'pause')),
        resume: () => (handle ? handle.resume() : (early = undefined)),
        stop: () => (handle ? handle.stop() : (early = 'stop')),
      };
    },
  };
}
