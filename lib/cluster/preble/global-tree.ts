// Preble's global radix tree (§3.1): every prompt is inserted at dispatch, and each node records which GPUs it is
// allocated to, how many outstanding requests use it on each GPU, and (per GPU) an LRU list of the nodes no request
// uses there — the order an eviction on that GPU would take them. Per-(node, GPU) counters live in pages shared by
// 1,024 nodes (no per-node allocation, no copying as the tree grows).
import { grownToHold } from "../../core/typed-arrays";
import { RadixNode, RadixTree } from "../radix-tree";
import type { EvictionNotice } from "../routers";
import type { ClusterRequest } from "../workloads";

/** nodes per page of per-(node, GPU) counters */
const PAGE_NODES = 1024;
/** counters per (node, GPU): outstanding through the node, last finish, LRU prev, LRU next (always); and, when a
 * released reading needs them (EXTENDED_SLOTS): outstanding requests whose important node this is (the released
 * decode estimate), and the window's Σ prefill ns, Σ decode ns per token and count of the requests dispatched with it
 * (the released rebalancing moves them). The lecture's reading keeps the pages small: the burst bench is
 * allocation-bound. */
export const BASE_SLOTS = 4;
export const EXTENDED_SLOTS = 8;

/** Per-node payload of the global tree. The fields are set by reset(), for a new payload and for the payload of a node
 * taken from the thread's pool (a sweep's finished Preble runs give their nodes back, GlobalTree.release). */
export class GlobalNodeInfo {
  /** the node's id: its index in the tree's node list and in the counter pages */
  id!: number;
  /** the key portion (§2.1): nearest ancestor-or-self with more tokens than everything before it */
  important!: RadixNode<GlobalNodeInfo>;
  /** page[base + g] outstanding requests through the node on g, [base + R + g] last finish time of one there,
   * [base + 2R + g] / [base + 3R + g] previous / next node id in g's idle LRU list (−1 at the ends),
   * [base + 4R + g] outstanding requests on g whose important node this is, [base + 5R + g] / [base + 6R + g] /
   * [base + 7R + g] Σ prefill ns / Σ decode ns per token / count of the window's requests of this important node whose
   * load is on g */
  page!: Float64Array;
  base!: number;
  /** GPUs the node is allocated to (bit g): dispatched there, not known to be evicted */
  alloc!: number;
  /** GPUs whose idle LRU list holds the node (bit g) */
  listed!: number;
  /** requests dispatched within the window whose prompt passes through this node */
  windowCount!: number;
  /** what only the released readings keep for an important node (allocated on first use) */
  released!: ReleasedNodeStats | null;
  /** an important node's autoscaling statistics (allocated on its first finished request under autoscaling) */
  autoscale!: AutoscaleStats | null;
  // (No field here holds a fraction: V8 keeps each such field in a number object of its own, which a reset would
  // touch. The node's recompute time is in GlobalTree.recomputeNs.)
  /** decision counter at which this node was last on a routed path (skips it in the eviction walk) */
  pathStamp!: number;

  constructor(id: number, important: RadixNode<GlobalNodeInfo>, page: Float64Array, base: number) {
    this.reset(id, important, page, base);
  }

  /** The payload of a new node: nothing allocated, no statistics. */
  reset(id: number, important: RadixNode<GlobalNodeInfo>, page: Float64Array, base: number): void {
    this.id = id;
    this.important = important;
    this.page = page;
    this.base = base;
    this.alloc = 0;
    this.listed = 0;
    this.windowCount = 0;
    this.released = null;
    this.autoscale = null;
    this.pathStamp = -1;
  }
}

/** Nodes of released global trees, each with its payload, waiting for the next global tree of this thread (bounded like
 * the spare nodes of radix-tree.ts). Handed over as they are: giving back a tree of 23,000 nodes (agent) touches none of
 * them, and a new node is revived together with its payload, made beside it. */
const SPARE_GLOBAL: GNode[] = [];
const SPARE_GLOBAL_LIMIT = 1 << 16;

/** Nodes (with their payloads) waiting in this thread's pool (tests). */
export function spareInfoCount(): number {
  return SPARE_GLOBAL.length;
}

