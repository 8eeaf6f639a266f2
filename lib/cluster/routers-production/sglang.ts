// The SGLang router's cache-aware policy on our segment-level simulator (§6), in three released versions:
// - sglangRouter (today): lightseekorg/smg, model_gateway/src/policies/cache_aware.rs with the approximate tree of
//   crates/kv_index/src/string_tree.rs, as of August 2026 (commit 73da68c): the least-loaded worker is the minimum of
//   (in-flight requests, requests it was routed, index) — smg #1714, June 2026 — and a hit goes to the matched node's
//   last_tenant, which is the worker whose request created the node.
// - sglangRouterLate2025: sgl-project/sglang sgl-router after #14650 (December 2025) until #1714: a miss goes to the
//   least-loaded worker, ties to the lowest index; a hit to the first tenant of the node's hash map.
// - sglangRouterSmallestTree: sgl-router until #14650: a miss goes to the worker with the smallest tree (the rule the
//   "death spiral" reports, sglang #14305 / #14532, are about); the lecture's §6 describes this version.
// Differences from the released code, forced by the model: the tree counts tokens, not characters (we have no text),
// matches whole segments, and refreshes a tenant's access time on the whole path it was sent (smg stamps only the
// leaf, intermediate nodes get epoch 0, and a match touches its tenant 1 time in 8).
import { checkInteger, checkNumber, checkOneOf, checkKnownKeys } from "../../core/errors";
import type { ClusterView, Router, RouterContext } from "../routers";
import { registerRouter } from "../routers";
import type { ClusterRequest } from "../workloads";
import { TenantNode, TenantTree } from "./tenant-tree";

/** Characters per token used to turn the router's character budget into tokens (a common rule of thumb for
 * English text; the gateway prefix plugin uses the same 4). */
export const CHARACTERS_PER_TOKEN = 4;

export interface SglangRouterOptions {
  /** match rate (matched / prompt) must be strictly above this to follow the match (CLI default 0.3) */
  cacheThreshold: number;
  /** imbalanced needs max − min in-flight requests > this (CLI default 64) */
  balanceAbs: number;
  /** … and max > balanceRel × min (CLI default 1.5) */
  balanceRel: number;
  /** seconds between evictions of the approximate tree (Rust CLI default 120; the Python launcher's is 60 since
   * January 2026) */
  evictionInterval: number;
  /** tree size cap per worker, in tokens (CLI default 2^26 characters ÷ 4 characters per token) */
  maxTreeTokens: number;
  /** where a miss goes: the least-loaded worker (since December 2025) or the smallest tree (before) */
  onMiss: "leastLoad" | "smallestTree";
  /** ties among the least loaded: (load, requests routed there, index) since mid-2026, or the lowest index */
  tieBreak: "processed" | "index";
  /** the worker a hit goes to: the node's creator (smg's last_tenant) or a fixed hash-map order (sgl-router) */
  hitTenant: "creator" | "hashOrder";
}

export const SGLANG_ROUTER_DEFAULTS: Readonly<SglangRouterOptions> = {
  cacheThreshold: 0.3, // smg CLI --cache-threshold default (the Rust struct default is 0.5)
  balanceAbs: 64, // CLI --balance-abs-threshold default (struct default 32)
  balanceRel: 1.5, // CLI --balance-rel-threshold default (struct default 1.1)
  evictionInterval: 120, // Rust CLI --eviction-interval default, seconds (the Python launcher: 60, below)
  maxTreeTokens: 2 ** 26 / CHARACTERS_PER_TOKEN, // CLI --max-tree-size default 2^26 characters per worker
  onMiss: "leastLoad", // cache_aware.rs select_worker_with_text: min_load_idx on a miss
  tieBreak: "processed", // cache_aware.rs: key (load, processed, idx), smg #1714
  hitTenant: "creator", // string_tree.rs: the matched node's last_tenant
};

/** The Python launcher's eviction interval (smg bindings/python router_args.py, since January 2026), seconds. */
export const SGLANG_PYTHON_EVICTION_INTERVAL = 60;

/** The two earlier releases, as option sets over the same router. */
export const SGLANG_LATE_2025: Readonly<Partial<SglangRouterOptions>> = { onMiss: "leastLoad", tieBreak: "index", hitTenant: "hashOrder" };
export const SGLANG_SMALLEST_TREE: Readonly<Partial<SglangRouterOptions>> = { onMiss: "smallestTree", tieBreak: "index", hitTenant: "hashOrder" };

const OPTION_NAMES = Object.keys(SGLANG_ROUTER_DEFAULTS);

