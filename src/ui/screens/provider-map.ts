// The provider map as the source screen edits it: `google.com=google, apple.com=apple` to and from its object.
/** `google.com=google, apple.com=apple` <-> {"google.com": "google", ...}; undefined when a pair is malformed. */
export function parseProviderMap(text: string): Record<string, string> | undefined {
  const map: Record<string, string> = {};
  for (const pair of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([^=\s]+)\s*=\s*([^=\s]+)$/.exec(pair);
    if (!m) return undefined;
    map[m[1]!] = m[2]!;
  }
  return map;
}

export function formatProviderMap(map: Record<string, string> | undefined): string {
  return Object.entries(map ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
}
