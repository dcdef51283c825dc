// The previous export: the files the earlier run migrated, referenced by path and checksum from the sync's journal
// header (never copied into it: they hold hashes and secrets). A sync reads the records of the users it changes
// from it (which metadata keys, devices and logins the migration wrote), and a rollback of the sync restores what
// the sync removed from it. A record is only used when its fingerprint is the one the earlier run journalled.
// Invariant: a record is used only when its fingerprint is the one the earlier run journalled.
import { resolve } from 'node:path';
import type { ReadOptions } from '../../sources/index.js';
import { readSources } from '../../sources/index.js';
import { checkRecord } from '../../records/record-rules.js';
import type { CanonicalUser } from '../../records/types.js';
import type { UnusableHashPolicy } from '../../records/legacy-rules.js';
import { checksum, type PreviousFile } from './base.js';
import { fingerprintBytes, type FingerprintKey } from './fingerprint.js';

export interface PreviousExport {
  files: PreviousFile[];
  /** Whether its records can be read: every file there and none overwritten by the newer export. */
  usable: boolean;
  /** Why not, for the operator (and the rollback's honesty). */
  note?: string;
}

/** The earlier run's files as they are now, each with its checksum. */
export async function previousExport(baseSources: string[], newSources: string[]): Promise<PreviousExport> {
  const now = new Set(newSources.map((s) => resolve(s)));
  const overwritten = baseSources.filter((s) => now.has(resolve(s)));
  const files: PreviousFile[] = [];
  for (const path of baseSources) {
    const sum = overwritten.includes(path) ? undefined : await checksum(path);
    files.push(sum ? { path, ...sum } : { path });
  }
  if (overwritten.length > 0) {
    return {
      files,
      usable: false,
      note:
        `the newer export is at the path the earlier run read (${overwritten.join(', ')}): the previous export is gone. ` +
        'Keep each export under its own name: then metadata keys removed from the export are removed too, and a rollback of this sync restores what it removed',
    };
  }
  const missing = files.filter((f) => f.sha256 === undefined).map((f) => f.path);
  if (missing.length > 0) {
    return {
      files,
      usable: false,
      note: `the previous export ${missing.join(', ')} cannot be read: metadata keys removed from the export are left, and a rollback of this sync cannot restore what it removed`,
    };
  }
  return { files, usable: true };
}

/** Normalised records of `wanted` users whose fingerprint is the journalled one (the same record the earlier run read). */
export async function readPreviousRecords(
  files: string[],
  options: ReadOptions & { unusableHashes?: UnusableHashPolicy },
  /** Users wanted, with the fingerprint their record must have (undefined: any record of that id). */
  wanted: Map<string, { fp: Uint8Array; key: FingerprintKey } | undefined>,
): Promise<Map<string, CanonicalUser>> {
  const out = new Map<string, CanonicalUser>();
  if (wanted.size === 0) return out;
  for await (const item of readSources(files, options)) {
    if (item.kind !== 'record') continue;
    const raw = item.value.record as { id?: unknown } | undefined;
    const id = typeof raw?.id === 'string' ? raw.id.trim() : typeof raw?.id === 'number' ? String(raw.id) : undefined;
    if (id === undefined || !wanted.has(id)) continue;
    const want = wanted.get(id);
    const record = checkRecord({ origin: item.value.origin, problems: [] }, item.value.record, { unusableHashes: options.unusableHashes });
    if (!want || Buffer.compare(Buffer.from(fingerprintBytes(record, want.key).subarray(0, 8)), Buffer.from(want.fp.subarray(0, 8))) === 0)
      out.set(id, record);
  }
  return out;
}