export function sglangRouterOptions(o: Record<string, unknown> = {}, name = "sglangRouter"): SglangRouterOptions {
  checkKnownKeys(`路由器 ${name} `, o, OPTION_NAMES);
  const d = SGLANG_ROUTER_DEFAULTS;
  return {
    cacheThreshold: checkNumber("cacheThreshold", o.cacheThreshold ?? d.cacheThreshold, { min: 0, max: 1 }),
    balanceAbs: checkInteger("balanceAbs", o.balanceAbs ?? d.balanceAbs, { min: 0 }),
    balanceRel: checkNumber("balanceRel", o.balanceRel ?? d.balanceRel, { min: 1 }),
    evictionInterval: checkNumber("evictionInterval", o.evictionInterval ?? d.evictionInterval, { above: 0 }),
    maxTreeTokens: checkNumber("maxTreeTokens", o.maxTreeTokens ?? d.maxTreeTokens, { min: 0 }),
    onMiss: checkOneOf("onMiss", o.onMiss ?? d.onMiss, ["leastLoad", "smallestTree"] as const),
    tieBreak: checkOneOf("tieBreak", o.tieBreak ?? d.tieBreak, ["processed", "index"] as const),
    hitTenant: checkOneOf("hitTenant", o.hitTenant ?? d.hitTenant, ["creator", "hashOrder"] as const),
  };
}

/** sgl-router returned "the first tenant" of the deepest matched node: the first key of a hash map, an arbitrary but
 * fixed order per node. We reproduce "arbitrary but fixed" with a hash of (segment, worker). */
