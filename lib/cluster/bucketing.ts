// The children of several radix-tree nodes grouped by segment id (timeline.ts's unionOf walks the caches of all
// replicas together). A segment id indexes scratch arrays stamped with a generation number, so grouping costs one
// array read and write per child — no Map, no clearing between groups. Ids outside [0, 2^24) or not integers go
// through a Map instead (same grouping).
import type { RadixNode } from "./radix-node";

const DIRECT_IDS = 1 << 24;
let mark = new Int32Array(1024);
let slot = new Int32Array(1024);
let generation = 0;

/** Children of `nodes` by segment: firsts[k] is the first child seen with its id; groups[k] all of them when more
 * than one node has that child, else null. Groups in first-seen order. */
export function bucketChildren(nodes: readonly RadixNode[]): { firsts: RadixNode[]; groups: Array<RadixNode[] | null> } {
  const firsts: RadixNode[] = [];
  const groups: Array<RadixNode[] | null> = [];
  if (++generation === 0x7fffffff) {
    mark.fill(0);
    generation = 1;
  }
  const gen = generation;
  let other: Map<number, number> | null = null;
  for (let j = 0; j < nodes.length; j++) {
    const parent = nodes[j];
    for (let i = 0, slots = parent.childSlots; i < slots; i++) {
      const c = parent.childAt(i);
      if (c === null) continue;
      const id = c.segment;
      let k = -1;
      if (id >= 0 && id < DIRECT_IDS && id === (id | 0)) {
        if (id >= mark.length) grow(id);
        if (mark[id] === gen) k = slot[id];
        else {
          mark[id] = gen;
          slot[id] = firsts.length;
        }
      } else {
        other ??= new Map();
        const at = other.get(id);
        if (at !== undefined) k = at;
        else other.set(id, firsts.length);
      }
      if (k < 0) {
        firsts.push(c);
        groups.push(null);
      } else {
        const g = groups[k];
        if (g === null) groups[k] = [firsts[k], c];
        else g.push(c);
      }
    }
  }
  return { firsts, groups };
}

function grow(id: number): void {
  let size = mark.length;
  while (size <= id) size *= 2;
  const m = new Int32Array(size);
  m.set(mark);
  mark = m;
  const s = new Int32Array(size);
  s.set(slot);
  slot = s;
}

/** Membership in a set of key segment ids and the count of distinct ones seen (unionOf's fully cached keys),
 * with arrays indexed by id instead of a Set lookup per visited node. Ids the arrays cannot index use the Set. */
export class KeyCounter {
  private readonly isKey: Uint8Array;
  private readonly seen: Uint8Array;
  private readonly others: Set<number> | null = null;
  count = 0;

  constructor(private readonly keys: ReadonlySet<number>) {
    let max = -1;
    let direct = true;
    for (const id of keys) {
      if (id >= 0 && id < DIRECT_IDS && id === (id | 0)) {
        if (id > max) max = id;
      } else direct = false;
    }
    this.isKey = maskOf(keys, max);
    this.seen = new Uint8Array(max + 1);
    if (!direct) this.others = new Set();
  }

  /** Counts `id` if it is a key not seen before. */
  add(id: number): void {
    if (id >= 0 && id < this.isKey.length && id === (id | 0)) {
      if (this.isKey[id] === 1 && this.seen[id] === 0) {
        this.seen[id] = 1;
        this.count++;
      }
    } else if (this.others !== null && this.keys.has(id) && !this.others.has(id)) {
      this.others.add(id);
      this.count++;
    }
  }
}

const masks = new WeakMap<ReadonlySet<number>, Uint8Array>();

/** 1 at every key id in [0, max] (kept per set: the same workload's set is asked for every snapshot). */
function maskOf(keys: ReadonlySet<number>, max: number): Uint8Array {
  const known = masks.get(keys);
  if (known !== undefined && known.length === max + 1) return known;
  const mask = new Uint8Array(max + 1);
  for (const id of keys) if (id >= 0 && id <= max && id === (id | 0)) mask[id] = 1;
  masks.set(keys, mask);
  return mask;
}
