// A segment radix tree (lecture 3's RadixAttention, at segment granularity): one node per prompt segment,
// keyed by (parent, segment id). The same class serves three roles:
//  - a replica's prefix cache: held tokens, reference counts, LRU eviction of unreferenced leaves, partial
//    eviction of a leaf's tail, an eviction callback;
//  - a router's index (Preble's global tree, the SGLang router's approximate tree): a generic payload per node;
//  - the simulator's "dispatched but not yet computed" index (§3.1, the router's view): counted paths.
// Matching is O(segments of the prompt) with no allocation; eviction is O(log nodes) per evicted leaf.

/** A run of prompt tokens with one content id (globally unique per distinct content within a workload). */
export interface SegmentLike {
  readonly id: number;
  readonly tokens: number;
}

/** Children up to this many are found by a scan of the ordered list; above it a Map indexes them by segment. */
const SCAN_CHILDREN = 8;

export class RadixNode<P = unknown> {
  /** tokens of this segment currently held (< tokens after a partial eviction of the tail) */
  held: number;
  /** requests using this node or a descendant (in-use KV is never evicted) */
  refs = 0;
  /** simulated time of the last match or insert through this node */
  lastAccess: number;
  /** free slot for the tree's user: Preble's per-GPU sets and window counters, the SGLang router's worker times… */
  payload: P | undefined = undefined;
  /** false once removed from its tree */
  attached = true;
  /** version for the lazy LRU heap */
  stamp = 0;
  /** children now (read-only outside the tree) */
  childCount = 0;
  // Children in insertion order: kids[0 … used). Most nodes have one or two children, so a short list scanned by
  // segment beats a Map per node (a Map costs an allocation on every new node and on shrinking, which showed up
  // as a quarter of the simulator's time in garbage collection). The list never shrinks (an emptied JS array
  // would drop its storage and allocate again on the next push). Past SCAN_CHILDREN children a Map indexes the
  // list, and a removed child leaves a hole (null) until more than half the list is holes.
  private kids: Array<RadixNode<P> | null> | null = null;
  private used = 0;
  private index: Map<number, RadixNode<P>> | null = null;
  private holes = 0;
  /** this node's position in its parent's list while the parent is indexed */
  private slot = -1;

  constructor(
    /** segment id; −1 for the root (fixed while the node is attached; a tree created with `recycle` reuses
     * detached nodes) */
    readonly segment: number,
    /** tokens of the whole segment */
    readonly tokens: number,
    readonly parent: RadixNode<P> | null,
    /** tokens of all ancestors (the node's KV starts at this position) */
    readonly prefixTokens: number,
    /** segments from the root (root 0) */
    readonly depth: number,
    time: number,
  ) {
    this.held = tokens;
    this.lastAccess = time;
  }

  /** Makes a detached leaf a new node (RadixTree's `recycle` option): as if constructed, the stamp excepted (it
   * keeps counting, so stale LRU entries never match). */
  reuse(segment: number, tokens: number, parent: RadixNode<P>, prefixTokens: number, depth: number, time: number): void {
    if (this.attached || this.childCount !== 0) throw new Error(`reuse: node ${this.segment} is not a detached leaf`);
    const self = this as { -readonly [K in keyof RadixNode<P>]: RadixNode<P>[K] };
    self.segment = segment;
    self.tokens = tokens;
    self.parent = parent;
    self.prefixTokens = prefixTokens;
    self.depth = depth;
    this.held = tokens;
    this.lastAccess = time;
    this.refs = 0;
    this.payload = undefined;
    this.attached = true;
    this.slot = -1;
  }

  /** The child for segment `id`, or undefined. */
  child(id: number): RadixNode<P> | undefined {
    if (this.index !== null) return this.index.get(id);
    const list = this.kids;
    for (let i = 0; i < this.used; i++) {
      const c = (list as Array<RadixNode<P> | null>)[i] as RadixNode<P>;
      if (c.segment === id) return c;
    }
    return undefined;
  }

  /** Length of the child list, holes included: with childAt, an allocation-free loop over the children. */
  get childSlots(): number {
    return this.used;
  }

  /** The child at position `i` of the list (0 ≤ i < childSlots), or null for a removed child's hole. */
  childAt(i: number): RadixNode<P> | null {
    return (this.kids as Array<RadixNode<P> | null>)[i];
  }

  /** Visits the children in insertion order. */
  forEachChild(visit: (child: RadixNode<P>) => void): void {
    const list = this.kids;
    for (let i = 0; i < this.used; i++) {
      const c = (list as Array<RadixNode<P> | null>)[i];
      if (c !== null) visit(c);
    }
  }

