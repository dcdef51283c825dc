// The wizard's side effects: each action calls a service and dispatches what came back. Nothing here
// knows how to migrate; it only sequences the same modules the headless commands use.
import { useApp } from 'ink';
import { useEffect, useMemo, useReducer, useRef } from 'react';
import { emptyProfile, type Profile, type SecretName } from '../../profiles/index.js';
import type { CanonicalUser } from '../../records/types.js';
import { initialState, reducer } from '../state/reducer.js';
import type { Action, PreviewFilter, Step, WizardState } from '../state/types.js';
import type { RunOperationEvent } from '../../operations/events.js';
import type { UndoOptions } from '../services/rollback.js';
import { startRunOrSync, syncActions, type SyncActions } from './sync-actions.js';
import type {
  MigrationInput,
  RollbackOutcome,
  RunHandle,
  SandboxHandle,
  SignInOutcome,
  TargetConnection,
  WizardServices,
} from '../services/types.js';

export type TargetChoice = { kind: 'sandbox'; store?: string } | { kind: 'remote'; url: string; tenant?: string; app?: string };

export interface WizardActions extends SyncActions {
  refreshProfiles(): Promise<void>;
  /** Save the open profile as it stands (secrets only as chosen on the keys screen). */
  persist(): Promise<void>;
  openProfile(name: string): Promise<void>;
  createProfile(name: string): Promise<void>;
  duplicateProfile(from: string, to: string): Promise<void>;
  renameProfile(from: string, to: string): Promise<void>;
  deleteProfile(name: string): Promise<void>;
  updateProfile(profile: Profile): void;
  typeSecret(name: SecretName, value: string): void;
  go(step: Step): void;
  back(): void;
  notice(kind: 'info' | 'error', text: string): void;
  validate(): Promise<void>;
  dispatchMove(delta: number, pageSize?: number): void;
  showDetail(key: string | undefined): void;
  setFilter(filter: PreviewFilter): void;
  spotCheck(record: CanonicalUser, password: string): Promise<void>;
  connect(choice: TargetChoice): Promise<void>;
  resetTarget(): void;
  plan(): Promise<void>;
  showDryRun(): void;
  /** Search every record of the files (id, email, phone, external id); undefined clears the search. */
  searchRecords(query: string | undefined): Promise<void>;
  /** Go on although whole classes of users are lost for a missing setting (`run --allow-partial`), this session. */
  allowPartial(allow: boolean): void;
  run(): void;
  /** The answer to the run's question before a real core is written (`y`, or `esc`). */
  answerConfirm(ok: boolean): void;
  togglePause(): void;
  stopRun(): void;
  verify(): Promise<void>;
  /** Undo the run (dryRun: count only); the results screen asks for a confirmation between the two. */
  /** Undo the run (the rollback operation): its decisions, then its question (answered with `y` or `esc`), then progress. */
  rollback(o: UndoOptions): Promise<RollbackOutcome | string>;
  openSignIn(): void;
  closeSignIn(): void;
  /** The password goes to the core and is dropped: it is never dispatched, so never in the state. */
  signIn(email: string, password: string): Promise<void>;
  checkCredentialsFile(path: string): Promise<void>;
  save(): Promise<void>;
  quit(): Promise<void>;
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));
/** Progress reaches the screen about ten times a second, however fast users finish. */
const UPDATE_INTERVAL_MS = 100;
/** Records a search of the preview keeps (the files can hold millions). */
const SEARCH_LIMIT = 500;

export function migrationInput(state: WizardState): MigrationInput {
  const p = state.profile ?? emptyProfile('unnamed');
  return {
    secretStores: p.secrets,
    allowPartial: state.allowPartial,
    sources: p.sources,
    hashConfig: p.hashConfig,
    signerKey: state.secrets.signerKey,
    providerMap: p.providerMap,
    keepSourceIds: p.keepSourceIds,
    updateExisting: p.updateExisting,
    disabled: p.disabled,
    unusableHashes: p.unusableHashes,
    scryptAlgorithmName: p.scryptAlgorithmName,
    concurrency: p.concurrency,
    via: p.via,
    jobIntervalSec: p.jobIntervalSec,
  };
}

