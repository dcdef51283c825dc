// Tab completion of file paths, read with fs/promises (never synchronous I/O in a component).
import { readdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** Whether text typed in a field is a file's path rather than pasted content (no braces, no line break, no `:`-pairs). */
export function looksLikePath(text: string): boolean {
  const t = text.trim();
  return t !== '' && !/[{}\n]|\s:\s|:\s/.test(t) && /^(~\/|\.{1,2}\/|\/)|\.(json|txt|conf)$/i.test(t);
}

/** Entries that start with the last segment of `partial`; folders end with `/`. `~/` is understood. */
export async function completePath(partial: string, cwd: string = process.cwd()): Promise<string[]> {
  const expanded = partial.startsWith('~/') ? join(homedir(), partial.slice(2)) : partial;
  const endsWithSlash = expanded.endsWith('/');
  const dir = endsWithSlash ? expanded : dirname(expanded);
  const base = endsWithSlash
    ? ''
    : expanded.slice(dir === '.' && !expanded.startsWith('./') ? 0 : dir.length + (dir.endsWith('/') ? 0 : 1));
  const prefix = endsWithSlash ? partial : partial.slice(0, partial.length - base.length);
  let entries;
  try {
    entries = await readdir(dir === '' ? cwd : join(dir.startsWith('/') ? '' : cwd, dir), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.name.startsWith(base) && (base.startsWith('.') || !e.name.startsWith('.')))
    .map((e) => prefix + e.name + (e.isDirectory() ? '/' : ''))
    .sort();
}