  /** The children in insertion order (a new array). */
  childNodes(): RadixNode<P>[] {
    const out: RadixNode<P>[] = [];
    this.forEachChild((c) => out.push(c));
    return out;
  }

  /** Appends a child (the tree's job: its segment must not be a child already). */
  addChild(c: RadixNode<P>): void {
    const list = this.kids;
    if (list === null) {
      // Most nodes keep a single child: a one-slot array (an empty one would grow to 17 slots on its first push).
      this.kids = [c];
      this.used = 1;
      this.childCount = 1;
      return;
    }
    const at = this.used++;
    if (at < list.length) list[at] = c;
    else list.push(c);
    this.childCount++;
    if (this.index !== null) {
      c.slot = at;
      this.index.set(c.segment, c);
    } else if (this.used > SCAN_CHILDREN) {
      const index = new Map<number, RadixNode<P>>();
      for (let i = 0; i < this.used; i++) {
        const k = list[i] as RadixNode<P>;
        k.slot = i;
        index.set(k.segment, k);
      }
      this.index = index;
    }
  }

  /** Removes a child (the tree's job), keeping the others in insertion order. */
  removeChild(c: RadixNode<P>): void {
    const list = this.kids;
    let at = -1;
    if (list !== null) {
      if (this.index !== null) at = c.slot;
      else for (let i = this.used - 1; i >= 0 && at < 0; i--) if (list[i] === c) at = i;
    }
    if (list === null || at < 0 || at >= this.used || list[at] !== c) throw new Error(`removeChild: node ${c.segment} is not a child of ${this.segment}`);
    this.childCount--;
    if (this.index === null) {
      for (let i = at + 1; i < this.used; i++) list[i - 1] = list[i];
      list[--this.used] = null;
      return;
    }
    this.index.delete(c.segment);
    list[at] = null;
    c.slot = -1;
    if (++this.holes * 2 > this.used) this.compact(list);
  }

  private compact(list: Array<RadixNode<P> | null>): void {
    let kept = 0;
    for (let i = 0; i < this.used; i++) {
      const k = list[i];
      if (k === null) continue;
      k.slot = kept;
      list[kept++] = k;
    }
    for (let i = kept; i < this.used; i++) list[i] = null;
    this.used = kept;
    this.holes = 0;
    if (kept <= SCAN_CHILDREN) this.index = null;
  }

  /** Tokens matched when a match ends at this node: ancestors plus what this node still holds. */
  get matchedTokens(): number {
    return this.prefixTokens + this.held;
  }

  get isLeaf(): boolean {
    return this.childCount === 0;
  }

  get isRoot(): boolean {
    return this.parent === null;
  }
}

export interface RadixTreeOptions<P> {
  /** maintain the LRU heap (caches); indexes that never evict can skip it. Default true. */
  evictable?: boolean;
  /** called for every new node (e.g. to attach a payload) */
  createPayload?: (node: RadixNode<P>) => P;
  /** check segment token counts on every match/insert (tests); default false */
  check?: boolean;
  /** reuse pruned nodes for new ones instead of allocating (indexes that insert and prune a path per request,
   * like the simulator's dispatched-prompt index). Only for trees whose detached nodes nobody keeps; not with
   * createPayload. Default false. */
  recycle?: boolean;
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
  /** detached nodes waiting for reuse (recycle option) */
  private readonly spare: RadixNode<P>[] | null;
  // Lazy min-heap of eviction candidates by (lastAccess, push order); an entry is valid while its stamp matches.
  private heapTime: number[] = [];
  private heapSeq: number[] = [];
  private heapNode: RadixNode<P>[] = [];
  private heapStamp: number[] = [];
  private pushCounter = 0;

