// The order of the real-core bench's counted turns (bench/sections/real-core.js): which side, the bare script or the
// tool, runs in each turn, so that both get as many late turns as early ones.

/**
 * The counted turns' sides: pair k is bare then tool, or tool then bare where k has an odd number of 1 bits (the
 * Thue-Morse order: 4 pairs give bare, tool, tool, bare, tool, bare, bare, tool). The reference core slows as it
 * ages under these turns (5,000 users by the bare script: 28.6 s after 45 minutes of turns, 17.9 s once the same
 * core was restarted on the same database), so each side must get as many late turns as early ones: with 4 pairs
 * both sides' positions add up alike (18 and 18), and a drift that grows steadily, or with the square of the time,
 * falls on both alike. With 3 pairs no order can (the positions 1 to 6 add up to 21), and bare, tool, tool, bare,
 * bare, tool gave the tool the last, slowest turn.
 */
export function pairOrder(pairs) {
  const oddOnes = (k) => [...k.toString(2)].filter((bit) => bit === '1').length % 2 === 1;
  return Array.from({ length: pairs }, (_, k) => (oddOnes(k) ? ['tool', 'bare'] : ['bare', 'tool'])).flat();
}
