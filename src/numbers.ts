// Numbers as people read them: counts with thousands separators (`1,234,567`), the same in every output.
const COUNT = new Intl.NumberFormat('en-US');

/** A count with thousands separators: 1234567 -> "1,234,567". */
export function formatCount(n: number): string {
  return COUNT.format(n);
}
