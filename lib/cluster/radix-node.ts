// One node of the segment radix tree (radix-tree.ts): a prompt segment under its parent, with the tokens it holds,
// its reference count, its last access, and its children (a short ordered list, indexed by a hash table once it grows).
/** A run of prompt tokens with one content id (globally unique per distinct content within a workload). */
export interface SegmentLike {
  readonly id: number;
  readonly tokens: number;
}

/** Children up to this many are found by a scan of the ordered list; above it a hash table indexes them. */
const SCAN_CHILDREN = 8;

/** The index's home position for a segment id (Fibonacci hashing into a power-of-two table). */
function home(id: number, mask: number): number {
  return (Math.imul(id | 0, 0x9e3779b1) >>> 7) & mask;
}

export class RadixNode<P = unknown> {
  /** tokens of this segment currently held (< tokens after a partial eviction of the tail) */
  held: number;
  /** requests using this node (in-use KV is never evicted); in a tree with `refsOnPath`, using it or a descendant */
  refs = 0;
  /** simulated time this node was last used, or a removed child's if later (evictable trees only: the LRU order; a
   * leaf's is the latest use of its subtree, an inner node's latest use is RadixTree.accessTime) */
  lastAccess: number;
  /** free slot for the tree's user: Preble's per-GPU sets and window counters, the SGLang router's worker times… */
  payload: P | undefined = undefined;
  /** false once removed from its tree */
  attached = true;
  /** version for the lazy LRU heap */
  stamp = 0;
  /** children now (read-only outside the tree) */
  childCount = 0;
  // Children in insertion order: kids[0 … used) (entries past `used` may be stale and are never read). Most nodes
  // have one or two children, so a short list scanned by segment beats a Map per node (a Map costs an allocation on
  // every new node and on shrinking, which showed up as a quarter of the simulator's time in garbage collection). The
  // list never shrinks (an emptied JS array would drop its storage and allocate again on the next push). Past
  // SCAN_CHILDREN children a hash table indexes the list, and a removed child leaves a hole (null) until more than
  // half the list is holes. The table is an Int32Array of list positions + 1 (0 = empty), open addressing with linear
  // probing and backward-shift deletion: a lookup reads typed memory only (a Map's lookup was the simulator's single
  // hottest line on the tool-calling bench, where a hot tool's node has hundreds of children and every router probes
  // it for every replica).
  private kids: Array<RadixNode<P> | null> | null = null;
  /** kids[0] while the list has one (null when empty or a hole): a walk down a chain of single children reads the
   * node alone, not the node and then its list (prompts of many segments are such chains; each object a walk
   * touches is a likely cache miss, the trees' nodes being scattered over the heap) */
  private first: RadixNode<P> | null = null;
  private used = 0;
  private index: Int32Array | null = null;
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

  /** Makes a detached leaf a new node (RadixTree's `recycle` option): revive() with no payload. */
  reuse(segment: number, tokens: number, parent: RadixNode<P>, prefixTokens: number, depth: number, time: number): void {
    if (this.attached || this.childCount !== 0) throw new Error(`reuse: node ${this.segment} is not a detached leaf`);
    this.revive(segment, tokens, parent, prefixTokens, depth, time);
    this.payload = undefined;
  }

  /** Makes a node of a released tree a new node of another tree (RadixTree's `pool` option), whatever state the old tree
   * left it in: as if constructed, with an empty child list, the stamp excepted (it keeps counting, so stale LRU
   * entries never match) and the payload kept (the new tree's createPayload resets it). The list's storage is kept;
   * entries past its length are never read. */
  revive(segment: number, tokens: number, parent: RadixNode<P>, prefixTokens: number, depth: number, time: number): void {
    const self = this as { -readonly [K in keyof RadixNode<P>]: RadixNode<P>[K] };
    self.segment = segment;
    self.tokens = tokens;
    self.parent = parent;
    self.prefixTokens = prefixTokens;
    self.depth = depth;
    this.held = tokens;
    this.lastAccess = time;
    this.refs = 0;
    this.attached = true;
    this.stamp++;
    this.slot = -1;
    this.first = null;
    this.used = 0;
    this.childCount = 0;
    this.holes = 0;
    this.index = null;
  }

