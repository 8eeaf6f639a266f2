// Typed arrays indexed by small integers (segment ids, slots, buckets) and grown by doubling: the engine's tables
// read typed memory only, with no Map lookup and no boxed number per entry.

/** Ids below this index typed arrays directly (at most 16 M entries); others go through a Map or a Set. */
export const DIRECT_IDS = 1 << 24;

/** Whether `id` can index a typed array directly: an integer in [0, DIRECT_IDS). */
export function isDirectId(id: number): boolean {
  return id >= 0 && id < DIRECT_IDS && id === (id | 0);
}

/** `a` itself when it has an entry `index`; else a copy, its length doubled until it does (values kept, the rest 0). */
export function grownToHold<T extends Int32Array | Uint8Array | Float64Array>(a: T, index: number): T {
  if (index < a.length) return a;
  let size = Math.max(1, a.length);
  while (size <= index) size *= 2;
  const b = new (a.constructor as new (length: number) => T)(size);
  b.set(a);
  return b;
}