/** An important node's autoscaling statistics (§3.4): queueing seconds of its finished requests by half-window. */
export class AutoscaleStats {
  recentSum = 0;
  recentCount = 0;
  earlierSum = 0;
  earlierCount = 0;
  /** no autoscaling of this prefix before this time */
  scaledUntil = -Infinity;
}

/** The autoscaling statistics of an important node (created on first use). */
export function autoscaleOf(info: GlobalNodeInfo): AutoscaleStats {
  return info.autoscale ?? (info.autoscale = new AutoscaleStats());
}

/** An important node's statistics kept only under the released readings. */
export class ReleasedNodeStats {
  // The window's requests whose important node this is (the released code's histogram, gsw:52–62): their count, and
  // the prompt tokens the global tree held for them at dispatch (hits) out of their prompt tokens.
  count = 0;
  hitTokens = 0;
  promptTokens = 0;
  /** output length of the last request dispatched with this important node (gsw:56: its max_new_tokens) */
  lastOutputTokens = 0;
  /** migrations of this node so far, and where each went (the released rebalancing): a window entry dispatched at
   * epoch e to GPU g now counts on the GPU the migrations e, e + 1, … carried it to */
  migrations = 0;
  readonly from: number[] = [];
  readonly to: number[] = [];
}

/** The released statistics of an important node (created on first use). */
export function releasedOf(info: GlobalNodeInfo): ReleasedNodeStats {
  return info.released ?? (info.released = new ReleasedNodeStats());
}

export type GNode = RadixNode<GlobalNodeInfo>;

export const infoOf = (n: GNode): GlobalNodeInfo => n.payload as GlobalNodeInfo;

/** Request ids the leaf table indexes (arrival indices; anything else is matched again at finish). */
const isLeafIndex = (id: number): boolean => Number.isInteger(id) && id >= 0 && id < 1 << 24;

/** release()'s scratch list: the root's children, dropped */
const DROPPED: GNode[] = [];

export class GlobalTree {
  readonly tree: RadixTree<GlobalNodeInfo>;
  /** told when an important node gains (added) or loses an allocation on g (the released decode term counts the
   * outstanding requests of a node only on the GPUs it is allocated to) */
  onImportantAlloc: ((info: GlobalNodeInfo, g: number, added: boolean) => void) | null = null;
  readonly nodes: GNode[] = [];
  private readonly pages: Float64Array[] = [];
  /** per GPU: head / tail node id of the idle LRU list (head = least recently used) */
  readonly listHead: Int32Array;
  readonly listTail: Int32Array;
  /** per GPU: tokens of the nodes allocated there */
  readonly allocatedTokens: Float64Array;
  // The current decision: the request's path root → leaf, and what each GPU holds of it.
  path: GNode[] = [];
  pathLength = 0;
  /** per GPU: tokens of the request's prompt allocated there (longest allocated prefix) */
  readonly matchTokens: Float64Array;
  /** the cluster-wide longest allocated prefix and the GPUs holding it (bit mask) */
  matchCached = 0;
  matchMask = 0;
  decisionCounter = 0;
  /** by node id: nanoseconds to recompute the node's tokens on top of its prefix (−1 until needed; LoadCostModel) */
  recomputeNs: Float64Array = new Float64Array(PAGE_NODES).fill(-1);
  /** by request id: the leaf its dispatch inserted (markFinished walks up from it instead of matching again) */
  private readonly leaves: GNode[] = [];

  /** counters per (node, GPU) in the pages */
  readonly slots: number;

  constructor(
    readonly replicas: number,
    extended = false,
  ) {
    const R = replicas;
    const SLOTS = extended ? EXTENDED_SLOTS : BASE_SLOTS;
    this.slots = SLOTS;
    this.tree = new RadixTree<GlobalNodeInfo>({
      evictable: false,
      // new nodes come from released global trees when there are any (the tree never drops a node: its own are given
      // back only by release())
      pool: SPARE_GLOBAL,
      createPayload: (node) => {
        const id = this.nodes.length;
        this.nodes.push(node);
        const parent = node.parent;
        const important = parent === null || parent.parent === null || node.tokens > node.prefixTokens ? node : infoOf(parent).important;
        const slot = id & (PAGE_NODES - 1);
        const known = this.recomputeNs;
        if (id >= known.length) this.recomputeNs = grownToHold(known, id).fill(-1, known.length);
        if (slot === 0) {
          const page = new Float64Array(PAGE_NODES * SLOTS * R);
          for (let i = 0; i < PAGE_NODES; i++) page.fill(-Infinity, i * SLOTS * R + R, i * SLOTS * R + 2 * R);
          this.pages.push(page);
        }
        const page = this.pages[this.pages.length - 1];
        const old = node.payload; // a pooled node's payload (a new node has none)
        if (old === undefined) return new GlobalNodeInfo(id, important, page, slot * SLOTS * R);
        old.reset(id, important, page, slot * SLOTS * R);
        return old;
      },
    });
    this.listHead = new Int32Array(R).fill(-1);
    this.listTail = new Int32Array(R).fill(-1);
    this.allocatedTokens = new Float64Array(R);
    this.matchTokens = new Float64Array(R);
  }

