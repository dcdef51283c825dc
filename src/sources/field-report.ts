// What the readers carried over and what they could not: one entry per (format, source field), counted over
// the records that had it. `validate` names every dropped source field once (text and --json) instead of
// dropping it silently or warning on every record. Generic: any reader takes a FieldReport via ReadOptions.
import { formatCount } from '../numbers.js';

/** One source field of one format: where it went (`to`) or why it could not go anywhere (`reason`). */
export interface FieldEntry {
  /** The reader's format name, e.g. `clerk`, `firebase-csv`. */
  format: string;
  /** The source's name for the field, e.g. `password_digest`, `Attributes.custom:plan`. */
  field: string;
  /** Mapped: the canonical field it fills, e.g. `metadata.first_name`. */
  to?: string;
  /** Dropped: why the core cannot hold it. Never a value from the file. */
  reason?: string;
  /** How many records had the field. */
  records: number;
}

export interface FieldSummary {
  mapped: FieldEntry[];
  dropped: FieldEntry[];
}

export class FieldReport {
  private readonly mappedEntries = new Map<string, FieldEntry>();
  private readonly droppedEntries = new Map<string, FieldEntry>();

  /** A record's `field` was carried to the canonical `to`. */
  mapped(format: string, field: string, to: string): void {
    bump(this.mappedEntries, format, field, (e) => (e.to = to));
  }

  /** A record's `field` could not be carried; `reason` says why (the same for every record). */
  dropped(format: string, field: string, reason: string): void {
    bump(this.droppedEntries, format, field, (e) => (e.reason = reason));
  }

  get empty(): boolean {
    return this.mappedEntries.size === 0 && this.droppedEntries.size === 0;
  }

  /** Sorted by format then field, so two reads of the same files compare equal. */
  summary(): FieldSummary {
    const order = (a: FieldEntry, b: FieldEntry): number => a.format.localeCompare(b.format) || a.field.localeCompare(b.field);
    return {
      mapped: [...this.mappedEntries.values()].map((e) => ({ ...e })).sort(order),
      dropped: [...this.droppedEntries.values()].map((e) => ({ ...e })).sort(order),
    };
  }
}

function bump(map: Map<string, FieldEntry>, format: string, field: string, first: (e: FieldEntry) => void): void {
  const key = `${format}\u0000${field}`;
  const entry = map.get(key);
  if (entry) {
    entry.records++;
    return;
  }
  const created: FieldEntry = { format, field, records: 1 };
  first(created);
  map.set(key, created);
}

/** The text lines `validate` prints: every dropped field once, and how many were mapped. */
export function renderFieldSummary(fields: FieldSummary | undefined): string[] {
  if (!fields) return [];
  const lines: string[] = [];
  if (fields.mapped.length > 0) {
    const formats = [...new Set(fields.mapped.map((e) => e.format))].join(', ');
    lines.push(`  source fields carried: ${fields.mapped.length} (${formats}; validate --json lists each with its canonical field)`);
  }
  if (fields.dropped.length > 0) {
    lines.push(`  source fields NOT carried over (${formatCount(fields.dropped.length)}):`);
    for (const e of fields.dropped)
      lines.push(`    ${e.format} ${e.field} (${formatCount(e.records)} record${e.records === 1 ? '' : 's'}): ${e.reason}`);
  }
  return lines;
}
