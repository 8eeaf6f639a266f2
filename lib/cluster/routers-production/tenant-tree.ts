// An approximate, multi-worker prefix index built from what the router SENT, not from the workers' caches:
// the SGLang router's "approximate tree" (sgl-router tree.rs) and the gateway prefix scorer's LRU index.
// It is the cluster's one segment radix tree (../radix-tree.ts) with a payload per node: the last time each
// worker ("tenant") was sent this prefix (NaN = the worker is not a tenant of the node), and one more slot: the node's
// "last tenant" as smg keeps it (the worker whose insert created the node, until a lookup finds it gone).
//
// Invariants: a tenant of a node is a tenant of all its ancestors (inserts add whole paths, eviction removes
// a tenant's leaves first), so the tenants of a path shrink downwards; `node.refs` counts the node's tenants
// (the tree is built non-evictable, so the cache's reference counting is free to reuse) and a node with no
// tenant left is pruned — every attached node has at least one tenant.
import { EventQueue } from "../../core/heap";
import { RadixNode, RadixTree, SegmentLike } from "../radix-tree";

export type TenantNode = RadixNode<Float64Array>;

export interface TenantTreeOptions {
  /** only the first `tokenLimit` prompt tokens are indexed (the gateway matches at most 256 blocks); default ∞ */
  tokenLimit?: number;
}

export class TenantTree {
  readonly tree: RadixTree<Float64Array>;
  /** per worker: tokens of the nodes it is a tenant of (SGLang's tenant_char_count, in tokens) */
  readonly sizeTokens: Float64Array;
  /** tenant removals done by eviction, and the tokens they freed */
  evictions = 0;
  evictedTokens = 0;
  readonly tokenLimit: number;
  // Per worker, a lazy min-heap of (last access, node) over nodes that were leaves for that worker when pushed;
  // an entry is valid while the worker is still a tenant there with that same time and no child has it.
  private readonly leaves: EventQueue<TenantNode>[];

  constructor(
    readonly workers: number,
    options: TenantTreeOptions = {},
  ) {
    this.tree = new RadixTree<Float64Array>({ evictable: false, refsOnPath: true, createPayload: () => new Float64Array(workers + 1).fill(NaN) });
    this.sizeTokens = new Float64Array(workers);
    this.tokenLimit = options.tokenLimit ?? Infinity;
    this.leaves = [];
    for (let w = 0; w < workers; w++) this.leaves.push(new EventQueue<TenantNode>());
  }

  /** Tokens of the node counted toward a tenant's size (the part below tokenLimit). */
  private indexedTokens(node: TenantNode): number {
    const end = Math.min(node.prefixTokens + node.tokens, this.tokenLimit);
    return end - node.prefixTokens;
  }

  /** Segments of the prompt that start below tokenLimit. */
  private indexedCount(segments: readonly SegmentLike[]): number {
    let start = 0;
    let k = 0;
    while (k < segments.length && start < this.tokenLimit) start += segments[k++].tokens;
    return k;
  }

  static isTenant(node: TenantNode, worker: number): boolean {
    return !Number.isNaN((node.payload as Float64Array)[worker]);
  }

  /** Deepest node on the prompt's path (any tenant), and its matched tokens (capped at tokenLimit). */
  match(segments: readonly SegmentLike[]): { node: TenantNode; tokens: number } {
    const node = this.tree.match(segments, this.indexedCount(segments));
    return { node, tokens: Math.min(node.matchedTokens, this.tokenLimit) };
  }

  /** Deepest node on the prompt's path that `worker` is a tenant of, and its matched tokens (capped). */
  matchFor(segments: readonly SegmentLike[], worker: number): { node: TenantNode; tokens: number } {
    let node = this.tree.root;
    const count = this.indexedCount(segments);
    for (let i = 0; i < count; i++) {
      const c = node.child(segments[i].id);
      if (c === undefined || !TenantTree.isTenant(c, worker)) break;
      node = c;
    }
    return { node, tokens: Math.min(node.matchedTokens, this.tokenLimit) };
  }

  /** Workers that are tenants of `node` (ascending). The root has none. */
  tenantsOf(node: TenantNode): number[] {
    const out: number[] = [];
    if (node.isRoot) return out;
    const p = node.payload as Float64Array;
    for (let w = 0; w < this.workers; w++) if (!Number.isNaN(p[w])) out.push(w);
    return out;
  }

