// The wizard's target actions (target screen): connect to a sandbox it starts (owned here, stopped before another
// connection and on quit) or to a remote core, then run the preflight; or drop the connection. A failed connection
// runs no preflight.
import { DEFAULT_BULK_IMPORT_INTERVAL_SEC } from '../../sandbox/config.js';
import { useMemo, useRef } from 'react';
import type { SandboxHandle, TargetConnection } from '../services/types.js';
import { message, migrationInput, type ActionContext } from './action-context.js';

export type TargetChoice = { kind: 'sandbox'; store?: string } | { kind: 'remote'; url: string; tenant?: string; app?: string };

export interface TargetActions {
  connect(choice: TargetChoice): Promise<void>;
  resetTarget(): void;
}

export function useTargetActions({ services, d, latest }: ActionContext): TargetActions & { stopSandbox(): Promise<void> } {
  const sandbox = useRef<SandboxHandle | undefined>(undefined);
  return useMemo(() => {
    const stopSandbox = async () => {
      const s = sandbox.current;
      sandbox.current = undefined;
      if (s) await s.stop();
    };
    const open = async (choice: TargetChoice): Promise<TargetConnection> => {
      const secrets = latest.current.secrets;
      await stopSandbox();
      if (choice.kind === 'remote') {
        return { url: choice.url, tenant: choice.tenant, app: choice.app, apiKey: secrets.apiKey, licenseKey: secrets.licenseKey };
      }
      const jobIntervalSec = latest.current.profile?.jobIntervalSec;
      const s = await services.startSandbox({
        store: choice.store,
        apiKey: secrets.apiKey,
        licenseKey: secrets.licenseKey,
        signerKey: secrets.signerKey,
        jobIntervalSec,
      });
      sandbox.current = s;
      return {
        url: s.url,
        apiKey: secrets.apiKey,
        licenseKey: secrets.licenseKey,
        sandbox: { storePath: s.storePath, temporary: !choice.store, jobIntervalSec: jobIntervalSec ?? DEFAULT_BULK_IMPORT_INTERVAL_SEC },
      };
    };
    return {
      stopSandbox,
      connect: async (choice) => {
        d({ type: 'target-started' });
        let conn: TargetConnection;
        try {
          conn = await open(choice);
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
    };
  }, [services, d, latest]);
}
