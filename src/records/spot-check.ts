// Password spot-check: verify a password the operator knows against a record's hash, before import.
import type { CanonicalUser } from './types.js';

export type SpotCheckOutcome = {
  result: 'match' | 'wrong-password' | 'cannot-verify' | 'missing-signer-key' | 'no-password' | 'not-found';
  detail: string;
  nonAsciiRisk?: boolean;
};

export async function spotCheckPassword(_record: CanonicalUser, _password: string, _options: { signerKey?: string }): Promise<SpotCheckOutcome> {
  throw new Error('not implemented yet');
}