  /** Inserts the prompt, collects its path, and computes every GPU's match (matchTokens, matchCached, matchMask). */
  analyze(request: ClusterRequest, now: number): void {
    this.decisionCounter++;
    const segs = request.segments;
    const leaf = this.tree.insert(segs, segs.length, now);
    const depth = leaf.depth;
    if (this.path.length < depth) this.path.length = depth;
    for (let n: GNode | null = leaf; n !== null && n.parent !== null; n = n.parent) {
      this.path[n.depth - 1] = n;
      infoOf(n).pathStamp = this.decisionCounter;
    }
    this.pathLength = depth;
    this.matchTokens.fill(0);
    let cached = 0;
    let mask = 0;
    for (let i = 0; i < depth; i++) {
      const n = this.path[i];
      let a = infoOf(n).alloc;
      if (a === 0) continue;
      const end = n.prefixTokens + n.tokens;
      cached = end;
      mask = a;
      while (a !== 0) {
        const bit = a & -a;
        this.matchTokens[31 - Math.clz32(bit)] = end;
        a ^= bit;
      }
    }
    this.matchCached = cached;
    this.matchMask = mask;
  }

  get leaf(): GNode {
    return this.path[this.pathLength - 1];
  }

  /** The analysed prompt is now "on" g (optimistically cached there), in use until the request finishes. */
  markDispatched(g: number, request?: ClusterRequest): void {
    const bit = 1 << g;
    if (request !== undefined && isLeafIndex(request.id)) {
      if (this.leaves.length <= request.id) this.leaves.length = request.id + 1;
      this.leaves[request.id] = this.path[this.pathLength - 1];
    }
    for (let i = 0; i < this.pathLength; i++) {
      const n = this.path[i];
      const info = infoOf(n);
      if ((info.alloc & bit) === 0) {
        info.alloc |= bit;
        this.allocatedTokens[g] += n.tokens;
        if (this.onImportantAlloc !== null && info.important === n) this.onImportantAlloc(info, g, true);
      }
      info.page[info.base + g]++;
      this.unlink(info, g);
      info.windowCount++;
    }
  }

  /** The request finished on g: its nodes are idle there again (leaf first, so a parent follows its children in the
   * LRU list). Returns the leaf. */
  markFinished(request: ClusterRequest, g: number, now: number): GNode {
    const R = this.replicas;
    const leaf = this.leafOf(request);
    for (let n: GNode | null = leaf; n !== null && n.parent !== null; n = n.parent) {
      const info = infoOf(n);
      info.page[info.base + g]--;
      info.page[info.base + R + g] = now;
      if (info.page[info.base + g] === 0 && (info.alloc & (1 << g)) !== 0) this.append(n, g);
    }
    return leaf;
  }

  /** The leaf of the request's prompt: the one its dispatch recorded (the tree never drops a node, nor holds part of
   * one, so a match from the root would end there), else a match. */
  leafOf(request: ClusterRequest): GNode {
    const known = isLeafIndex(request.id) ? this.leaves[request.id] : undefined;
    return known !== undefined ? known : this.tree.match(request.segments);
  }

  /** The tree is done with (its router released): its nodes, with their payloads, go to the thread's pool for the next
   * global tree of a sweep (a Preble run's tree is most of what survives its young collections). The tree is empty
   * afterwards and must not be used again. */
  release(): void {
    const nodes = this.nodes;
    for (let i = 1; i < nodes.length && SPARE_GLOBAL.length < SPARE_GLOBAL_LIMIT; i++) SPARE_GLOBAL.push(nodes[i]);
    this.tree.root.takeChildren(DROPPED);
    DROPPED.length = 0;
    nodes.length = 1; // the root stays
    this.leaves.length = 0;
    this.path.length = 0;
    this.pathLength = 0;
  }

