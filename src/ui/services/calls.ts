// The plan screen's list of calls: how many of each request the plan sends (per-user steps), or the bulk path.
import type { DryRunSummary } from '../../migration/dry-run.js';
import type { StepKind } from '../../migration/steps.js';
import { VIA_EXPLAINED, type Via } from '../../migration/via.js';

const STEP_CALLS: Partial<Record<StepKind, string>> = {
  'import-password': 'POST /recipe/user/passwordhash/import',
  'thirdparty-signinup': 'POST /recipe/signinup (third party)',
  'passwordless-signinup': 'POST /recipe/signinup/code + /consume',
  'passwordless-add-contact': 'PUT /recipe/user (rid passwordless)',
  'map-user-id': 'POST /recipe/userid/map',
  'verify-email': 'POST /recipe/user/email/verify/token + /recipe/user/email/verify',
  'create-primary': 'POST /recipe/accountlinking/user/primary',
  'link-accounts': 'POST /recipe/accountlinking/user/link',
  'import-totp': 'POST /recipe/totp/device/import',
  'update-metadata': 'GET + PUT /recipe/user/metadata',
  'create-role': 'PUT /recipe/role',
  'assign-role': 'PUT /recipe/user/role',
  'replace-password': 'POST /recipe/user/passwordhash/import (replacing an existing hash)',
  'legacy-entry': 'GET + PUT /recipe/user/metadata',
};

export function callsOf(via: Via, s: DryRunSummary): { what: string; count: number }[] {
  if (via !== 'steps') return [{ what: VIA_EXPLAINED[via], count: s.planned }];
  return Object.entries(s.stepsByKind).map(([kind, count]) => ({ what: STEP_CALLS[kind as StepKind] ?? kind, count: count ?? 0 }));
}
