// Routers (§1.2, §2.2–§2.5): one interface `route(request, view) → replica index`, a registry by name.
// Load-only: random, roundRobin, leastLoad (fewest outstanding tokens), powerOfTwo.
// Cache-aware: prefixAffinity (always the longest match: it collapses), thresholdAffinity(θ),
// cacheAwareGuarded (SGLang-like: a load guard in front of thresholdAffinity).
import { checkInteger, checkNumber, checkOneOf, checkKnownKeys } from "../core/errors";
import type { Rng } from "../core/rng";
import type { StepModel } from "../hardware/step-model";
import type { RequestRecord } from "./record";
import type { ClusterRequest } from "./workloads";

/** What a router may know about the cluster at decision time (§3.1 "the router's view"). */
export interface ClusterView {
  readonly replicaCount: number;
  /** simulated time (s) */
  readonly now: number;
  /** KV capacity of one replica (tokens) */
  readonly kvCapacity: number;
  /** the cost model every replica runs on (Preble prices load with it) */
  readonly step: StepModel;
  /** requests dispatched to the replica and not finished */
  outstandingRequests(replica: number): number;
  /** prompt tokens of those requests */
  outstandingTokens(replica: number): number;
  /** requests ever dispatched to the replica */
  dispatchedCount(replica: number): number;
  /** Tokens of the request's prompt matched on the replica by segments cached there OR already dispatched
   * there and not finished (the router's view, like Preble's global tree; maintained from dispatches and the
   * replica's cache, without delay). */
  viewMatch(request: ClusterRequest, replica: number): number;
  /** Tokens of the prompt in the replica's true cache now (for routers allowed it, like Dynamo's KV events). */
  cachedMatch(request: ClusterRequest, replica: number): number;
  /** requests waiting in the replica's queue (not yet admitted) */
  queueLength(replica: number): number;
  /** prefill tokens still to compute on the replica (running prefills + its queue) */
  pendingPrefillTokens(replica: number): number;
  /** KV (tokens) the replica's running requests hold or reserved */
  activeKvTokens(replica: number): number;
  /** activeKvTokens / capacity, in [0, 1] */
  kvUtilization(replica: number): number;
  /** every dispatch so far, in order (records fill in as requests progress) */
  readonly history: readonly RequestRecord[];
}

/** An eviction in a replica's cache, delivered to the router after `notificationDelay` seconds. */
export interface EvictionNotice {
  replica: number;
  /** when the replica evicted (s); delivery is later by the configured delay */
  time: number;
  /** segment ids root → evicted node */
  path: number[];
  /** tokens of the node's segment */
  segmentTokens: number;
  /** tokens of it still held after this eviction (0 when removed) */
  heldTokens: number;
  evictedTokens: number;
  removed: boolean;
}

/** A prompt or output entering a replica's cache (Dynamo's "KV stored" event), delayed like evictions. */
export interface StoreNotice {
  replica: number;
  time: number;
  /** segment ids root → last stored segment */
  path: number[];
  addedTokens: number;
}

export interface Router {
  readonly name: string;
  /** The replica (0 … replicaCount−1) for this request. */
  route(request: ClusterRequest, view: ClusterView): number;
  /** After the dispatch is recorded (the view already includes it). */
  onDispatch?(record: RequestRecord, view: ClusterView): void;
  /** When the request's last token is out. */
  onFinish?(record: RequestRecord, view: ClusterView): void;
  /** Eviction notices (Preble's asynchronous notices; the SGLang router has none). */
  onEvict?(notice: EvictionNotice, view: ClusterView): void;
  /** Cache-store notices (Dynamo's KV events). */
  onStore?(notice: StoreNotice, view: ClusterView): void;
  /** Per-decision statistics the router recorded (returned with the run). */
  stats?(): Record<string, unknown>;
  /** The simulator is done with this router: it made it from a registered name for a sweep that keeps only a
   * summary of the run, after stats(). The router may give its memory to the thread's pools; it is not used again. */
  release?(): void;
}

export interface RouterContext {
  replicas: number;
  /** a stream for the router's own randomness (forked from the run's seed) */
  rng: Rng;
  step: StepModel;
  kvCapacity: number;
}

export type RouterFactory = (context: RouterContext, options: Record<string, unknown>) => Router;

