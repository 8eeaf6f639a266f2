// The union of several radix trees (timeline.ts's unionOf: the replication factor's snapshots walk the caches of all
// replicas together). The nodes of one path in the caches that hold it form a group; a group's children are
// grouped by segment id — a segment id indexes scratch arrays stamped with a generation number, so grouping costs
// one array read and write per child, with no Map and no clearing between groups (ids outside [0, 2^24) or not
// integers go through a Map instead). Groups wait as runs of one scratch stack, so a snapshot allocates nothing
// but its KeyCounter: a snapshot runs twenty times a run, and the arrays a recursive grouping allocated per group
// were a quarter of the tool-calling bench's allocation. The trees' own totals give the union less what shared paths
// count twice, so a subtree only one cache holds is not summed: it is walked for key segments only, and not below
// the deepest one (a tool call's question and answer under its tool are not visited at all). Sums of integer token
// counts and a set's size: the order groups are visited in cannot change the result.
import type { RadixNode } from "./radix-node";
import { grownToHold, isDirectId } from "../core/typed-arrays";

let mark: Int32Array = new Int32Array(1024);
let slot: Int32Array = new Int32Array(1024);
let generation = 0;
/** by bucket of the grouping in progress: children seen, the first one, where its group starts on the stack */
let counts: Int32Array = new Int32Array(64);
let starts: Int32Array = new Int32Array(64);
const firsts: RadixNode[] = [];
/** groups waiting: runs of `stack`, [groupStart[g], groupStart[g] + groupLength[g]) */
const stack: RadixNode[] = [];
let groupStart: Int32Array = new Int32Array(64);
let groupLength: Int32Array = new Int32Array(64);
let groups = 0;
/** the walk of a subtree held by one cache only */
const singles: RadixNode[] = [];

/** Distinct tokens over the union of the trees under `roots` (one root per cache): a path held by several caches
 * counts the most any of them holds of its last segment. `heldTotal` is what the trees hold in all (their
 * heldTokens): the union is that less, on every path held by several caches, what all but the largest hold — so
 * only shared paths are walked, and a subtree held by one cache only is walked just for its key segments, no deeper
 * than `keyDepth` (the deepest a key segment sits in any prompt: 1 at the root's children). Fully held key segments
 * go to `keys`. */
export function unionDistinct(roots: readonly RadixNode[], heldTotal: number, keys: KeyCounter, keyDepth = Infinity): number {
  let excess = 0;
  for (let i = 0; i < roots.length; i++) setAt(stack, i, roots[i]);
  groups = 0;
  pushGroup(0, roots.length);
  while (groups > 0) {
    groups--;
    const start = groupStart[groups];
    const length = groupLength[groups];
    excess += groupHead(start, length, keys);
    groupChildren(start, length, start + length, keys, keyDepth);
  }
  // no references kept to the caches' nodes once the snapshot is taken (the scratch lists are as long as the
  // most they ever held)
  stack.fill(null as unknown as RadixNode);
  firsts.fill(null as unknown as RadixNode);
  singles.fill(null as unknown as RadixNode);
  return heldTotal - excess;
}

/** One path held by ≥ 1 caches: what all but the largest hold (counted more than once in the trees' totals); the
 * segment counts as a key when one holds it whole. */
function groupHead(start: number, length: number, keys: KeyCounter): number {
  let most = 0;
  let sum = 0;
  let full = false;
  for (let i = start; i < start + length; i++) {
    const n = stack[i];
    sum += n.held;
    if (n.held > most) most = n.held;
    if (n.held === n.tokens) full = true;
  }
  if (full) keys.add(stack[start].segment);
  return sum - most;
}

/** Buckets the children of the group at stack[start … start + length) by segment: a child only one cache has is
 * searched for key segments at once, the others become groups placed on the stack from `top` up. */
