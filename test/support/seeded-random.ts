/** A small generator of numbers in [0, 1) with a fixed seed, so that a failing random test can be replayed. */
export function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 2 ** 32;
  };
}
