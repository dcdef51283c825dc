// Rules a secret must meet before it is used: the same checks the reference core applies at startup.
import { isStandardBase64 } from '../hashes/verify.js';
import type { SecretName } from './types.js';

const API_KEY = /^[A-Za-z0-9=-]+$/;

/** Why this value cannot be used, or undefined when it can. An empty value means "not given" and passes. */
export function checkSecret(name: SecretName, value: string): string | undefined {
  if (value === '') return undefined;
  switch (name) {
    case 'apiKey':
      if (value.length < 20) return `too short (${value.length} of at least 20 characters)`;
      if (!API_KEY.test(value)) return 'only letters, digits, = and - are allowed';
      return undefined;
    case 'signerKey':
      return isStandardBase64(value) ? undefined : 'not standard base64 (A-Z a-z 0-9 + / and = padding)';
    case 'licenseKey':
      return /\s/.test(value) ? 'must not contain spaces' : undefined;
  }
}
