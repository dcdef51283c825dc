// One CSV line to fields (RFC 4180 quoting: `"a, b"`, `""` for a quote). Quoted line breaks are not supported.
export type CsvFields = { ok: true; fields: string[] } | { ok: false; reason: string };

export function parseCsvLine(line: string): CsvFields {
  const fields: string[] = [];
  let i = 0;
  const n = line.length;
  for (;;) {
    if (line[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) return { ok: false, reason: 'a quoted field is not closed (line breaks inside quotes are not supported)' };
        value += line.slice(i, q);
        if (line[q + 1] === '"') {
          value += '"';
          i = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      while (i < n && (line[i] === ' ' || line[i] === '\t')) i++;
      fields.push(value);
      if (i >= n) return { ok: true, fields };
      if (line[i] !== ',') return { ok: false, reason: `unexpected text after a quoted field at column ${i + 1}` };
      i++;
    } else {
      const comma = line.indexOf(',', i);
      const end = comma < 0 ? n : comma;
      fields.push(line.slice(i, end).trim());
      if (comma < 0) return { ok: true, fields };
      i = comma + 1;
    }
  }
}
