// The union of the replicas' caches, kept up to date as they change (the replication factor's snapshots): what
// timeline.ts's unionOf computes by walking every cache, here maintained from each change of a node's held tokens
// (RadixTree.onHeld), so a snapshot costs nothing. The walk took a sixth of the tool-calling bench (twenty
// snapshots of ≈ 9,000 nodes a run); a change costs a few steps, and caches change far less often than twenty
// times their size.
//
// One union node per path cached somewhere (a RadixNode of its own trie): `refs` counts the caches holding it
// whole, `payload` lists the cache nodes holding only part of it (a partly evicted tail), `held` is what it adds
// to the distinct tokens — all of it when one cache holds it whole, else the most any cache holds. Every change is
// an integer added or taken away, so the sums equal the walk's whatever the order (unionOf stays the reference:
// the simulator compares the two at every snapshot when run with `check`).
import { RadixNode } from "./radix-node";
import type { RadixTree } from "./radix-tree";

type UnionNode = RadixNode<RadixNode[]>;

export class CacheUnion {
  /** distinct tokens over all caches */
  distinct = 0;
  /** key segments held whole by some cache */
  keys = 0;
  private readonly root: UnionNode = new RadixNode<RadixNode[]>(-1, 0, null, 0, 0, 0);
  /** per key segment id: cache nodes holding it whole (ids an array can index; others in the Map) */
  private readonly wholeCount: Int32Array;
  private readonly isKey: Uint8Array;
  private readonly wholeOther = new Map<number, number>();
  private readonly spare: UnionNode[] = [];

  /** `keySegments`: the workload's key portions; the caches' roots count as a key when −1 is one (as in unionOf). */
  constructor(private readonly keySegments: ReadonlySet<number>, caches: readonly RadixTree[]) {
    if (caches.length > 0 && keySegments.has(-1)) this.keys = 1;
    // forEach: a for…of over a Set allocates a result object per id outside optimized code (once per run here)
    let max = -1;
    keySegments.forEach((id) => {
      if (isDirect(id) && id > max) max = id;
    });
    const isKey = new Uint8Array(max + 1);
    keySegments.forEach((id) => {
      if (isDirect(id)) isKey[id] = 1;
    });
    this.isKey = isKey;
    this.wholeCount = new Int32Array(max + 1);
    for (const cache of caches) cache.onHeld = this.onHeld;
  }

  /** RadixTree.onHeld for every cache: `node` went from `before` held tokens to node.held. */
  private readonly onHeld = (node: RadixNode, before: number): void => {
    const after = node.held;
    const u = before === 0 ? this.unionNodeOf(node) : (node.payload as UnionNode);
    const tokens = node.tokens;
    if (before === tokens) u.refs--;
    else if (before > 0) removePartial(u, node);
    if (after === tokens) u.refs++;
    else if (after > 0) ((u.payload ??= []) as RadixNode[]).push(node);
    if (before === tokens || after === tokens) this.countKey(node.segment, before === tokens ? -1 : 1);
    const contribution = u.refs > 0 ? tokens : mostHeld(u.payload);
    this.distinct += contribution - u.held;
    u.held = contribution;
    if (after === 0) {
      node.payload = undefined;
      if (u.refs === 0 && (u.payload === undefined || u.payload.length === 0)) this.release(u);
    }
  };

  /** The union node of a node new to its cache (its parent's is known: a parent is never newer than its child). */
  private unionNodeOf(node: RadixNode): UnionNode {
    const parent = node.parent as RadixNode;
    const up = parent.parent === null ? this.root : (parent.payload as UnionNode);
    let u = up.child(node.segment);
    if (u === undefined) {
      const spare = this.spare.pop();
      if (spare !== undefined) {
        spare.reuse(node.segment, node.tokens, up, 0, up.depth + 1, 0);
        u = spare;
      } else u = new RadixNode<RadixNode[]>(node.segment, node.tokens, up, 0, up.depth + 1, 0);
      u.held = 0;
      up.addChild(u);
    }
    node.payload = u;
    return u;
  }

  /** A path no cache holds any more leaves the trie (its children left before it: a child's holder has the path). */
  private release(u: UnionNode): void {
    (u.parent as UnionNode).removeChild(u);
    u.attached = false;
    u.payload = undefined;
    this.spare.push(u);
  }

  /** One more (delta 1) or one fewer (−1) cache node holding `segment` whole. */
  private countKey(segment: number, delta: number): void {
    let was: number;
    if (isDirect(segment)) {
      if (segment >= this.isKey.length || this.isKey[segment] === 0) return;
      was = this.wholeCount[segment];
      this.wholeCount[segment] = was + delta;
    } else {
      if (!this.keySegments.has(segment)) return;
      was = this.wholeOther.get(segment) ?? 0;
      this.wholeOther.set(segment, was + delta);
    }
    if (was === 0 && delta > 0) this.keys++;
    else if (was === 1 && delta < 0) this.keys--;
  }
}

/** An id the key arrays index directly (as in bucketing.ts's KeyCounter). */
function isDirect(id: number): boolean {
  return id >= 0 && id < 1 << 24 && id === (id | 0);
}

function removePartial(u: UnionNode, node: RadixNode): void {
  const list = u.payload as RadixNode[];
  const at = list.indexOf(node);
  list[at] = list[list.length - 1];
  list.pop();
}

function mostHeld(partials: RadixNode[] | undefined): number {
  let most = 0;
  if (partials !== undefined) for (let i = 0; i < partials.length; i++) if (partials[i].held > most) most = partials[i].held;
  return most;
}
