// Base64 as exports carry it: web-safe (`-`, `_`) and unpadded forms normalised to standard, padded base64.

const STANDARD = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** With a length that is a multiple of 4, the same as STANDARD, without its backtracking cost. */
const SIMPLE = /^[A-Za-z0-9+/]*={0,2}$/;

/** Standard alphabet and padding; the bytes are unchanged. */
export function normaliseBase64(text: string): string {
  // Fast path: most exports are already standard and padded (one check instead of four regex passes).
  if (text.length % 4 === 0 && SIMPLE.test(text)) return text;
  const standard = text.trim().replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  const pad = standard.length % 4;
  return pad === 2 ? standard + '==' : pad === 3 ? standard + '=' : standard;
}

export function isBase64Text(text: string): boolean {
  return STANDARD.test(text);
}
