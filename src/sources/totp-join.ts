// Join TOTP rows (the small side, kept in maps) to the records streamed from the user files.
import type { Problem, SourceRecord } from '../records/types.js';
import type { TotpRow } from './totp.js';

export class TotpJoin {
  private readonly byId = new Map<string, TotpRow[]>();
  private readonly byEmail = new Map<string, TotpRow[]>();
  private readonly used = new Set<TotpRow>();
  private rows: TotpRow[] = [];

  get size(): number {
    return this.rows.length;
  }

  add(row: TotpRow): void {
    this.rows.push(row);
    if (row.userId !== undefined) push(this.byId, row.userId, row);
    else if (row.email !== undefined) push(this.byEmail, normaliseEmail(row.email), row);
  }

  /** Append the rows that name this record (by id, or by email) to its `totp` list. */
  attach(source: SourceRecord): void {
    const r = source.record;
    const candidates = [
      ...(this.byId.get(r.id) ?? []),
      ...(r.email !== undefined ? (this.byEmail.get(normaliseEmail(r.email)) ?? []) : []),
    ];
    for (const row of candidates) {
      if (this.used.has(row)) continue;
      this.used.add(row);
      (r.totp ??= []).push({ ...row.totp });
      for (const p of row.problems)
        source.problems.push({ ...p, sourceId: r.id, field: `totp[${r.totp.length - 1}]${p.field ? '.' + p.field : ''}` });
    }
  }

  /** Problems for the rows no record claimed. */
  unmatched(): Problem[] {
    return this.rows
      .filter((row) => !this.used.has(row))
      .map((row) => ({
        severity: 'error' as const,
        rule: 'totp.unmatched',
        origin: row.origin,
        ...(row.userId !== undefined ? { sourceId: row.userId } : {}),
        message:
          row.userId !== undefined
            ? `no user in the other files has id "${row.userId}"; check the id or add the file that holds the user`
            : `no user in the other files has email "${row.email}"; check the email or add the file that holds the user`,
      }));
  }
}

function push(map: Map<string, TotpRow[]>, key: string, row: TotpRow): void {
  const list = map.get(key);
  if (list) list.push(row);
  else map.set(key, [row]);
}

function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}