  /** The node's cached "last tenant" (smg string_tree.rs last_tenant): its creator until replaced; −1 if none. */
  lastTenant(node: TenantNode): number {
    const v = (node.payload as Float64Array)[this.workers];
    return Number.isNaN(v) ? -1 : v;
  }

  setLastTenant(node: TenantNode, worker: number): void {
    (node.payload as Float64Array)[this.workers] = worker;
  }

  /** Records that the prompt was sent to `worker` at `now`: the worker becomes a tenant of its whole path (and the
   * creator of the nodes this insert adds). */
  insert(segments: readonly SegmentLike[], worker: number, now: number): TenantNode {
    const count = this.indexedCount(segments);
    if (count === 0) return this.tree.root;
    const leaf = this.tree.insert(segments, count, now);
    for (let n: TenantNode | null = leaf; n !== null && !n.isRoot; n = n.parent) {
      const p = n.payload as Float64Array;
      if (Number.isNaN(p[this.workers])) p[this.workers] = worker; // a new node: its creator
      if (Number.isNaN(p[worker])) {
        n.refs++;
        this.sizeTokens[worker] += this.indexedTokens(n);
      }
      p[worker] = now;
    }
    this.pushIfLeaf(leaf, worker);
    return leaf;
  }

  /** Refreshes `worker`'s access time on root → node where it is a tenant (SGLang's prefix_match does this for the
   * tenant it returns). The deepest node refreshed may be one of the worker's leaves: it is queued at its new time. */
  touch(node: TenantNode, worker: number, now: number): void {
    let deepest: TenantNode | null = null;
    for (let n: TenantNode | null = node; n !== null && !n.isRoot; n = n.parent) {
      const p = n.payload as Float64Array;
      if (Number.isNaN(p[worker])) continue;
      p[worker] = now;
      if (deepest === null) deepest = n;
    }
    if (deepest !== null) this.pushIfLeaf(deepest, worker);
  }

  /** True when `worker` is a tenant of `node` and of none of its children. */
  private isLeafFor(node: TenantNode, worker: number): boolean {
    if (node.isRoot || !node.attached || !TenantTree.isTenant(node, worker)) return false;
    for (let i = 0; i < node.childSlots; i++) {
      const c = node.childAt(i);
      if (c !== null && TenantTree.isTenant(c, worker)) return false;
    }
    return true;
  }

  private pushIfLeaf(node: TenantNode, worker: number): void {
    if (this.isLeafFor(node, worker)) this.leaves[worker].push((node.payload as Float64Array)[worker], node);
  }

  /** Removes `worker`'s least-recently-used leaves until its size is ≤ capTokens (sgl-router evict_tenant_by_size,
   * one tenant). Returns the tokens freed. */
  evictTenant(worker: number, capTokens: number): number {
    let freed = 0;
    const heap = this.leaves[worker];
    while (this.sizeTokens[worker] > capTokens && heap.size > 0) {
      const { time, item: node } = heap.pop() as { time: number; item: TenantNode };
      if (!this.isLeafFor(node, worker) || (node.payload as Float64Array)[worker] !== time) continue;
      const tokens = this.indexedTokens(node);
      (node.payload as Float64Array)[worker] = NaN;
      node.refs--;
      this.sizeTokens[worker] -= tokens;
      freed += tokens;
      this.evictions++;
      this.evictedTokens += tokens;
      const parent = node.parent as TenantNode;
      if (node.refs === 0 && node.isLeaf) this.tree.prune(node);
      this.pushIfLeaf(parent, worker);
    }
    return freed;
  }

  /** Checks the invariants (tests; O(nodes)). */
  checkInvariants(): void {
    const size = new Float64Array(this.workers);
    this.tree.walk((n) => {
      const p = n.payload as Float64Array;
      let tenants = 0;
      for (let w = 0; w < this.workers; w++) {
        if (Number.isNaN(p[w])) continue;
        tenants++;
        size[w] += this.indexedTokens(n);
        const parent = n.parent as TenantNode;
        if (!parent.isRoot && !TenantTree.isTenant(parent, w)) throw new Error(`node ${n.segment}: worker ${w} is a tenant but not of the parent`);
      }
      if (tenants !== n.refs) throw new Error(`node ${n.segment}: ${tenants} tenants but refs ${n.refs}`);
      if (tenants === 0) throw new Error(`node ${n.segment}: attached with no tenant`);
    });
    for (let w = 0; w < this.workers; w++) if (size[w] !== this.sizeTokens[w]) throw new Error(`worker ${w}: size ${this.sizeTokens[w]} ≠ sum of its nodes ${size[w]}`);
  }
}