  /** Adds GPU g to the allocation of `node` and its ancestors (autoscaling's replication). */
  allocateUpward(node: GNode, g: number): void {
    const bit = 1 << g;
    for (let n: GNode | null = node; n !== null && n.parent !== null; n = n.parent) {
      const a = infoOf(n);
      if ((a.alloc & bit) === 0) {
        a.alloc |= bit;
        this.allocatedTokens[g] += n.tokens;
        if (this.onImportantAlloc !== null && a.important === n) this.onImportantAlloc(a, g, true);
      }
    }
  }

  /** The released migration (gsw:445, 448, 459–462): `node` and its whole subtree are allocated to g alone. */
  reallocateSubtree(node: GNode, g: number): void {
    const stack: GNode[] = [node];
    const bit = 1 << g;
    while (stack.length > 0) {
      const n = stack.pop() as GNode;
      const info = infoOf(n);
      let others = info.alloc & ~bit;
      while (others !== 0) {
        const b = others & -others;
        const h = 31 - Math.clz32(b);
        info.alloc &= ~b;
        this.allocatedTokens[h] -= n.tokens;
        this.unlink(info, h);
        if (this.onImportantAlloc !== null && info.important === n) this.onImportantAlloc(info, h, false);
        others ^= b;
      }
      if ((info.alloc & bit) === 0) {
        info.alloc |= bit;
        this.allocatedTokens[g] += n.tokens;
        if (info.page[info.base + g] === 0) this.append(n, g);
        if (this.onImportantAlloc !== null && info.important === n) this.onImportantAlloc(info, g, true);
      }
      n.forEachChild((c) => stack.push(c));
    }
  }

  /** An eviction on a GPU: it no longer holds the node. Ignored when stale — a request using the node on that GPU
   * is still outstanding, or finished after the eviction (it recomputed the node there). A partial eviction counts
   * as losing the node (segment granularity). */
  applyEviction(notice: EvictionNotice): "applied" | "ignored" | "none" {
    const node = this.tree.find(notice.path);
    const g = notice.replica;
    if (node === null || node.parent === null) return "none";
    const info = infoOf(node);
    const bit = 1 << g;
    if ((info.alloc & bit) === 0) return "none";
    if (info.page[info.base + g] > 0 || info.page[info.base + this.replicas + g] > notice.time) return "ignored";
    info.alloc &= ~bit;
    this.allocatedTokens[g] -= node.tokens;
    this.unlink(info, g);
    if (this.onImportantAlloc !== null && info.important === node) this.onImportantAlloc(info, g, false);
    return "applied";
  }

  // ---- the idle-node LRU list of each GPU ----

  append(node: GNode, g: number): void {
    const info = infoOf(node);
    const bit = 1 << g;
    if (info.listed & bit) return;
    info.listed |= bit;
    const R = this.replicas;
    const t = this.listTail[g];
    info.page[info.base + 2 * R + g] = t;
    info.page[info.base + 3 * R + g] = -1;
    if (t >= 0) {
      const other = infoOf(this.nodes[t]);
      other.page[other.base + 3 * R + g] = info.id;
    } else this.listHead[g] = info.id;
    this.listTail[g] = info.id;
  }

  unlink(info: GlobalNodeInfo, g: number): void {
    const bit = 1 << g;
    if ((info.listed & bit) === 0) return;
    info.listed &= ~bit;
    const R = this.replicas;
    const p = info.page[info.base + 2 * R + g];
    const n = info.page[info.base + 3 * R + g];
    if (p >= 0) {
      const before = infoOf(this.nodes[p]);
      before.page[before.base + 3 * R + g] = n;
    } else this.listHead[g] = n;
    if (n >= 0) {
      const after = infoOf(this.nodes[n]);
      after.page[after.base + 2 * R + g] = p;
    } else this.listTail[g] = p;
  }

  /** The node after `info` in g's LRU list (−1 at the end). */
  nextIdle(info: GlobalNodeInfo, g: number): number {
    return info.page[info.base + 3 * this.replicas + g];
  }
}
