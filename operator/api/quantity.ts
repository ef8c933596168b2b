// Kubernetes resource quantities in the forms the resource's schema accepts: a decimal number
// with an optional milli, decimal (k, M, G, T) or binary (Ki, Mi, Gi, Ti) suffix. One pattern
// serves the schema, the NODE_OPTIONS sizing and the drift check, so they never disagree on
// what a quantity is.

/** The schema's pattern, anchored. */
export const QUANTITY_PATTERN = /^[0-9]+(\.[0-9]+)?(m|Ki|Mi|Gi|Ti|k|M|G|T)?$/;

const UNIT: Record<string, number> = {
  '': 1,
  m: 1 / 1000,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
};

/** The quantity's value (`512Mi` → 536870912, `500m` → 0.5), or undefined when it is not one. */
export function quantityValue(quantity: string): number | undefined {
  const match = QUANTITY_PATTERN.exec(quantity);
  if (!match) return undefined;
  const suffix = match[2] ?? '';
  return Number(quantity.slice(0, quantity.length - suffix.length)) * UNIT[suffix]!;
}