  /** The child for segment `id`, or undefined. */
  child(id: number): RadixNode<P> | undefined {
    const f = this.first;
    if (f !== null && f.segment === id) return f;
    const table = this.index;
    if (table !== null) {
      const list = this.kids as Array<RadixNode<P> | null>;
      const mask = table.length - 1;
      for (let h = home(id, mask); ; h = (h + 1) & mask) {
        const at = table[h];
        if (at === 0) return undefined;
        const c = list[at - 1] as RadixNode<P>;
        if (c.segment === id) return c;
      }
    }
    const list = this.kids;
    for (let i = 1; i < this.used; i++) {
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

  /** Moves every child onto `out` and leaves this node childless (the list's storage is kept, emptied; the tree's
   * recycleAll). */
  takeChildren(out: Array<RadixNode<P>>): void {
    const list = this.kids;
    if (list === null) return;
    for (let i = 0; i < this.used; i++) {
      const c = list[i];
      if (c !== null) {
        c.slot = -1;
        out.push(c);
      }
      list[i] = null;
    }
    this.used = 0;
    this.childCount = 0;
    this.holes = 0;
    this.index = null;
    this.first = null;
  }

  /** Appends a child (the tree's job: its segment must not be a child already). */
  addChild(c: RadixNode<P>): void {
    const list = this.kids;
    if (list === null) {
      // Most nodes keep a single child: a one-slot array (an empty one would grow to 17 slots on its first push).
      this.kids = [c];
      this.first = c;
      this.used = 1;
      this.childCount = 1;
      return;
    }
    const at = this.used++;
    if (at < list.length) list[at] = c;
    else list.push(c);
    if (at === 0) this.first = c;
    this.childCount++;
    if (this.index !== null) {
      c.slot = at;
      if (this.childCount * 2 > this.index.length) this.reindex(list);
      else this.indexPut(this.index, c.segment, at);
    } else if (this.used > SCAN_CHILDREN) {
      for (let i = 0; i < this.used; i++) (list[i] as RadixNode<P>).slot = i;
      this.reindex(list);
    }
  }

  /** A new table for the list's children (holes skipped), at most half full. */
  private reindex(list: Array<RadixNode<P> | null>): void {
    let size = 32;
    while (size < this.childCount * 4) size *= 2;
    let table = this.index;
    if (table !== null && table.length === size) table.fill(0);
    else table = new Int32Array(size);
    for (let i = 0; i < this.used; i++) {
      const k = list[i];
      if (k !== null) this.indexPut(table, k.segment, i);
    }
    this.index = table;
  }

  private indexPut(table: Int32Array, id: number, at: number): void {
    const mask = table.length - 1;
    let h = home(id, mask);
    while (table[h] !== 0) h = (h + 1) & mask;
    table[h] = at + 1;
  }

  /** Removes list position `at` (segment `id`) from the table, shifting later entries of its probe run back. */
  private indexDelete(table: Int32Array, list: Array<RadixNode<P> | null>, id: number, at: number): void {
    const mask = table.length - 1;
    let hole = home(id, mask);
    while (table[hole] !== at + 1) hole = (hole + 1) & mask;
    for (let j = (hole + 1) & mask; table[j] !== 0; j = (j + 1) & mask) {
      const h = home((list[table[j] - 1] as RadixNode<P>).segment, mask);
      // The entry at j may move to the hole unless its home lies cyclically in (hole, j].
      const stays = hole <= j ? hole < h && h <= j : hole < h || h <= j;
      if (stays) continue;
      table[hole] = table[j];
      hole = j;
    }
    table[hole] = 0;
  }

  /** Removes a child (the tree's job), keeping the others in insertion order. */
  removeChild(c: RadixNode<P>): void {
    if (this.used === 1 && this.first === c) {
      // An only child (most removals: a prompt's path is a chain, evicted leaf first): the list is left as it is, its
      // one entry now past the end, never read (each object an eviction touches is a likely cache miss).
      this.first = null;
      this.used = 0;
      this.childCount = 0;
      return;
    }
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
      this.first = list[0] ?? null;
      return;
    }
    this.indexDelete(this.index, list, c.segment, at);
    list[at] = null;
    if (at === 0) this.first = null;
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
    this.first = kept > 0 ? list[0] : null;
    this.holes = 0;
    if (kept <= SCAN_CHILDREN) this.index = null;
    else this.reindex(list);
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
