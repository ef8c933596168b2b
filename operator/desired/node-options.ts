// Node sizes a process's young generation from its heap, and its heap from the memory it can
// see: in a pod with a 1 GiB memory limit, semi-spaces of 4 MiB instead of the 16 MiB a large
// machine gets. Objects that would have died young then survive into the old generation, and the
// roles spend more CPU per event (docs/benchmarks.md, "a heap sized from the pod's limit"). So a
// role with a memory limit from 1 GiB to under 4 GiB gets `--max-semi-space-size=16`, at most
// 48 MiB of young generation, under 5% of its limit; from 4 GiB up Node gives 16 MiB itself. (The
// old generation's growing factor the role sets itself: services/runtime/heap-growth.ts.) A
// NODE_OPTIONS in the role's env replaces this whole.
import type { ErrataSpec, Role } from '../api/errata-resource.ts';
import { quantityValue } from '../api/quantity.ts';

const SEMI_SPACE_MIB = 16;
const MIN_LIMIT_BYTES = 2 ** 30;
const NODE_GIVES_IT_FROM_BYTES = 4 * 2 ** 30;

/** Bytes in a quantity of the form the resource's schema accepts (`512Mi`, `1.5Gi`, `1G`, `1073741824`). */
export function quantityBytes(quantity: string): number {
  const bytes = quantityValue(quantity);
  if (bytes === undefined) throw new Error(`not a Kubernetes quantity: ${quantity}`);
  return bytes;
}

/** NODE_OPTIONS for a role, when its memory limit calls for one and its own env sets none. */
export function nodeOptionsEnv(roleSpec: Pick<ErrataSpec[Role], 'resources' | 'env'>): Array<{ name: string; value: string }> {
  const limit = roleSpec.resources?.limits?.memory;
  if (!limit || roleSpec.env?.some((v) => v.name === 'NODE_OPTIONS')) return [];
  const bytes = quantityBytes(limit);
  if (bytes < MIN_LIMIT_BYTES || bytes >= NODE_GIVES_IT_FROM_BYTES) return [];
  return [{ name: 'NODE_OPTIONS', value: `--max-semi-space-size=${SEMI_SPACE_MIB}` }];
}