interface RouterEntry {
  factory: RouterFactory;
  description: string;
}

const registry = new Map<string, RouterEntry>();
/** grows with every registration: a memo of runs keyed by router names includes it (a name registered again runs anew) */
let registrations = 0;

/** Adds a router to the registry (the Preble and production-router issues register theirs here). */
export function registerRouter(name: string, description: string, factory: RouterFactory): void {
  registry.set(name, { factory, description });
  registrations++;
}

/** How many times a router has been registered so far (session memos put it in their keys). */
export function routerRegistrations(): number {
  return registrations;
}

export function routerNames(): string[] {
  return [...registry.keys()];
}

export function routerDescription(name: string): string {
  return (registry.get(checkOneOf("router", name, routerNames())) as RouterEntry).description;
}

/** A router by name (options merged in), as `{ name, ...options }`, a factory, or a ready instance. */
export type RouterSpec = string | ({ name: string } & Record<string, unknown>) | RouterFactory | Router;

/** A router given by its registered name (with options or not), not as code: plain data, which can cross threads. */
export function isNamedRouter(spec: RouterSpec | undefined): boolean {
  return typeof spec !== "function" && !(typeof spec === "object" && spec !== null && "route" in spec);
}

export function createRouter(spec: RouterSpec, context: RouterContext, options: Record<string, unknown> = {}): Router {
  if (typeof spec === "function") return spec(context, options);
  if (typeof spec === "string") return (registry.get(checkOneOf("router", spec, routerNames())) as RouterEntry).factory(context, options);
  if ("route" in spec && typeof spec.route === "function") return spec as Router;
  const { name, ...rest } = spec as { name: string } & Record<string, unknown>;
  return (registry.get(checkOneOf("router", name, routerNames())) as RouterEntry).factory(context, { ...rest, ...options });
}

// ---- helpers shared by the routers (and reusable by later ones) ----

/** Replica with the fewest outstanding tokens; ties → fewer requests → lowest index. */
export function leastLoaded(view: ClusterView): number {
  let best = 0;
  for (let i = 1; i < view.replicaCount; i++) {
    const a = view.outstandingTokens(i);
    const b = view.outstandingTokens(best);
    if (a < b || (a === b && view.outstandingRequests(i) < view.outstandingRequests(best))) best = i;
  }
  return best;
}

/** Replica with the fewest outstanding requests; ties → fewer tokens → lowest index. */
export function fewestRequests(view: ClusterView): number {
  let best = 0;
  for (let i = 1; i < view.replicaCount; i++) {
    const a = view.outstandingRequests(i);
    const b = view.outstandingRequests(best);
    if (a < b || (a === b && view.outstandingTokens(i) < view.outstandingTokens(best))) best = i;
  }
  return best;
}

/** How to choose among replicas with equally long matches. */
export type TieBreak = "lowestIndex" | "leastLoad";

/** Longest view match: the replica and its matched tokens. Ties → lowest index (a plain argmax, as Preble's
 * released scheduler breaks them: what lets a shared system prompt or a hot prefix pull all traffic to one
 * replica) or → the least loaded of the tied replicas (fewest outstanding tokens, then requests, then index). */
export function longestMatch(request: ClusterRequest, view: ClusterView, ties: TieBreak = "lowestIndex"): { replica: number; tokens: number } {
  let best = 0;
  let bestTokens = -1;
  for (let i = 0; i < view.replicaCount; i++) {
    const m = view.viewMatch(request, i);
    if (m > bestTokens) {
      best = i;
      bestTokens = m;
    } else if (m === bestTokens && ties === "leastLoad") {
      const a = view.outstandingTokens(i);
      const b = view.outstandingTokens(best);
      if (a < b || (a === b && view.outstandingRequests(i) < view.outstandingRequests(best))) best = i;
    }
  }
  return { replica: best, tokens: bestTokens };
}

/** Counter of decision kinds, for stats(). */
class DecisionCounter {
  readonly counts: Record<string, number> = {};
  add(kind: string): void {
    this.counts[kind] = (this.counts[kind] ?? 0) + 1;
  }
}

function threshold(options: Record<string, unknown>, fallback: number): number {
  const t = options.threshold ?? fallback;
  return checkNumber("threshold", t, { min: 0, max: 1 });
}

