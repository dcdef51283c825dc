// Types of pair-order.js, for the tests (tsconfig.test.json does not read JavaScript).
export function pairOrder(pairs: number): ('bare' | 'tool')[];
