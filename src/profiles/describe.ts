// How a profile is shown to people: every secret reduced to where it comes from, never its value.
import { SECRET_LABELS, SECRET_NAMES, type LoadedProfile, type Profile, type SecretSource } from './types.js';

export function describeSecretSource(source: SecretSource, present: boolean): string {
  switch (source.store) {
    case 'file':
      return present ? '(stored)' : '(stored, but missing from the secrets file)';
    case 'env':
      return present ? `(from $${source.name})` : `(from $${source.name}, which is not set)`;
    case 'none':
      return '(not stored)';
  }
}

export function describeTarget(profile: Profile): string {
  const t = profile.target;
  if (t.kind === 'sandbox') return t.store ? `sandbox (store ${t.store})` : 'sandbox';
  const scope = [t.app ? `app ${t.app}` : '', t.tenant ? `tenant ${t.tenant}` : ''].filter(Boolean).join(', ');
  return scope ? `${t.url} (${scope})` : t.url;
}

/** The lines of `auth-migrate profiles show NAME`. */
export function describeProfile(loaded: LoadedProfile): string[] {
  const { profile: p, secrets } = loaded;
  const lines = [`profile ${p.name}`, `  target           ${describeTarget(p)}`];
  if (p.sources.length === 0) lines.push('  sources          (none)');
  p.sources.forEach((s, i) => lines.push(`  ${i === 0 ? 'sources ' : '        '}         ${s.path} (${s.format ?? 'detect'})`));
  if (p.hashConfig) {
    const h = p.hashConfig;
    lines.push(
      `  hash parameters  ${h.algorithm ?? 'SCRYPT'}, salt separator ${h.saltSeparator}, rounds ${h.rounds}, mem_cost ${h.memCost}`,
    );
  }
  if (p.providerMap && Object.keys(p.providerMap).length > 0) {
    lines.push(
      `  provider map     ${Object.entries(p.providerMap)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}`,
    );
  }
  if (p.concurrency !== undefined) lines.push(`  concurrency      ${p.concurrency}`);
  if (p.keepSourceIds) lines.push('  keep source ids  yes');
  if (p.jobIntervalSec !== undefined) lines.push(`  job interval     ${p.jobIntervalSec} s (bulk-staged)`);
  if (p.scryptAlgorithmName) lines.push(`  scrypt algorithm ${p.scryptAlgorithmName}`);
  for (const key of SECRET_NAMES) {
    lines.push(`  ${SECRET_LABELS[key].padEnd(16)} ${describeSecretSource(p.secrets[key], secrets[key] !== undefined)}`);
  }
  return lines;
}
