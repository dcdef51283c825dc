// Comparisons of a computed hash with a stored one that take the same time wherever the two differ
// (node:crypto's timingSafeEqual); a length mismatch still does the full comparison of the computed value.
import { timingSafeEqual } from 'node:crypto';

export function sameBytes(computed: Uint8Array, stored: Uint8Array): boolean {
  if (computed.length !== stored.length) {
    timingSafeEqual(computed, computed);
    return false;
  }
  return timingSafeEqual(computed, stored);
}

export function sameText(computed: string, stored: string): boolean {
  return sameBytes(Buffer.from(computed, 'utf8'), Buffer.from(stored, 'utf8'));
}