export function tenantOrderKey(segment: number, worker: number): number {
  let h = Math.imul(segment ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(worker + 1, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x27d4eb2f);
  h ^= h >>> 15;
  return h >>> 0;
}

/** Decision kinds counted in stats(). */
export type SglangDecision = "imbalanced" | "hit" | "miss";

export class SglangRouter implements Router {
  readonly name: string;
  readonly options: SglangRouterOptions;
  readonly tree: TenantTree;
  /** requests this router sent to each worker (smg's processed counter, incremented on every selection) */
  readonly processed: Float64Array;
  private nextEviction: number;
  private readonly counts: Record<SglangDecision, number> = { imbalanced: 0, hit: 0, miss: 0 };
  /** misses sent to a worker with the most in-flight requests while another had fewer (the "death spiral") */
  private missesToBusiest = 0;
  /** misses sent to a worker above the mean in-flight count */
  private missesAboveMean = 0;
  /** hits where the worker really held (or was about to hold) less than half of what the tree matched */
  private staleHits = 0;
  /** Σ over misses of the fraction of workers that were "busiest" then: what a uniformly random choice would score */
  private busiestByChance = 0;
  /** the last decision, for tests and traces */
  lastDecision: { kind: SglangDecision; matchRate: number; matched: number; worker: number } | null = null;

  constructor(readonly replicas: number, o: Record<string, unknown> = {}, name = "sglangRouter") {
    this.options = sglangRouterOptions(o, name);
    this.name = name;
    this.tree = new TenantTree(replicas);
    this.processed = new Float64Array(replicas);
    this.nextEviction = this.options.evictionInterval;
  }

  /** The imbalance rule (cache_aware.rs): both the absolute and the relative gap must be exceeded. */
  static isImbalanced(max: number, min: number, abs: number, rel: number): boolean {
    return max - min > abs && max > min * rel;
  }

  /** The least-loaded worker under the configured tie-break. */
  leastLoaded(view: ClusterView): number {
    let best = 0;
    for (let w = 1; w < this.replicas; w++) {
      const a = view.outstandingRequests(w);
      const b = view.outstandingRequests(best);
      if (a < b || (a === b && this.options.tieBreak === "processed" && this.processed[w] < this.processed[best])) best = w;
    }
    return best;
  }

  route(request: ClusterRequest, view: ClusterView): number {
    const o = this.options;
    const now = view.now;
    // The background eviction thread wakes every evictionInterval seconds; nothing reads the tree in between,
    // so running it lazily before the next decision gives the same tree.
    if (now >= this.nextEviction) {
      for (let w = 0; w < this.replicas; w++) this.tree.evictTenant(w, o.maxTreeTokens);
      this.nextEviction = (Math.floor(now / o.evictionInterval) + 1) * o.evictionInterval;
    }
    // load = the router's own count of in-flight requests per worker
    let max = -Infinity;
    let min = Infinity;
    let sum = 0;
    for (let w = 0; w < this.replicas; w++) {
      const n = view.outstandingRequests(w);
      sum += n;
      if (n > max) max = n;
      if (n < min) min = n;
    }
    const minWorker = this.leastLoaded(view);
    if (SglangRouter.isImbalanced(max, min, o.balanceAbs, o.balanceRel)) {
      // imbalanced → shortest queue; the tree is still updated with the request
      this.tree.insert(request.segments, minWorker, now);
      return this.decide("imbalanced", 0, 0, minWorker);
    }
    const { node, tokens } = this.tree.match(request.segments);
    const matchRate = tokens / request.promptTokens;
    const matchedWorker = this.hitTenant(node);
    // prefix_match refreshes the returned tenant's access times along the matched path
    if (matchedWorker >= 0) this.tree.touch(node, matchedWorker, now);
    let worker: number;
    let kind: SglangDecision;
    if (matchedWorker >= 0 && matchRate > o.cacheThreshold) {
      worker = matchedWorker; // match rate > cache_threshold → the matched node's tenant
      kind = "hit";
      // Diagnostics only (never used to decide): the worker's real cache plus what is already on its way there.
      if (view.viewMatch(request, worker) < 0.5 * tokens) this.staleHits++;
    } else {
      kind = "miss";
      worker = o.onMiss === "leastLoad" ? minWorker : this.smallestTree();
      const load = view.outstandingRequests(worker);
      if (load === max && max > min) this.missesToBusiest++;
      if (max > min) {
        let atMax = 0;
        for (let v = 0; v < this.replicas; v++) if (view.outstandingRequests(v) === max) atMax++;
        this.busiestByChance += atMax / this.replicas;
      }
      if (load > sum / this.replicas) this.missesAboveMean++;
    }
    this.tree.insert(request.segments, worker, now);
    return this.decide(kind, matchRate, tokens, worker);
  }

  private decide(kind: SglangDecision, matchRate: number, matched: number, worker: number): number {
    this.counts[kind]++;
    this.processed[worker]++;
    this.lastDecision = { kind, matchRate, matched, worker };
    return worker;
  }

  /** The worker a hit on `node` goes to (−1 at the root): the node's creator while it is still a tenant there, else
   * the first tenant in hash order (which smg then caches as the node's last tenant). */
  hitTenant(node: TenantNode): number {
    if (node.isRoot) return -1;
    if (this.options.hitTenant === "creator") {
      const last = this.tree.lastTenant(node);
      if (last >= 0 && TenantTree.isTenant(node, last)) return last;
      const first = this.firstTenant(node);
      if (first >= 0) this.tree.setLastTenant(node, first);
      return first;
    }
    return this.firstTenant(node);
  }

  /** The first tenant of the node in sgl-router's hash-map order (−1 at the root). */
  firstTenant(node: TenantNode): number {
    let best = -1;
    let bestKey = Infinity;
    for (const w of this.tree.tenantsOf(node)) {
      const k = tenantOrderKey(node.segment, w);
      if (k < bestKey) {
        bestKey = k;
        best = w;
      }
    }
    return best;
  }

  /** Worker with the fewest tokens in the tree; ties → lowest index. */
  smallestTree(): number {
    let best = 0;
    for (let w = 1; w < this.replicas; w++) if (this.tree.sizeTokens[w] < this.tree.sizeTokens[best]) best = w;
    return best;
  }

  stats(): Record<string, unknown> {
    return {
      ...this.counts,
      missesToBusiest: this.missesToBusiest,
      missesAboveMean: this.missesAboveMean,
      missesToBusiestByChance: this.busiestByChance,
      staleHits: this.staleHits,
      treeTokens: Array.from(this.tree.sizeTokens),
      treeEvictions: this.tree.evictions,
      treeNodes: this.tree.tree.nodeCount,
    };
  }
}

registerRouter(
  "sglangRouter",
  "SGLang router (smg, August 2026), cache_aware at its CLI defaults: approximate tree of routed prompts; if max − min in-flight > 64 and max > 1.5 × min → the least loaded; else match rate > 0.3 → the matched node's creator, else the least loaded; ties by (in-flight, requests routed there, index)",
  (ctx: RouterContext, o) => new SglangRouter(ctx.replicas, o),
);

registerRouter(
  "sglangRouterLate2025",
  "SGLang router as released December 2025 – June 2026: like sglangRouter, but least-load ties go to the lowest index and a hit to the first tenant in hash-map order",
  (ctx: RouterContext, o) => new SglangRouter(ctx.replicas, { ...SGLANG_LATE_2025, ...o }, "sglangRouterLate2025"),
);

registerRouter(
  "sglangRouterSmallestTree",
  "SGLang router as released until December 2025 (the lecture's description): a miss goes to the worker with the smallest tree",
  (ctx: RouterContext, o) => new SglangRouter(ctx.replicas, { ...SGLANG_SMALLEST_TREE, ...o }, "sglangRouterSmallestTree"),
);
