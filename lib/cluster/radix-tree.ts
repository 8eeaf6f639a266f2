// A segment radix tree (lecture 3's RadixAttention, at segment granularity): one node per prompt segment,
// keyed by (parent, segment id). The same class serves three roles:
//  - a replica's prefix cache: held tokens, reference counts, LRU eviction of unreferenced leaves, partial
//    eviction of a leaf's tail, an eviction callback;
//  - a router's index (Preble's global tree, the SGLang router's approximate tree): a generic payload per node;
//  - the simulator's "dispatched but not yet computed" index (§3.1, the router's view): counted paths.
// Matching is O(segments of the prompt) with no allocation; eviction is O(log nodes) per evicted leaf.

import { RadixNode, SegmentLike } from "./radix-node";
import { LruCandidates } from "./lru-candidates";

export { RadixNode } from "./radix-node";
export type { SegmentLike } from "./radix-node";

export interface RadixTreeOptions<P> {
  /** maintain the LRU heap (caches); indexes that never evict can skip it. Default true. */
  evictable?: boolean;
  /** called for every new node (e.g. to attach a payload) */
  createPayload?: (node: RadixNode<P>) => P;
  /** check segment token counts on every match/insert (tests); default false */
  check?: boolean;
  /** reuse pruned and evicted nodes for new ones instead of allocating (indexes that insert and prune a path per
   * request, like the simulator's dispatched-prompt index; a replica's cache, whose evicted nodes nobody keeps —
   * an eviction callback must copy what it needs before it returns). Only for trees whose detached nodes nobody
   * keeps. A reused node gets its payload from createPayload as a new one does. Default false. */
  recycle?: boolean;
  /** a pool of nodes that released trees of the same kind left as they were (Preble's global trees, which never drop a
   * node): new nodes are taken from it first and revived, keeping their payloads for createPayload to reset (a node and
   * its payload were made together and sit together in memory). The owner fills it; the tree never gives nodes back.
   * Default none. */
  pool?: RadixNode<P>[];
  /** what a lock references: false (default) the node alone — all a prefix cache and the dispatched-prompt index
   * need, since only a leaf is ever evicted or pruned and a leaf's users are exactly the locks on it; true every node
   * root → node, so that `refs` counts the requests using a node or a descendant (Dynamo's active blocks read that).
   * Dropping the path walk on every lock and unlock made agent runs 15–21% faster (prompts of up to 51 segments). */
  refsOnPath?: boolean;
}

/** Detached nodes of every `recycle` tree of this thread, waiting for reuse. Shared by the trees of a run and kept
 * across runs (a finished run's caches give their nodes back, `recycleAll`), so a sweep of many runs allocates the
 * nodes of its largest caches about once instead of once a run: new nodes were a quarter of 03.1's allocation, and
 * they live long enough to be copied by the young generation's collections. Node identity never decides anything
 * (stale LRU entries are told apart by stamps, which only grow). Bounded: past SPARE_LIMIT nodes go to the GC. */
const SPARE: Array<RadixNode<any>> = [];
const SPARE_LIMIT = 1 << 16;

/** recycleAll's work list (kept: a finished run's trees are walked one after another). */
const WALK: Array<RadixNode<any>> = [];

function spareNode(n: RadixNode<any>): void {
  if (SPARE.length < SPARE_LIMIT) SPARE.push(n);
}

/** Nodes waiting in this thread's shared pool (tests). */
export function spareNodeCount(): number {
  return SPARE.length;
}

/** Called when eviction frees tokens: `removed` is true when the node left the tree (held reached 0). */
export type EvictionCallback<P> = (node: RadixNode<P>, evictedTokens: number, removed: boolean) => void;

export class RadixTree<P = unknown> {
  readonly root: RadixNode<P>;
  /** tokens held by all nodes */
  heldTokens = 0;
  /** nodes in the tree, root excluded */
  nodeCount = 0;
  /** tokens the last insert added (new nodes plus restored tails) */
  lastInsertAdded = 0;
  /** total tokens evicted so far */
  evictedTokens = 0;
  onEvict: EvictionCallback<P> | null = null;
  private readonly evictable: boolean;
  private readonly createPayload?: (node: RadixNode<P>) => P;
  private readonly check: boolean;
  private readonly refsOnPath: boolean;
  /** the thread's pool of detached nodes (recycle option), or null */
  private readonly spare: RadixNode<P>[] | null;
  /** the owner's pool of released nodes (pool option), or null */
  private readonly pool: RadixNode<P>[] | null;
  /** eviction candidates by (lastAccess, push order), lru-candidates.ts */
  private readonly candidates = new LruCandidates<P>();

