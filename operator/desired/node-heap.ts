// Node sizes its JavaScript heap from the memory it can see: in a pod, about a quarter of the
// memory limit. V8 lets a small heap grow less past what a collection kept, so it collects more
// often: with a 256 MB heap (a 1 GiB limit) the dispatcher spent about a third more CPU per event
// than with Node's usual heap (docs/benchmarks.md, "the roles' heap in a small pod"). The operator
// gives each role with a memory limit half of it instead, and the role then lets its heap grow as
// V8 would a large one (services/runtime/heap-growth.ts): the size alone gained little. The other
// half is for what lives outside the heap (buffers, Kafka fetches, compiled code), so that a
// runaway batch still meets V8's limit, which exits with "JavaScript heap out of memory", before
// the kernel's OOM killer.
import type { ErrataSpec, Role } from '../api/errata-resource.ts';

const MIB = 2 ** 20;
/** The largest heap measured (Node's own on a 24 GiB machine); V8's growing factor is at its highest well below it. */
const MAX_HEAP_MIB = 4096;
/** The share of a role's memory limit its heap may take. */
const HEAP_SHARE = 0.5;

const UNIT: Record<string, number> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
};

/** Bytes in a memory quantity of the form the resource's schema accepts (`512Mi`, `1.5Gi`, `1G`, `1073741824`). */
export function quantityBytes(quantity: string): number {
  const match = /^([0-9]+(?:\.[0-9]+)?)(m|Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(quantity);
  if (!match) throw new Error(`not a Kubernetes quantity: ${quantity}`);
  return Number(match[1]) * UNIT[match[2] ?? '']!;
}

/** `--max-old-space-size` (in MiB) for a memory limit, or undefined when half of it is under a MiB. */
export function heapMibForLimit(limitBytes: number): number | undefined {
  const mib = Math.min(MAX_HEAP_MIB, Math.floor((limitBytes * HEAP_SHARE) / MIB));
  return mib >= 1 ? mib : undefined;
}

/**
 * NODE_OPTIONS with the role's heap size, when the role has a memory limit and its own env does
 * not set NODE_OPTIONS (the user's value wins, whole).
 */
export function nodeHeapEnv(roleSpec: Pick<ErrataSpec[Role], 'resources' | 'env'>): Array<{ name: string; value: string }> {
  const limit = roleSpec.resources?.limits?.memory;
  if (!limit || roleSpec.env?.some((v) => v.name === 'NODE_OPTIONS')) return [];
  const mib = heapMibForLimit(quantityBytes(limit));
  return mib === undefined ? [] : [{ name: 'NODE_OPTIONS', value: `--max-old-space-size=${mib}` }];
}