function groupChildren(start: number, length: number, top: number, keys: KeyCounter, keyDepth: number): void {
  if (++generation === 0x7fffffff) {
    mark.fill(0);
    generation = 1;
  }
  let other: Map<number, number> | null = null;
  let buckets = 0;
  for (let j = start; j < start + length; j++) {
    const parent = stack[j];
    for (let i = 0, slots = parent.childSlots; i < slots; i++) {
      const c = parent.childAt(i);
      if (c === null) continue;
      const id = c.segment;
      let k = -1;
      if (isDirectId(id)) {
        if (id >= mark.length) growIds(id);
        if (mark[id] === generation) k = slot[id];
        else {
          mark[id] = generation;
          slot[id] = buckets;
        }
      } else {
        other ??= new Map();
        const at = other.get(id);
        if (at !== undefined) k = at;
        else other.set(id, buckets);
      }
      if (k >= 0) counts[k]++;
      else {
        // a segment first seen in this grouping: a new bucket
        if (buckets === counts.length) growBuckets();
        counts[buckets] = 1;
        setAt(firsts, buckets++, c);
      }
    }
  }
  let at = top;
  for (let k = 0; k < buckets; k++) {
    if (counts[k] === 1) {
      if (firsts[k].depth <= keyDepth) singleSubtreeKeys(firsts[k], keys, keyDepth);
    } else {
      starts[k] = at;
      pushGroup(at, counts[k]);
      at += counts[k];
    }
  }
  if (at === top) return;
  // the groups are filled in the order their children come, not position by position
  while (stack.length < at) stack.push(null as unknown as RadixNode);
  for (let j = start; j < start + length; j++) {
    const parent = stack[j];
    for (let i = 0, slots = parent.childSlots; i < slots; i++) {
      const c = parent.childAt(i);
      if (c === null) continue;
      const id = c.segment;
      const k = isDirectId(id) ? slot[id] : ((other as Map<number, number>).get(id) as number);
      if (counts[k] > 1) setAt(stack, starts[k]++, c);
    }
  }
}

/** A subtree held by one cache only: its fully held key segments, down to depth `keyDepth` (its tokens are all
 * distinct, already in the trees' totals). A node with one child goes straight on to it (most such subtrees are
 * chains: a tool call's question and its answer); branches wait on a stack. */
function singleSubtreeKeys(start: RadixNode, keys: KeyCounter, keyDepth: number): void {
  let sp = 0;
  let n = start;
  for (;;) {
    if (n.held === n.tokens) keys.add(n.segment);
    const slots = n.depth < keyDepth ? n.childSlots : 0;
    if (slots === 1) {
      const only = n.childAt(0);
      if (only !== null) {
        n = only;
        continue;
      }
    } else {
      for (let i = 0; i < slots; i++) {
        const c = n.childAt(i);
        if (c !== null) setAt(singles, sp++, c);
      }
    }
    if (sp === 0) return;
    n = singles[--sp];
  }
}

function setAt(list: RadixNode[], i: number, node: RadixNode): void {
  if (i < list.length) list[i] = node;
  else list.push(node);
}

function pushGroup(start: number, length: number): void {
  groupStart = grownToHold(groupStart, groups);
  groupLength = grownToHold(groupLength, groups);
  groupStart[groups] = start;
  groupLength[groups] = length;
  groups++;
}

function growBuckets(): void {
  counts = grownToHold(counts, counts.length);
  starts = grownToHold(starts, starts.length);
}

function growIds(id: number): void {
  mark = grownToHold(mark, id);
  slot = grownToHold(slot, id);
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
      if (isDirectId(id)) {
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

/** Whether `id` is in `keys`, through the set's id mask (an array read) where the id can index it. */
export function keyTester(keys: ReadonlySet<number>): (id: number) => boolean {
  let max = -1;
  for (const id of keys) if (isDirectId(id) && id > max) max = id;
  const mask = maskOf(keys, max);
  return (id) => (id >= 0 && id < mask.length && id === (id | 0) ? mask[id] === 1 : keys.has(id));
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