  constructor(options: RadixTreeOptions<P> = {}) {
    this.evictable = options.evictable ?? true;
    this.createPayload = options.createPayload;
    this.check = options.check ?? false;
    this.refsOnPath = options.refsOnPath ?? false;
    this.spare = options.recycle ? (SPARE as RadixNode<P>[]) : null;
    this.pool = options.pool ?? null;
    this.root = new RadixNode<P>(-1, 0, null, 0, 0, 0);
    if (this.createPayload) this.root.payload = this.createPayload(this.root);
  }

  /** Deepest node matching a prefix of `segments[0 … count)`; stops at a partially held node. Root if none. */
  match(segments: readonly SegmentLike[], count: number = segments.length): RadixNode<P> {
    let node = this.root;
    for (let i = 0; i < count; i++) {
      const child = node.child(segments[i].id);
      if (child === undefined) break;
      if (this.check && child.tokens !== segments[i].tokens) throw new Error(`segment ${segments[i].id}: ${segments[i].tokens} tokens, tree has ${child.tokens}`);
      node = child;
      if (child.held < child.tokens) break;
    }
    return node;
  }

  /** Tokens of `segments` cached here (longest prefix). */
  matchTokens(segments: readonly SegmentLike[], count: number = segments.length): number {
    return this.match(segments, count).matchedTokens;
  }

  /** Marks the path root → node as used at `time` (LRU order; times never decrease). Only `node` is stamped: an
   * ancestor's time is the latest in its subtree (accessTime), and it is needed only once the ancestor is a leaf,
   * by when each child removed has handed its time up (detach) — the walk up the path was a twentieth of an agent
   * run. A tree that never evicts keeps no LRU order: its nodes keep the time they were made. */
  touch(node: RadixNode<P>, time: number): void {
    if (!this.evictable || node.parent === null) return;
    node.lastAccess = time;
    if (node.refs === 0 && node.isLeaf) this.pushCandidate(node);
  }

  /** When the subtree under `node` was last used: the LRU time `node` has once it is a leaf (O(subtree); tests and
   * pictures). */
  accessTime(node: RadixNode<P>): number {
    let latest = node.lastAccess;
    node.forEachChild((c) => {
      const t = this.accessTime(c);
      if (t > latest) latest = t;
    });
    return latest;
  }

  /** Inserts the path `segments[0 … count)`, restoring any evicted tail on it; returns the last node.
   * `lastInsertAdded` tells how many tokens the tree grew by. */
  insert(segments: readonly SegmentLike[], count: number, time: number): RadixNode<P> {
    let node = this.root;
    let added = 0;
    for (let i = 0; i < count; i++) {
      node = this.child(node, segments[i], time);
      added += this.lastInsertAdded;
    }
    this.lastInsertAdded = added;
    this.touch(node, time);
    return node;
  }

  /** insert(segments, count, time) for a path whose first `node.depth` segments lead to `node` (attached: a
   * request's locked match, or the match just computed): the same tree, node and lastInsertAdded, without walking
   * the path above it again (its ancestors have children, so they are held whole; only `node` may lack its tail). */
  insertBelow(node: RadixNode<P>, segments: readonly SegmentLike[], count: number, time: number): RadixNode<P> {
    if (!node.attached) throw new Error("insertBelow: node is no longer in the tree");
    if (this.check) this.checkOnPath(node, segments);
    let added = node.held < node.tokens ? this.restore(node) : 0;
    for (let i = node.depth; i < count; i++) {
      node = this.child(node, segments[i], time);
      added += this.lastInsertAdded;
    }
    this.lastInsertAdded = added;
    this.touch(node, time);
    return node;
  }

  /** Throws unless root → node is segments[0 … node.depth) with their token counts (insertBelow's premise; checks). */
  private checkOnPath(node: RadixNode<P>, segments: readonly SegmentLike[]): void {
    for (let n: RadixNode<P> | null = node; n !== null && n.parent !== null; n = n.parent) {
      const s = segments[n.depth - 1];
      if (s === undefined || s.id !== n.segment || s.tokens !== n.tokens) throw new Error(`insertBelow: node ${n.segment} at depth ${n.depth} is not on the path of these segments`);
    }
  }

  /** Extends `parent` by one segment (creating or restoring it, and restoring a partial parent);
   * `lastInsertAdded` as for insert. */
  extend(parent: RadixNode<P>, segment: SegmentLike, time: number): RadixNode<P> {
    if (!parent.attached) throw new Error("extend: parent node is no longer in the tree");
    const restored = parent.held < parent.tokens ? this.restore(parent) : 0;
    const node = this.child(parent, segment, time);
    this.lastInsertAdded += restored;
    this.touch(node, time);
    return node;
  }