export function useWizardController(services: WizardServices, initial?: WizardState): { state: WizardState; actions: WizardActions } {
  const [state, dispatch] = useReducer(reducer, initial ?? initialState());
  const { exit } = useApp();
  // Async actions read the latest state through this ref: moved by every action (see `d`) and set at each render.
  const latest = useRef(state);
  latest.current = state;
  const sandbox = useRef<SandboxHandle | undefined>(undefined);
  const runHandle = useRef<RunHandle | undefined>(undefined);
  const answer = useRef<((ok: boolean) => void) | undefined>(undefined);

  const actions = useMemo<WizardActions>(() => {
    // The ref moves with each action at once (the reducer is pure), so an action that follows another in the same
    // handler (change an option, then plan) reads the state the first one made, not the last render's.
    const d = (a: Action) => {
      latest.current = reducer(latest.current, a);
      dispatch(a);
    };
    const attempt = async (fn: () => Promise<void>) => {
      try {
        await fn();
      } catch (err) {
        d({ type: 'notice', kind: 'error', text: message(err) });
      }
    };
    const refreshProfiles = async () => {
      try {
        d({ type: 'profiles-loaded', profiles: await services.profiles.list() });
      } catch (err) {
        d({ type: 'profiles-failed', error: message(err) });
      }
    };
    const stopSandbox = async () => {
      const s = sandbox.current;
      sandbox.current = undefined;
      if (s) await s.stop();
    };
    // Settings are kept as the operator moves on, so quitting midway loses nothing; secrets are written
    // only as chosen on the keys screen (the profile store applies that choice).
    const persist = async () => {
      const { profile, secrets } = latest.current;
      if (!profile) return;
      try {
        await services.profiles.save(profile, secrets);
      } catch (err) {
        d({ type: 'notice', kind: 'error', text: `the profile could not be saved: ${message(err)}` });
      }
    };
    const target = (): TargetConnection | undefined => {
      const t = latest.current.target;
      return t.status === 'done' ? t.value : undefined;
    };
    const sync = syncActions(services, d, latest, target, migrationInput);
    let planning = 0;
    return {
      toggleSync: sync.toggleSync,
      toggleRemoveMissing: sync.toggleRemoveMissing,
      refreshProfiles,
      persist,
      openProfile: (name) => attempt(async () => d({ type: 'profile-opened', loaded: await services.profiles.load(name) })),
      createProfile: (name) =>
        attempt(async () => {
          if ((await services.profiles.list()).some((p) => p.name === name)) throw new Error(`a profile named '${name}' already exists`);
          await services.profiles.save(emptyProfile(name), {});
          await refreshProfiles();
          d({ type: 'profile-opened', loaded: await services.profiles.load(name) });
        }),
      duplicateProfile: (from, to) =>
        attempt(async () => {
          await services.profiles.duplicate(from, to);
          await refreshProfiles();
        }),
      renameProfile: (from, to) =>
        attempt(async () => {
          await services.profiles.rename(from, to);
          await refreshProfiles();
        }),
      deleteProfile: (name) =>
        attempt(async () => {
          await services.profiles.remove(name);
          await refreshProfiles();
        }),
      updateProfile: (profile) => d({ type: 'profile-updated', profile }),
      typeSecret: (name, value) => d({ type: 'secret-typed', name, value }),
      go: (step) => d({ type: 'go', step }),
      back: () => d({ type: 'back' }),
      notice: (kind, text) => d({ type: 'notice', kind, text }),
      validate: async () => {
        d({ type: 'validation-started' });
        try {
          const report = await services.validate(migrationInput(latest.current), (record) => d({ type: 'validation-record', record }));
          d({ type: 'validation-finished', report });
        } catch (err) {
          d({ type: 'validation-failed', error: message(err) });
        }
      },
      dispatchMove: (delta, pageSize) => d({ type: 'preview-move', delta, pageSize }),
      showDetail: (key) => d({ type: 'preview-detail', key }),
      setFilter: (filter) => d({ type: 'preview-filter', filter }),
      spotCheck: async (record, password) => {
        d({ type: 'spot-check-started' });
        try {
          d({ type: 'spot-check-finished', result: await services.spotCheck(record, password, latest.current.secrets.signerKey) });
        } catch (err) {
          d({ type: 'spot-check-failed', error: message(err) });
        }
      },
      connect: async (choice) => {
        d({ type: 'target-started' });
        const secrets = latest.current.secrets;
        let conn: TargetConnection;
        try {
          await stopSandbox();
          if (choice.kind === 'sandbox') {
            const s = await services.startSandbox({
              store: choice.store,
              apiKey: secrets.apiKey,
              licenseKey: secrets.licenseKey,
              signerKey: secrets.signerKey,
            });
            sandbox.current = s;
            conn = {
              url: s.url,
              apiKey: secrets.apiKey,
              licenseKey: secrets.licenseKey,
              sandbox: { storePath: s.storePath, temporary: !choice.store },
            };
          } else {
            conn = { url: choice.url, tenant: choice.tenant, app: choice.app, apiKey: secrets.apiKey, licenseKey: secrets.licenseKey };
          }
          d({ type: 'target-ready', target: conn });
        } catch (err) {
          d({ type: 'target-failed', error: message(err) });
          return;
        }
        try {
          const v = latest.current.validation;
          d({
            type: 'preflight-finished',
            result: await services.preflight(conn, v.status === 'done' ? migrationInput(latest.current) : undefined),
          });
        } catch (err) {
          d({ type: 'preflight-failed', error: message(err) });
        }
      },
      resetTarget: () => {
        void stopSandbox().catch(() => undefined);
        d({ type: 'target-reset' });
      },
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
      searchRecords: async (query) => {
        if (query === undefined || query.trim() === '') return d({ type: 'preview-search', search: undefined });
        d({ type: 'preview-search', search: { query, status: 'running', rows: [], more: false } });
        try {
          const found = await services.search(migrationInput(latest.current), query, SEARCH_LIMIT);
          d({ type: 'preview-search', search: { query, status: 'done', ...found } });
        } catch (err) {
          d({ type: 'preview-search', search: { query, status: 'failed', rows: [], more: false, error: message(err) } });
        }
      },
      allowPartial: (allow) => d({ type: 'allow-partial', allow }),
      run: () => {
        const t = target();
        const profile = latest.current.profile;
        if (!t || !profile || runHandle.current) return;
        d({ type: 'run-started', at: Date.now() });
        let pending: RunOperationEvent[] = [];
        const flush = () => {
          if (pending.length === 0) return;
          const events = pending;
          pending = [];
          d({ type: 'run-events', events });
        };
        const timer = setInterval(flush, UPDATE_INTERVAL_MS);
        const end = () => {
          clearInterval(timer);
          flush();
          runHandle.current = undefined;
          answer.current = undefined;
        };
        try {
          const handle = startRunOrSync(
            services,
            latest.current,
            migrationInput(latest.current),
            t,
            {
              profileName: profile.name,
              onEvent: (e) => pending.push(e),
              // The question waits for `y` or `esc` on the run screen; the operation writes nothing meanwhile.
              confirm: () =>
                new Promise<boolean>((resolve) => {
                  answer.current = resolve;
                  flush();
                }),
            },
            d,
          );
          runHandle.current = handle;
          handle.done.then(
            (outcome) => {
              end();
              if (outcome.refusal?.code === 'not-confirmed') d({ type: 'run-cancelled', text: outcome.refusal.message });
              else d({ type: 'run-finished', outcome });
            },
            (err: unknown) => {
              end();
              d({ type: 'run-failed', error: message(err) });
            },
          );
        } catch (err) {
          end();
          d({ type: 'run-failed', error: message(err) });
        }
      },
      answerConfirm: (ok) => {
        const resolve = answer.current;
        answer.current = undefined;
        resolve?.(ok);
      },
      togglePause: () => {
        const h = runHandle.current;
        if (!h) return;
        if (latest.current.run.status === 'paused') h.resume();
        else if (latest.current.run.status === 'running') h.pause();
      },
      stopRun: () => {
        const h = runHandle.current;
        if (!h) return;
        d({ type: 'run-stopping' });
        answer.current?.(false);
        h.stop();
      },
      verify: async () => {
        const t = target();
        if (!t) return;
        d({ type: 'verify-started' });
        let shown = 0;
        try {
          const summary = await services.verify(migrationInput(latest.current), t, (e) => {
            // About ten frames a second, however fast users are checked.
            if (e.type === 'verify-started') d({ type: 'verify-progress', progress: { checked: 0, total: e.total } });
            if (e.type === 'verify-user' && e.at - shown >= UPDATE_INTERVAL_MS) {
              shown = e.at;
              const total = latest.current.verifyProgress?.total ?? 0;
              d({ type: 'verify-progress', progress: { checked: e.counts.total, total } });
            }
          });
          d({ type: 'verify-finished', summary });
        } catch (err) {
          d({ type: 'verify-failed', error: message(err) });
        }
      },
      rollback: async (o) => {
        const t = target();
        if (!t) return 'no target core is connected: connect one on the target screen';
        try {
          // After a sync, `u` undoes the sync (its own journal), not the first run.
          const syncJournal = latest.current.sync.on ? latest.current.run.outcome?.paths?.journal : undefined;
          if (latest.current.sync.on && !syncJournal) return 'the sync wrote nothing (no journal): there is nothing of it to undo';
          return await services.rollback(migrationInput(latest.current), t, syncJournal ? { ...o, journal: syncJournal } : o);
        } catch (err) {
          return message(err);
        }
      },
      openSignIn: () => d({ type: 'sign-in-open' }),
      closeSignIn: () => d({ type: 'sign-in-close' }),
      signIn: async (email, password) => {
        const t = target();
        if (!t) return d({ type: 'notice', kind: 'error', text: 'no target core is connected: connect one on the target screen' });
        if (latest.current.signIn.running) return;
        d({ type: 'sign-in-started' });
        let outcome: SignInOutcome;
        try {
          outcome = await services.signIn(t, email, password);
        } catch (err) {
          outcome = { status: 'error', error: message(err) };
        }
        d({ type: 'sign-in-finished', entry: { kind: 'single', email, outcome } });
      },
      checkCredentialsFile: async (path) => {
        const t = target();
        if (!t) return d({ type: 'notice', kind: 'error', text: 'no target core is connected: connect one on the target screen' });
        if (latest.current.signIn.running) return;
        d({ type: 'sign-in-started' });
        try {
          d({ type: 'sign-in-finished', entry: { kind: 'file', path, result: await services.checkCredentialsFile(t, path) } });
        } catch (err) {
          d({ type: 'sign-in-finished', entry: { kind: 'file-error', path, error: message(err) } });
        }
      },
      save: async () => {
        const { profile, secrets } = latest.current;
        if (!profile) return;
        d({ type: 'save-started' });
        try {
          await services.profiles.save(profile, secrets);
          d({ type: 'save-finished', path: services.profiles.paths().profiles });
          await refreshProfiles();
        } catch (err) {
          d({ type: 'save-failed', error: message(err) });
        }
      },
      quit: async () => {
        await persist(); // the settings made on this screen too (a target chosen, then q)
        answer.current?.(false);
        runHandle.current?.stop();
        await runHandle.current?.done.catch(() => undefined);
        await stopSandbox().catch(() => undefined);
        exit();
      },
    };
  }, [services, exit]);

  // Each move to another screen keeps the settings made so far, so quitting midway loses nothing. This runs
  // after the render that committed the move, so it saves what the screens last dispatched.
  const step = state.step;
  useEffect(() => {
    if (step !== 'profile') void actions.persist();
  }, [step, actions]);

  return { state, actions };
}
