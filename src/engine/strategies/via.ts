// How a run writes its users (`run --via`, the wizard's plan screen), shared by both, with what each keeps.
// Invariant: a value other than the three is refused as an InvalidSetting, never taken as the default.
import { InvalidSetting } from '../../errors.js';

export type Via = 'steps' | 'bulk' | 'bulk-staged';

export const VIAS: readonly Via[] = ['steps', 'bulk', 'bulk-staged'];

/** One line each, for --help and the wizard: what the path keeps and what it needs. */
export const VIA_EXPLAINED: Record<Via, string> = {
  steps: 'per-user endpoints, any core: every user joins on migration day (timeJoined is the import time)',
  bulk: 'POST /bulk-import/import per user (core 10.0+): join dates kept per login method, about 2 requests per user',
  'bulk-staged':
    "batches of up to 10,000 staged in /bulk-import/users, imported by the core's job (core 10.0+): join dates kept, no request per user, waits for the job",
};

export function parseVia(value: string | undefined): Via {
  if (value === undefined) return 'steps';
  if ((VIAS as readonly string[]).includes(value)) return value as Via;
  throw new InvalidSetting('via', `must be steps, bulk or bulk-staged (got "${value}")`);
}