  private restore(node: RadixNode<P>): number {
    const missing = node.tokens - node.held;
    node.held = node.tokens;
    this.heldTokens += missing;
    return missing;
  }

  /** The child of `node` for segment `s`, created or restored (tokens added in lastInsertAdded). */
  private child(node: RadixNode<P>, s: SegmentLike, time: number): RadixNode<P> {
    let c = node.child(s.id);
    if (c === undefined) {
      if (!(Number.isInteger(s.tokens) && s.tokens > 0)) throw new Error(`segment ${s.id}: tokens must be an integer > 0, got ${s.tokens}`);
      const spare = this.spare;
      const pool = this.pool;
      if (pool !== null && pool.length > 0) {
        c = pool.pop() as RadixNode<P>;
        c.revive(s.id, s.tokens, node, node.prefixTokens + node.tokens, node.depth + 1, time);
      } else if (spare !== null && spare.length > 0) {
        c = spare.pop() as RadixNode<P>;
        c.reuse(s.id, s.tokens, node, node.prefixTokens + node.tokens, node.depth + 1, time);
      } else c = new RadixNode<P>(s.id, s.tokens, node, node.prefixTokens + node.tokens, node.depth + 1, time);
      if (this.createPayload) c.payload = this.createPayload(c);
      node.addChild(c);
      this.nodeCount++;
      this.heldTokens += s.tokens;
      this.lastInsertAdded = s.tokens;
    } else {
      if (this.check && c.tokens !== s.tokens) throw new Error(`segment ${s.id}: ${s.tokens} tokens, tree has ${c.tokens}`);
      this.lastInsertAdded = c.held < c.tokens ? this.restore(c) : 0;
    }
    return c;
  }

  /** Adds a reference to `node` (in use: never evicted), or to every node root → node with `refsOnPath`. */
  lock(node: RadixNode<P>): void {
    if (!this.refsOnPath) {
      node.refs++;
      return;
    }
    for (let n: RadixNode<P> | null = node; n !== null; n = n.parent) n.refs++;
  }

  /** Removes the reference lock() added; a node that becomes an unreferenced leaf joins the eviction candidates. */
  unlock(node: RadixNode<P>): void {
    if (!this.refsOnPath) {
      this.unref(node);
      return;
    }
    for (let n: RadixNode<P> | null = node; n !== null; n = n.parent) this.unref(n);
  }

  private unref(n: RadixNode<P>): void {
    if (n.refs <= 0) throw new Error(`unlock: node ${n.segment} has no references`);
    n.refs--;
    if (n.refs === 0 && this.evictable && n.parent !== null && n.isLeaf) this.pushCandidate(n);
  }

  /** Tokens that eviction could free now: nodes with no reference on them or below them. O(nodes): for checks, not
   * the hot path. */
  evictableTokens(): number {
    const nodes: RadixNode<P>[] = [];
    this.walk((n) => nodes.push(n));
    // children come after their parent in walk order: backwards, a node in use marks its parent in use
    const inUse = new Set<RadixNode<P>>();
    let total = 0;
    for (let i = nodes.length - 1; i >= 0; i--) {
      const n = nodes[i];
      if (n.refs > 0 || inUse.has(n)) inUse.add(n.parent as RadixNode<P>);
      else total += n.held;
    }
    return total;
  }

  /** Frees at least `tokens` (if possible) by evicting least-recently-used unreferenced leaves; the last one
   * may lose only its tail. Returns the tokens freed. */
  evict(tokens: number): number {
    if (!this.evictable) throw new Error("evict: this tree was created with evictable: false");
    let freed = 0;
    while (freed < tokens) {
      const leaf = this.popCandidate();
      if (leaf === null) break;
      const want = tokens - freed;
      if (leaf.held <= want) {
        const amount = leaf.held;
        freed += amount;
        this.heldTokens -= amount;
        this.evictedTokens += amount;
        if (this.onEvict !== null) this.onEvict(leaf, amount, true);
        leaf.held = 0;
        this.detach(leaf);
        if (this.spare !== null) spareNode(leaf);
      } else {
        leaf.held -= want;
        freed += want;
        this.heldTokens -= want;
        this.evictedTokens += want;
        if (this.onEvict !== null) this.onEvict(leaf, want, false);
        this.pushCandidate(leaf);
      }
    }
    return freed;
  }

  /** Removes an unreferenced leaf and then every ancestor left as an unreferenced, childless node (used by
   * counting indexes, where a path disappears when its last reference goes). */
  prune(node: RadixNode<P>): void {
    let n: RadixNode<P> | null = node;
    while (n !== null && n.parent !== null && n.refs === 0 && n.isLeaf) {
      const parent: RadixNode<P> = n.parent;
      this.heldTokens -= n.held;
      n.held = 0;
      this.detach(n);
      if (this.spare !== null) spareNode(n);
      n = parent;
    }
  }