function checkNoUnknown(router: string, options: Record<string, unknown>, allowed: string[]): void {
  checkKnownKeys(`路由器 ${router} `, options, allowed);
}

registerRouter("random", "uniformly random replica", (ctx, o) => {
  checkNoUnknown("random", o, []);
  return { name: "random", route: () => ctx.rng.int(ctx.replicas) };
});

registerRouter("roundRobin", "replicas in turn", (ctx, o) => {
  checkNoUnknown("roundRobin", o, []);
  let next = 0;
  return {
    name: "roundRobin",
    route: () => {
      const r = next;
      next = (next + 1) % ctx.replicas;
      return r;
    },
  };
});

registerRouter("leastLoad", "fewest outstanding tokens", (_ctx, o) => {
  checkNoUnknown("leastLoad", o, []);
  return { name: "leastLoad", route: (_req, view) => leastLoaded(view) };
});

registerRouter("powerOfTwo", "two random replicas, the one with fewer outstanding tokens", (ctx, o) => {
  checkNoUnknown("powerOfTwo", o, []);
  return {
    name: "powerOfTwo",
    route: (_req, view) => {
      if (ctx.replicas === 1) return 0;
      const a = ctx.rng.int(ctx.replicas);
      let b = ctx.rng.int(ctx.replicas - 1);
      if (b >= a) b++;
      const ta = view.outstandingTokens(a);
      const tb = view.outstandingTokens(b);
      return ta < tb || (ta === tb && a < b) ? a : b;
    },
  };
});

registerRouter("prefixAffinity", "always the longest view match (ties → lowest index)", (_ctx, o) => {
  checkNoUnknown("prefixAffinity", o, []);
  return { name: "prefixAffinity", route: (req, view) => longestMatch(req, view).replica };
});

/** thresholdAffinity(θ): match / prompt ≥ θ → the longest match, else the least-loaded replica (§2.3). */
export function thresholdAffinityRouter(theta: number, ties: TieBreak = "lowestIndex"): Router {
  checkNumber("threshold", theta, { min: 0, max: 1 });
  const decisions = new DecisionCounter();
  return {
    name: `thresholdAffinity(${theta})`,
    route(req, view) {
      const best = longestMatch(req, view, ties);
      if (best.tokens > 0 && best.tokens >= theta * req.promptTokens) {
        decisions.add("affinity");
        return best.replica;
      }
      decisions.add("load");
      return leastLoaded(view);
    },
    stats: () => ({ ...decisions.counts }),
  };
}

registerRouter("thresholdAffinity", "longest match when it covers ≥ θ of the prompt (default 0.5), else least load", (_ctx, o) => {
  checkNoUnknown("thresholdAffinity", o, ["threshold", "ties"]);
  return thresholdAffinityRouter(threshold(o, 0.5), checkOneOf("ties", o.ties ?? "lowestIndex", ["lowestIndex", "leastLoad"] as const));
});

registerRouter(
  "cacheAwareGuarded",
  "SGLang-like: if max − min outstanding requests > absolute (8) and max > relative (1.5) × min → fewest requests; else thresholdAffinity(θ), ties among equally long matches → the least loaded",
  (_ctx, o) => {
    checkNoUnknown("cacheAwareGuarded", o, ["threshold", "balanceAbs", "balanceRel"]);
    const theta = threshold(o, 0.5);
    const abs = checkInteger("balanceAbs", o.balanceAbs ?? 8, { min: 0 });
    const rel = checkNumber("balanceRel", o.balanceRel ?? 1.5, { min: 1 });
    // Among replicas holding the same prefix it balances (like SGLang's router, it does not stick to one copy):
    // copies made by the guard are then used, which keeps the hit rate up on a hot spot (§2.5).
    const inner = thresholdAffinityRouter(theta, "leastLoad");
    let guarded = 0;
    return {
      name: "cacheAwareGuarded",
      route(req, view) {
        let max = -Infinity;
        let min = Infinity;
        for (let i = 0; i < view.replicaCount; i++) {
          const n = view.outstandingRequests(i);
          if (n > max) max = n;
          if (n < min) min = n;
        }
        if (max - min > abs && max > rel * min) {
          guarded++;
          return fewestRequests(view);
        }
        return inner.route(req, view);
      },
      stats: () => ({ guard: guarded, ...(inner.stats ? inner.stats() : {}) }),
    };
  },
);
