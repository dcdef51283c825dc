// The preflight as an operator reads it before any write (the wizard's target screen; `run` runs the same check
// right before its first write): the core's answers as named checks, the findings, and whether a run may go on.
// Invariant: the run's own check right before its first write is this same one, so both decide alike.
import type { PlanNeeds } from '../core-client/preflight.js';
import type { CoreClient } from '../core-client/types.js';
import type { PlanOptions } from '../engine/plan/plan.js';
import { checkTargetForPlan } from '../engine/target-check.js';
import type { Via } from '../engine/strategies/via.js';

export interface PreflightCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface PreflightResult {
  /** False when a write would surely fail (what stops `run` stops here). */
  ok: boolean;
  checks: PreflightCheck[];
  /** Warnings and errors, e.g. "12 users have TOTP devices but the core refuses TOTP (402)". */
  warnings: string[];
  /** The scrypt algorithm name the target takes (when the data has scrypt hashes). */
  scryptAlgorithmName?: string;
}

export async function preflightTarget(
  client: CoreClient,
  o: { needs?: Required<PlanNeeds>; plan: PlanOptions; via: Via; apiKeyGiven: boolean; url: string },
): Promise<PreflightResult> {
  const {
    report: r,
    refusal,
    plan,
  } = await checkTargetForPlan(client, o.needs ?? { totp: false, linking: false, scrypt: false, loginMethods: [] }, o.plan, o.via);
  // Without a key there is nothing to accept: a core that asks for none says so, it does not "accept" one.
  const apiKey =
    r.apiKeyAccepted === undefined
      ? { ok: false, detail: 'not checked' }
      : !o.apiKeyGiven
        ? {
            ok: r.apiKeyAccepted,
            detail: r.apiKeyAccepted ? 'none given; the core asks for none' : 'none given, and the core needs one (401)',
          }
        : { ok: r.apiKeyAccepted, detail: r.apiKeyAccepted ? 'accepted' : 'refused (401)' };
  const checks: PreflightCheck[] = [
    { name: 'hello', ok: r.reachable, detail: r.reachable ? `${o.url} answers` : 'no answer' },
    {
      name: 'apiversion',
      ok: r.agreedCdiVersion !== undefined,
      detail: r.versions ? `CDI ${r.agreedCdiVersion ?? 'none in common'} (core lists ${r.versions.length})` : 'not asked',
    },
    { name: 'api key', ...apiKey },
    { name: 'features', ok: r.features !== undefined, detail: r.features ? r.features.join(', ') || 'none (no licence)' : 'unknown' },
  ];
  if (o.needs?.scrypt) {
    checks.push({
      name: 'scrypt',
      ok: r.signerKey === true,
      detail: plan.scryptAlgorithmName
        ? `"${plan.scryptAlgorithmName}", signer key ${r.signerKey ? 'present' : 'missing'}`
        : 'not supported',
    });
  }
  const warnings = r.findings.filter((f) => f.level !== 'info').map((f) => `${f.level}: ${f.message}`);
  return { ok: refusal === undefined, checks, warnings, scryptAlgorithmName: plan.scryptAlgorithmName };
}