  private detach(node: RadixNode<P>): void {
    const parent = node.parent as RadixNode<P>;
    // a leaf leaving hands its time up: the parent's is the latest of its subtree, removed nodes included
    if (this.evictable && node.lastAccess > parent.lastAccess) parent.lastAccess = node.lastAccess;
    parent.removeChild(node);
    node.attached = false;
    node.stamp++;
    this.nodeCount--;
    if (this.evictable && parent.parent !== null && parent.refs === 0 && parent.isLeaf) this.pushCandidate(parent);
  }

  /** Empties a `recycle` tree at the end of its life, giving every node to the thread's pool (the tree stays
   * valid and empty). Only when nothing outside keeps one of its nodes: the simulator calls it once a run's
   * result is built (records drop their node references there). */
  recycleAll(): void {
    if (this.spare === null) throw new Error("recycleAll: this tree was created without recycle");
    const stack = WALK as RadixNode<P>[];
    this.root.takeChildren(stack);
    while (stack.length > 0) {
      const n = stack.pop() as RadixNode<P>;
      n.takeChildren(stack);
      n.held = 0;
      n.refs = 0;
      n.attached = false;
      n.stamp++;
      spareNode(n);
    }
    this.root.refs = 0;
    this.nodeCount = 0;
    this.heldTokens = 0;
    this.candidates.clear();
  }

  /** Segment ids root → node (allocates: for notices and debugging). */
  pathOf(node: RadixNode<P>): number[] {
    const path: number[] = new Array(node.depth);
    for (let n: RadixNode<P> | null = node; n !== null && n.parent !== null; n = n.parent) path[n.depth - 1] = n.segment;
    return path;
  }

  /** Node at a path of segment ids, or null. */
  find(path: readonly number[]): RadixNode<P> | null {
    let node = this.root;
    for (const id of path) {
      const c = node.child(id);
      if (c === undefined) return null;
      node = c;
    }
    return node;
  }

  /** Visits every node but the root, parents before children, children in insertion order. */
  walk(visit: (node: RadixNode<P>) => void): void {
    const stack: RadixNode<P>[] = [];
    const kids = this.root.childNodes();
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
    while (stack.length) {
      const n = stack.pop() as RadixNode<P>;
      visit(n);
      if (n.childCount > 0) {
        const list = n.childNodes();
        for (let i = list.length - 1; i >= 0; i--) stack.push(list[i]);
      }
    }
  }

  /** Throws if an internal invariant is broken (tests; O(nodes)). */
  checkInvariants(): void {
    let held = 0;
    let count = 0;
    this.walk((n) => {
      count++;
      held += n.held;
      if (n.held < 0 || n.held > n.tokens) throw new Error(`node ${n.segment}: held ${n.held} outside [0, ${n.tokens}]`);
      if (n.held === 0) throw new Error(`node ${n.segment}: attached with nothing held`);
      if (n.held < n.tokens && !n.isLeaf) throw new Error(`node ${n.segment}: partially held but has children`);
      if (!n.attached) throw new Error(`node ${n.segment}: reachable but marked detached`);
      const parent = n.parent as RadixNode<P>;
      if (n.prefixTokens !== parent.prefixTokens + parent.tokens) throw new Error(`node ${n.segment}: prefixTokens inconsistent`);
      if (this.refsOnPath && parent.parent !== null && parent.refs < n.refs) throw new Error(`node ${n.segment}: more references than its parent`);
    });
    if (held !== this.heldTokens) throw new Error(`heldTokens ${this.heldTokens} ≠ sum of nodes ${held}`);
    if (count !== this.nodeCount) throw new Error(`nodeCount ${this.nodeCount} ≠ nodes ${count}`);
  }

  // ---- LRU candidates (lru-candidates.ts): a new entry invalidates the node's older ones ----

  private pushCandidate(node: RadixNode<P>): void {
    node.stamp++;
    if (this.candidates.size > 64 && this.candidates.size > 4 * this.nodeCount) this.rebuildHeap();
    this.candidates.push(node);
  }

  private popCandidate(): RadixNode<P> | null {
    return this.candidates.pop();
  }

  /** Drops the stale entries: every unreferenced leaf once, oldest access first. */
  private rebuildHeap(): void {
    const leaves: RadixNode<P>[] = [];
    this.walk((n) => {
      if (n.refs === 0 && n.isLeaf) leaves.push(n);
    });
    leaves.sort((a, b) => a.lastAccess - b.lastAccess);
    this.candidates.clear();
    for (const n of leaves) {
      n.stamp++;
      this.candidates.push(n);
    }
  }
}
