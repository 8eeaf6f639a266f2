// The SGLang router's cache-aware policy (sgl-project/sglang, sgl-router/src/policies/cache_aware.rs and
// tree.rs), on our segment-level simulator (§6). Differences from the released code, all forced by the model:
// the tree counts tokens, not characters (we have no text), and it matches whole segments, not characters.
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
  /** seconds between evictions of the approximate tree (CLI default 120) */
  evictionInterval: number;
  /** tree size cap per worker, in tokens (CLI default 2^26 characters ÷ 4 characters per token) */
  maxTreeTokens: number;
  /** where a miss goes: the smallest tree (older releases) or the fewest in-flight requests (newer releases) */
  onMiss: "smallestTree" | "leastLoad";
}

export const SGLANG_ROUTER_DEFAULTS: Readonly<SglangRouterOptions> = {
  cacheThreshold: 0.3, // sglang_router CLI --cache-threshold default (the Rust struct default is 0.5)
  balanceAbs: 64, // CLI --balance-abs-threshold default (struct default 32)
  balanceRel: 1.5, // CLI --balance-rel-threshold default (struct default 1.1)
  evictionInterval: 120, // CLI --eviction-interval default, seconds
  maxTreeTokens: 2 ** 26 / CHARACTERS_PER_TOKEN, // CLI --max-tree-size default 2^26 characters per worker
  onMiss: "smallestTree", // cache_aware.rs: get_smallest_tenant() on a miss
};

const OPTION_NAMES = Object.keys(SGLANG_ROUTER_DEFAULTS);

export function sglangRouterOptions(o: Record<string, unknown> = {}): SglangRouterOptions {
  checkKnownKeys("路由器 sglangRouter ", o, OPTION_NAMES);
  const d = SGLANG_ROUTER_DEFAULTS;
  return {
    cacheThreshold: checkNumber("cacheThreshold", o.cacheThreshold ?? d.cacheThreshold, { min: 0, max: 1 }),
    balanceAbs: checkInteger("balanceAbs", o.balanceAbs ?? d.balanceAbs, { min: 0 }),
    balanceRel: checkNumber("balanceRel", o.balanceRel ?? d.balanceRel, { min: 1 }),
    evictionInterval: checkNumber("evictionInterval", o.evictionInterval ?? d.evictionInterval, { above: 0 }),
    maxTreeTokens: checkNumber("maxTreeTokens", o.maxTreeTokens ?? d.maxTreeTokens, { min: 0 }),
    onMiss: checkOneOf("onMiss", o.onMiss ?? d.onMiss, ["smallestTree", "leastLoad"] as const),
  };
}

/** The released code returns "the first tenant" of the deepest matched node: the first key of a hash map, an
 * arbitrary but fixed order per node. We reproduce "arbitrary but fixed" with a hash of (segment, worker). */
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
    this.options = sglangRouterOptions(o);
    this.name = name;
    this.tree = new TenantTree(replicas);
    this.nextEviction = this.options.evictionInterval;
  }

  /** The imbalance rule (cache_aware.rs): both the absolute and the relative gap must be exceeded. */
  static isImbalanced(max: number, min: number, abs: number, rel: number): boolean {
    return max - min > abs && max > min * rel;
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
    let minWorker = 0;
    let sum = 0;
    for (let w = 0; w < this.replicas; w++) {
      const n = view.outstandingRequests(w);
      sum += n;
      if (n > max) max = n;
      if (n < min) {
        min = n;
        minWorker = w; // min_by_key: the first of the least loaded
      }
    }
    if (SglangRouter.isImbalanced(max, min, o.balanceAbs, o.balanceRel)) {
      // imbalanced → shortest queue; the tree is still updated with the request
      this.tree.insert(request.segments, minWorker, now);
      return this.decide("imbalanced", 0, 0, minWorker);
    }
    const { node, tokens } = this.tree.match(request.segments);
    const matchRate = tokens / request.promptTokens;
    const matchedWorker = this.firstTenant(node);
    // prefix_match refreshes the returned tenant's access times along the matched path
    if (matchedWorker >= 0) this.tree.touch(node, matchedWorker, now);
    let worker: number;
    let kind: SglangDecision;
    if (matchedWorker >= 0 && matchRate > o.cacheThreshold) {
      worker = matchedWorker; // match rate > cache_threshold → the worker with the highest match
      kind = "hit";
      // Diagnostics only (never used to decide): the worker's real cache plus what is already on its way there.
      if (view.viewMatch(request, worker) < 0.5 * tokens) this.staleHits++;
    } else {
      kind = "miss";
      worker = o.onMiss === "leastLoad" ? minWorker : this.smallestTree(); // else smallest tree (or least load, newer)
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
    this.lastDecision = { kind, matchRate, matched, worker };
    return worker;
  }

  /** The tenant the released code would return for the node (−1 at the root). */
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
  "SGLang router, cache_aware (CLI defaults): approximate tree of routed prompts; if max − min in-flight > 64 and max > 1.5 × min → fewest in-flight; else match rate > 0.3 → the matched worker, else the smallest tree",
  (ctx: RouterContext, o) => new SglangRouter(ctx.replicas, o),
);

registerRouter(
  "sglangRouterLeastLoad",
  "SGLang router as in newer releases: like sglangRouter, but a miss goes to the worker with the fewest in-flight requests",
  (ctx: RouterContext, o) => new SglangRouter(ctx.replicas, { onMiss: "leastLoad", ...o }, "sglangRouterLeastLoad"),
);
