// Rows of results and their Markdown table.

/** A row: what was measured, the value, the target, and whether it was met (null: no target). */
export function row(benchmark, measured, target, pass) {
  return { benchmark, measured, target: target ?? '', pass: pass ?? null };
}

export function markdownTable(rows) {
  const head = ['Benchmark', 'Measured', 'Target', 'Result'];
  const body = rows.map((r) => [r.benchmark, r.measured, r.target || '-', r.pass === null ? '-' : r.pass ? 'pass' : 'FAIL']);
  const lines = [head, head.map(() => '---'), ...body].map((cells) => `| ${cells.join(' | ')} |`);
  return lines.join('\n');
}

export const fmt = {
  int: (n) => Math.round(n).toLocaleString('en-US'),
  rate: (n) => `${Math.round(n).toLocaleString('en-US')}/s`,
  s: (ms) => `${(ms / 1000).toFixed(1)} s`,
  mb: (n) => `${Math.round(n)} MB`,
  pct: (x) => `${Math.round(x * 100)}%`,
  x: (x) => `${x.toFixed(2)}x`,
};
