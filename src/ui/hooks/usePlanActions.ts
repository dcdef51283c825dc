// The wizard's plan actions (plan screen): plan against the connected core (then offer a sync when this profile ran
// into it before, sync-actions.ts), show the dry run, allow a partial migration, and the sync's own switches. When
// options are stepped quickly, only the newest plan's answer becomes the plan.
import { useMemo } from 'react';
import { message, migrationInput, type ActionContext } from './action-context.js';
import { syncActions, type SyncActions } from './sync-actions.js';

export interface PlanActions extends SyncActions {
  plan(): Promise<void>;
  showDryRun(): void;
  /** Go on although whole classes of users are lost for a missing setting (`run --allow-partial`), this session. */
  allowPartial(allow: boolean): void;
}

export function usePlanActions({ services, d, latest, target }: ActionContext): PlanActions {
  return useMemo<PlanActions>(() => {
    const sync = syncActions(services, d, latest, target, migrationInput);
    let planning = 0;
    return {
      toggleSync: sync.toggleSync,
      toggleRemoveMissing: sync.toggleRemoveMissing,
      plan: async () => {
        const t = target();
        if (!t) return;
        // Options stepped quickly start plans that overlap: only the newest one's answer is the plan.
        const mine = ++planning;
        d({ type: 'plan-started' });
        try {
          const plan = await services.plan(migrationInput(latest.current), t);
          if (mine !== planning) return;
          d({ type: 'plan-ready', plan });
          await sync.offer(); // a profile that ran into this core before is offered a sync
        } catch (err) {
          if (mine === planning) d({ type: 'plan-failed', error: message(err) });
        }
      },
      showDryRun: () => d({ type: 'dry-run-shown' }),
      allowPartial: (allow) => d({ type: 'allow-partial', allow }),
    };
  }, [services, d, latest, target]);
}