  constructor(options: RadixTreeOptions<P> = {}) {
    this.evictable = options.evictable ?? true;
    this.createPayload = options.createPayload;
    this.check = options.check ?? false;
    if (options.recycle && options.createPayload) throw new Error("RadixTree: recycle cannot be combined with createPayload");
    this.spare = options.recycle ? [] : null;
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

  /** Marks the path root → node as used at `time` (LRU order). */
  touch(node: RadixNode<P>, time: number): void {
    for (let n: RadixNode<P> | null = node; n !== null && n.parent !== null; n = n.parent) n.lastAccess = time;
    if (this.evictable && node.parent !== null && node.refs === 0 && node.isLeaf) this.pushCandidate(node);
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
      if (spare !== null && spare.length > 0) {
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

  /** Adds a reference to every node on root → node (in-use: never evicted). */
  lock(node: RadixNode<P>): void {
    for (let n: RadixNode<P> | null = node; n !== null; n = n.parent) n.refs++;
  }

  /** Removes a reference from root → node; nodes that become unreferenced leaves join the eviction candidates. */
  unlock(node: RadixNode<P>): void {
    for (let n: RadixNode<P> | null = node; n !== null; n = n.parent) {
      if (n.refs <= 0) throw new Error(`unlock: node ${n.segment} has no references`);
      n.refs--;
      if (n.refs === 0 && this.evictable && n.parent !== null && n.isLeaf) this.pushCandidate(n);
    }
  }

  /** Tokens that eviction could free now (unreferenced nodes). O(nodes): for checks, not the hot path. */
  evictableTokens(): number {
    let total = 0;
    this.walk((n) => {
      if (n.refs === 0) total += n.held;
    });
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
      if (this.spare !== null) this.spare.push(n);
      n = parent;
    }
  }

  private detach(node: RadixNode<P>): void {
    const parent = node.parent as RadixNode<P>;
    parent.removeChild(node);
    node.attached = false;
    node.stamp++;
    this.nodeCount--;
    if (this.evictable && parent.parent !== null && parent.refs === 0 && parent.isLeaf) this.pushCandidate(parent);
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
      if (parent.parent !== null && parent.refs < n.refs) throw new Error(`node ${n.segment}: more references than its parent`);
    });
    if (held !== this.heldTokens) throw new Error(`heldTokens ${this.heldTokens} ≠ sum of nodes ${held}`);
    if (count !== this.nodeCount) throw new Error(`nodeCount ${this.nodeCount} ≠ nodes ${count}`);
  }

  // ---- LRU candidates: a lazy binary heap over (lastAccess, push order) ----

  private pushCandidate(node: RadixNode<P>): void {
    node.stamp++;
    if (this.heapNode.length > 64 && this.heapNode.length > 4 * this.nodeCount) this.rebuildHeap();
    const times = this.heapTime;
    const seqs = this.heapSeq;
    let i = times.length;
    times.push(node.lastAccess);
    seqs.push(this.pushCounter++);
    this.heapNode.push(node);
    this.heapStamp.push(node.stamp);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (times[p] < times[i] || (times[p] === times[i] && seqs[p] < seqs[i])) break;
      this.swap(i, p);
      i = p;
    }
  }

  private popCandidate(): RadixNode<P> | null {
    while (this.heapNode.length > 0) {
      const node = this.heapNode[0];
      const stamp = this.heapStamp[0];
      this.removeTop();
      if (stamp === node.stamp && node.attached && node.refs === 0 && node.isLeaf && node.held > 0) return node;
    }
    return null;
  }

  private removeTop(): void {
    const n = this.heapNode.length;
    const lastT = this.heapTime.pop() as number;
    const lastS = this.heapSeq.pop() as number;
    const lastN = this.heapNode.pop() as RadixNode<P>;
    const lastK = this.heapStamp.pop() as number;
    if (n === 1) return;
    this.heapTime[0] = lastT;
    this.heapSeq[0] = lastS;
    this.heapNode[0] = lastN;
    this.heapStamp[0] = lastK;
    const times = this.heapTime;
    const seqs = this.heapSeq;
    const size = n - 1;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < size && (times[l] < times[m] || (times[l] === times[m] && seqs[l] < seqs[m]))) m = l;
      if (r < size && (times[r] < times[m] || (times[r] === times[m] && seqs[r] < seqs[m]))) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private swap(a: number, b: number): void {
    const t = this.heapTime[a];
    this.heapTime[a] = this.heapTime[b];
    this.heapTime[b] = t;
    const s = this.heapSeq[a];
    this.heapSeq[a] = this.heapSeq[b];
    this.heapSeq[b] = s;
    const n = this.heapNode[a];
    this.heapNode[a] = this.heapNode[b];
    this.heapNode[b] = n;
    const k = this.heapStamp[a];
    this.heapStamp[a] = this.heapStamp[b];
    this.heapStamp[b] = k;
  }

  private rebuildHeap(): void {
    this.heapTime = [];
    this.heapSeq = [];
    this.heapNode = [];
    this.heapStamp = [];
    const candidates: RadixNode<P>[] = [];
    this.walk((n) => {
      if (n.refs === 0 && n.isLeaf) candidates.push(n);
    });
    candidates.sort((a, b) => a.lastAccess - b.lastAccess);
    for (const n of candidates) {
      n.stamp++;
      this.heapTime.push(n.lastAccess);
      this.heapSeq.push(this.pushCounter++);
      this.heapNode.push(n);
      this.heapStamp.push(n.stamp);
    }
  }
}
