// Preble's global scheduler (§3.1–§3.4) as a Router: a global radix tree updated at dispatch, E2 (exploit when
// cached > missed, else explore), load cost L + M + P (paper Alg. 2), post-assignment rebalancing, autoscaling of
// hot prefixes, and prefill/decode pairing. Local scheduling (priority groups) lives in preble-local.ts.
//
// Per-decision work never grows with the window H: window statistics are kept incrementally (added at dispatch,
// expired from a queue), the eviction-cost walk stops once the request's own new tokens are covered, and only
// idle nodes (no outstanding request on that GPU) sit in a GPU's LRU list.
import { checkInteger, checkNumber, ParameterError, checkKnownKeys } from "../core/errors";
import type { StepModel } from "../hardware/step-model";
import { RadixNode, RadixTree } from "./radix-tree";
import type { RequestRecord } from "./record";
import { ClusterView, EvictionNotice, registerRouter, Router, RouterContext } from "./routers";
import type { ClusterRequest } from "./workloads";

/** Decision kinds, in the order of DECISION_KINDS. */
export const DECISION_KINDS = ["exploit", "explore", "rebalance", "pairing"] as const;
export type DecisionKind = (typeof DECISION_KINDS)[number];
const EXPLOIT = 0;
const EXPLORE = 1;
const REBALANCE = 2;
const PAIRING = 3;

export interface PrebleOptions {
  /** H: seconds of history the load cost looks at (Preble: 3 minutes) */
  windowSeconds: number;
  /** post-assignment rebalancing (§3.4) */
  rebalance: boolean;
  /** Th_bal: rebalance when the busiest GPU's L exceeds thBal × the lightest's */
  thBal: number;
  /** dispatches before rebalancing may fire (the released code waits for 50 per GPU) */
  rebalanceAfter: number;
  /** replicate a prefix whose queueing time doubled (the paper's autoscaling; the lecture skipped it) */
  autoscale: boolean;
  /** recent-half mean queueing ≥ factor × earlier-half mean triggers autoscaling (paper: 2) */
  autoscaleFactor: number;
  /** finished requests needed in each half-window before autoscaling may trigger (assumed) */
  autoscaleMinSamples: number;
  /** recent-half mean queueing must also be at least this many seconds (assumed: ignore doubling of tiny waits) */
  autoscaleMinQueueing: number;
  /** seconds before the same prefix may be replicated again (assumed; default H/2) */
  autoscaleCooldown: number;
  /** prefill/decode pairing in explore (§3.4; the released code lacks it) */
  pairing: boolean;
  /** a request is prefill-heavy when it misses at least this many tokens (default 512 = one prefill chunk) */
  pairingPrefillTokens: number;
  /** a GPU is decode-heavy when it runs ≥ 1 request and fewer prefill tokens than this remain on it (running
   * prefills + its queue; default 2,048 = four chunks): its next iterations are mostly decode, compute is idle */
  decodeHeavyPendingTokens: number;
  /** output length assumed before any request has finished (the released code's default, 45) */
  defaultOutputTokens: number;
  /** keep L, M, P and the kind of every decision in stats() (for the notebook's breakdown) */
  recordDecisions: boolean;
  /** KV tokens per GPU the scheduler budgets with (default: the replica's capacity) */
  capacityTokens: number;
}

export const PREBLE_DEFAULTS: Readonly<Omit<PrebleOptions, "rebalanceAfter" | "autoscaleCooldown" | "capacityTokens">> = {
  windowSeconds: 180,
  rebalance: true,
  thBal: 1.5,
  autoscale: true,
  autoscaleFactor: 2,
  autoscaleMinSamples: 5,
  autoscaleMinQueueing: 0.5,
  pairing: true,
  pairingPrefillTokens: 512,
  decodeHeavyPendingTokens: 2048,
  defaultOutputTokens: 45,
  recordDecisions: false,
};

const OPTION_NAMES = [...Object.keys(PREBLE_DEFAULTS), "rebalanceAfter", "autoscaleCooldown", "capacityTokens"];

/** Checks and completes Preble options (unknown names are rejected). */
export function prebleOptions(replicas: number, kvCapacity: number, o: Record<string, unknown> = {}): PrebleOptions {
  checkKnownKeys("路由器 preble ", o, OPTION_NAMES);
  const bool = (name: keyof PrebleOptions, fallback: boolean): boolean => {
    const v = o[name] ?? fallback;
    if (typeof v !== "boolean") throw new ParameterError(name, `应为 true 或 false，实际是 ${JSON.stringify(v)}`);
    return v;
  };
  const d = PREBLE_DEFAULTS;
  const windowSeconds = checkNumber("windowSeconds", o.windowSeconds ?? d.windowSeconds, { above: 0 });
  return {
    windowSeconds,
    rebalance: bool("rebalance", d.rebalance),
    thBal: checkNumber("thBal", o.thBal ?? d.thBal, { min: 1 }),
    rebalanceAfter: checkInteger("rebalanceAfter", o.rebalanceAfter ?? 0, { min: 0 }),
    autoscale: bool("autoscale", d.autoscale),
    autoscaleFactor: checkNumber("autoscaleFactor", o.autoscaleFactor ?? d.autoscaleFactor, { above: 1 }),
    autoscaleMinSamples: checkInteger("autoscaleMinSamples", o.autoscaleMinSamples ?? d.autoscaleMinSamples, { min: 1 }),
    autoscaleMinQueueing: checkNumber("autoscaleMinQueueing", o.autoscaleMinQueueing ?? d.autoscaleMinQueueing, { min: 0 }),
    autoscaleCooldown: checkNumber("autoscaleCooldown", o.autoscaleCooldown ?? windowSeconds / 2, { min: 0 }),
    pairing: bool("pairing", d.pairing),
    pairingPrefillTokens: checkInteger("pairingPrefillTokens", o.pairingPrefillTokens ?? d.pairingPrefillTokens, { min: 1 }),
    decodeHeavyPendingTokens: checkInteger("decodeHeavyPendingTokens", o.decodeHeavyPendingTokens ?? d.decodeHeavyPendingTokens, { min: 1 }),
    defaultOutputTokens: checkNumber("defaultOutputTokens", o.defaultOutputTokens ?? d.defaultOutputTokens, { above: 0 }),
    recordDecisions: bool("recordDecisions", d.recordDecisions),
    capacityTokens: checkInteger("capacityTokens", o.capacityTokens ?? kvCapacity, { min: 1 }),
  };
}

/** Per-node payload of the global tree. */
export class GlobalNodeInfo {
  /** GPUs the node is allocated to (bit g): dispatched there, not known to be evicted */
  alloc = 0;
  /** GPUs whose idle LRU list holds the node (bit g) */
  listed = 0;
  /** per GPU g, in a page shared by 1,024 nodes (no per-node allocation, no copying as the tree grows):
   * page[base + g] outstanding requests through the node, [base + R + g] last finish time of one,
   * [base + 2R + g] / [base + 3R + g] previous / next node id in g's idle LRU list (−1 at the ends) */
  readonly page: Float64Array;
  readonly base: number;
  /** requests dispatched within the window whose prompt passes through this node */
  windowCount = 0;
  /** nanoseconds to recompute this node's tokens on top of its prefix (−1 until needed) */
  recomputeNs = -1;
  // Autoscaling statistics (used on important nodes): queueing seconds of finished requests by half-window.
  recentSum = 0;
  recentCount = 0;
  earlierSum = 0;
  earlierCount = 0;
  /** no autoscaling of this prefix before this time */
  scaledUntil = -Infinity;
  /** decision counter at which this node was last on a routed path (skips it in the eviction walk) */
  pathStamp = -1;
  constructor(
    readonly id: number,
    /** the key portion (§2.1): nearest ancestor-or-self with more tokens than everything before it */
    readonly important: RadixNode<GlobalNodeInfo>,
    page: Float64Array,
    base: number,
  ) {
    this.page = page;
    this.base = base;
  }
}

type GNode = RadixNode<GlobalNodeInfo>;

/** The terms of one GPU's load cost (seconds). */
export interface LoadCost {
  L: number;
  M: number;
  P: number;
  total: number;
}

export interface AutoscaleEvent {
  time: number;
  /** segment id of the replicated prefix (its important node) */
  segment: number;
  /** tokens of that prefix up to and including the node */
  tokens: number;
  gpu: number;
  recentMeanQueueing: number;
  earlierMeanQueueing: number;
}

/** A growable FIFO of numbers (window queues). */
class NumberQueue {
  data: Float64Array = new Float64Array(1024);
  head = 0;
  tail = 0;
  get size(): number {
    return this.tail - this.head;
  }
  push(x: number): void {
    if (this.tail === this.data.length) {
      const live = this.tail - this.head;
      // Compact in place when at most half is live, else grow.
      if (live * 2 <= this.data.length) this.data.copyWithin(0, this.head, this.tail);
      else {
        const next = new Float64Array(this.data.length * 2);
        next.set(this.data.subarray(this.head, this.tail));
        this.data = next;
      }
      this.head = 0;
      this.tail = live;
    }
    this.data[this.tail++] = x;
  }
  at(i: number): number {
    return this.data[this.head + i];
  }
}

/** A growable FIFO of objects, aligned with NumberQueues by position. */
class ObjectQueue<T> {
  data: Array<T | undefined> = [];
  head = 0;
  push(x: T): void {
    this.data.push(x);
  }
  shift(): T {
    const x = this.data[this.head] as T;
    this.data[this.head++] = undefined;
    if (this.head > 4096 && this.head * 2 > this.data.length) {
      this.data = this.data.slice(this.head);
      this.head = 0;
    }
    return x;
  }
  at(i: number): T {
    return this.data[this.head + i] as T;
  }
}

const NS = 1e9;
/** nodes per page of per-(node, GPU) counters */
const PAGE_NODES = 1024;

export class PrebleRouter implements Router {
  readonly name: string;
  readonly options: PrebleOptions;
  readonly tree: RadixTree<GlobalNodeInfo>;
  private readonly replicas: number;
  private readonly step: StepModel;
  private nodes: GNode[] = [];
  private pages: Float64Array[] = [];
  // Per GPU: idle-node LRU list (head = least recently used), allocated tokens, window sums (integer ns).
  private readonly listHead: Int32Array;
  private readonly listTail: Int32Array;
  readonly allocatedTokens: Float64Array;
  private readonly windowPrefillNs: Float64Array;
  private readonly windowTpotNs: Float64Array;
  readonly windowRequestsPerGpu: Int32Array;
  private windowRequests = 0;
  // The dispatch window: time, GPU, prefill ns, decode-per-token ns, leaf.
  private readonly wTime = new NumberQueue();
  private readonly wGpu = new NumberQueue();
  private readonly wPrefill = new NumberQueue();
  private readonly wTpot = new NumberQueue();
  private readonly wLeaf = new ObjectQueue<GNode>();
  // Output lengths of requests finished within the window.
  private readonly oTime = new NumberQueue();
  private readonly oTokens = new NumberQueue();
  private outputSum = 0;
  // Queueing of finished requests by important node (autoscaling); the first `qEarlier` entries are the earlier
  // half-window, the rest the recent half.
  private readonly qTime = new NumberQueue();
  private readonly qValue = new NumberQueue();
  private readonly qNode = new ObjectQueue<GNode>();
  private qEarlier = 0;
  // Scratch for the current decision.
  private path: GNode[] = [];
  private pathLength = 0;
  private readonly matchTokens: Float64Array;
  private readonly prefillNs: Float64Array;
  private readonly costL: Float64Array;
  private readonly costM: Float64Array;
  private readonly costP: Float64Array;
  private lastRequest: ClusterRequest | null = null;
  private matchCached = 0;
  private matchMask = 0;
  private decisionCounter = 0;
  private dispatches = 0;
  // Statistics.
  private readonly kindCounts = [0, 0, 0, 0];
  private sumL = 0;
  private sumM = 0;
  private sumP = 0;
  private costDecisions = 0;
  private decisionsWithM = 0;
  private exploreSameAsL = 0;
  private exploreSameAsCount = 0;
  private noticesApplied = 0;
  private noticesIgnored = 0;
  readonly autoscaleEvents: AutoscaleEvent[] = [];
  private logKind: number[] = [];
  private logTime: number[] = [];
  private logL: number[] = [];
  private logM: number[] = [];
  private logP: number[] = [];
  private logGpu: number[] = [];

  constructor(context: Pick<RouterContext, "replicas" | "step" | "kvCapacity">, options: Record<string, unknown> = {}, name = "preble") {
    const R = checkInteger("replicas", context.replicas, { min: 1, max: 30 });
    this.replicas = R;
    this.step = context.step;
    this.options = prebleOptions(R, context.kvCapacity, options);
    this.name = name;
    this.tree = new RadixTree<GlobalNodeInfo>({
      evictable: false,
      createPayload: (node) => {
        const id = this.nodes.length;
        this.nodes.push(node);
        const parent = node.parent;
        const important = parent === null || parent.parent === null || node.tokens > node.prefixTokens ? node : (parent.payload as GlobalNodeInfo).important;
        const slot = id & (PAGE_NODES - 1);
        if (slot === 0) {
          const page = new Float64Array(PAGE_NODES * 4 * R);
          for (let i = 0; i < PAGE_NODES; i++) page.fill(-Infinity, i * 4 * R + R, i * 4 * R + 2 * R);
          this.pages.push(page);
        }
        return new GlobalNodeInfo(id, important, this.pages[this.pages.length - 1], slot * 4 * R);
      },
    });
    this.listHead = new Int32Array(R).fill(-1);
    this.listTail = new Int32Array(R).fill(-1);
    this.allocatedTokens = new Float64Array(R);
    this.windowPrefillNs = new Float64Array(R);
    this.windowTpotNs = new Float64Array(R);
    this.windowRequestsPerGpu = new Int32Array(R);
    this.matchTokens = new Float64Array(R);
    this.prefillNs = new Float64Array(R);
    this.costL = new Float64Array(R);
    this.costM = new Float64Array(R);
    this.costP = new Float64Array(R);
  }

  // ---- time and windows ----

  /** Mean output length of requests finished within the window (the default before any finished). */
  meanOutputTokens(): number {
    return this.oTokens.size > 0 ? this.outputSum / this.oTokens.size : this.options.defaultOutputTokens;
  }

  /** Drops what left the window H (and moves autoscaling samples from the recent to the earlier half). */
  private expire(now: number): void {
    const horizon = now - this.options.windowSeconds;
    const w = this.wTime;
    while (w.size > 0 && w.at(0) < horizon) {
      const g = this.wGpu.at(0);
      this.windowPrefillNs[g] -= this.wPrefill.at(0);
      this.windowTpotNs[g] -= this.wTpot.at(0);
      this.windowRequestsPerGpu[g]--;
      this.windowRequests--;
      for (let n: GNode | null = this.wLeaf.shift(); n !== null && n.parent !== null; n = n.parent) (n.payload as GlobalNodeInfo).windowCount--;
      w.head++;
      this.wGpu.head++;
      this.wPrefill.head++;
      this.wTpot.head++;
    }
    while (this.oTime.size > 0 && this.oTime.at(0) < horizon) {
      this.outputSum -= this.oTokens.at(0);
      this.oTime.head++;
      this.oTokens.head++;
    }
    const q = this.qTime;
    const half = now - this.options.windowSeconds / 2;
    while (this.qEarlier < q.size && q.at(this.qEarlier) < half) {
      const info = this.qNode.at(this.qEarlier).payload as GlobalNodeInfo;
      const v = this.qValue.at(this.qEarlier);
      info.recentSum -= v;
      info.recentCount--;
      info.earlierSum += v;
      info.earlierCount++;
      this.qEarlier++;
    }
    while (q.size > 0 && q.at(0) < horizon) {
      const info = this.qNode.shift().payload as GlobalNodeInfo;
      info.earlierSum -= this.qValue.at(0);
      info.earlierCount--;
      q.head++;
      this.qValue.head++;
      this.qEarlier--;
    }
  }

  // ---- the idle-node LRU list of each GPU ----

  private append(node: GNode, g: number): void {
    const info = node.payload as GlobalNodeInfo;
    const bit = 1 << g;
    if (info.listed & bit) return;
    info.listed |= bit;
    const R = this.replicas;
    const t = this.listTail[g];
    info.page[info.base + 2 * R + g] = t;
    info.page[info.base + 3 * R + g] = -1;
    if (t >= 0) {
      const other = this.nodes[t].payload as GlobalNodeInfo;
      other.page[other.base + 3 * R + g] = info.id;
    } else this.listHead[g] = info.id;
    this.listTail[g] = info.id;
  }

  private unlink(info: GlobalNodeInfo, g: number): void {
    const bit = 1 << g;
    if ((info.listed & bit) === 0) return;
    info.listed &= ~bit;
    const R = this.replicas;
    const p = info.page[info.base + 2 * R + g];
    const n = info.page[info.base + 3 * R + g];
    if (p >= 0) {
      const before = this.nodes[p].payload as GlobalNodeInfo;
      before.page[before.base + 3 * R + g] = n;
    } else this.listHead[g] = n;
    if (n >= 0) {
      const after = this.nodes[n].payload as GlobalNodeInfo;
      after.page[after.base + 2 * R + g] = p;
    } else this.listTail[g] = p;
  }

  // ---- costs ----

  /** Integer nanoseconds to prefill `tokens` new tokens on top of `cached` ones (Preble's T_prefill). */
  prefillNanoseconds(tokens: number, cached: number): number {
    if (tokens <= 0) return 0;
    return Math.round(this.step.mixedSeconds(tokens, tokens * cached + (tokens * (tokens + 1)) / 2, cached, 0, 0, 1) * NS);
  }

  private recompute(info: GlobalNodeInfo, node: GNode): number {
    if (info.recomputeNs < 0) info.recomputeNs = this.prefillNanoseconds(node.tokens, node.prefixTokens);
    return info.recomputeNs;
  }

  /** L: the window's work on GPU g, seconds (prefill of each request's missed tokens + its decode estimate). */
  windowLoad(g: number): number {
    return (this.windowPrefillNs[g] + this.meanOutputTokens() * this.windowTpotNs[g]) / NS;
  }

  /** M: seconds of recomputation (× hit rate) that placing `missed` new tokens on GPU g would evict. */
  private evictionCost(g: number, missed: number): number {
    const free = this.options.capacityTokens - this.allocatedTokens[g];
    if (missed <= free) return 0;
    const need = free > 0 ? missed - free : missed;
    const R = this.replicas;
    const stamp = this.decisionCounter;
    const total = this.windowRequests;
    let freed = 0;
    let cost = 0;
    for (let id = this.listHead[g]; id >= 0 && freed < need; ) {
      const node = this.nodes[id];
      const info = node.payload as GlobalNodeInfo;
      id = info.page[info.base + 3 * R + g];
      if (info.pathStamp === stamp) continue; // this request's own prefix: it would be locked, not evicted
      const take = node.tokens < need - freed ? node.tokens : need - freed;
      freed += take;
      if (total > 0 && info.windowCount > 0) cost += (this.recompute(info, node) / NS) * (take / node.tokens) * (info.windowCount / total);
    }
    return cost;
  }

  private cost(g: number, request: ClusterRequest): number {
    const missed = request.promptTokens - this.matchTokens[g];
    if (this.prefillNs[g] < 0) this.prefillNs[g] = this.prefillNanoseconds(missed, this.matchTokens[g]);
    const L = this.windowLoad(g);
    const M = this.evictionCost(g, missed);
    const P = this.prefillNs[g] / NS;
    this.costL[g] = L;
    this.costM[g] = M;
    this.costP[g] = P;
    return L + M + P;
  }

  /** The load cost terms of every GPU for `request` now (for tests and the notebook; does not dispatch). */
  loadCosts(request: ClusterRequest, view: Pick<ClusterView, "now">): LoadCost[] {
    this.analyze(request, view.now);
    const out: LoadCost[] = [];
    for (let g = 0; g < this.replicas; g++) {
      const total = this.cost(g, request);
      out.push({ L: this.costL[g], M: this.costM[g], P: this.costP[g], total });
    }
    return out;
  }

  /** Global-tree match of `request` now: the cluster-wide longest match and the GPUs holding it. */
  globalMatch(request: ClusterRequest, now: number): { cached: number; missed: number; candidates: number[]; perGpu: number[] } {
    this.analyze(request, now);
    const candidates: number[] = [];
    for (let g = 0; g < this.replicas; g++) if (this.matchMask & (1 << g)) candidates.push(g);
    return { cached: this.matchCached, missed: request.promptTokens - this.matchCached, candidates, perGpu: Array.from(this.matchTokens) };
  }

  /** Inserts the prompt into the global tree, collects its path, and computes every GPU's match; the cluster-wide
   * longest match and the GPUs holding it go to matchCached / matchMask. */
  private analyze(request: ClusterRequest, now: number): void {
    this.expire(now);
    this.decisionCounter++;
    const segs = request.segments;
    const leaf = this.tree.insert(segs, segs.length, now);
    const depth = leaf.depth;
    if (this.path.length < depth) this.path.length = depth;
    for (let n: GNode | null = leaf; n !== null && n.parent !== null; n = n.parent) {
      this.path[n.depth - 1] = n;
      (n.payload as GlobalNodeInfo).pathStamp = this.decisionCounter;
    }
    this.pathLength = depth;
    this.matchTokens.fill(0);
    this.prefillNs.fill(-1);
    let cached = 0;
    let mask = 0;
    for (let i = 0; i < depth; i++) {
      const n = this.path[i];
      let a = (n.payload as GlobalNodeInfo).alloc;
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
    this.lastRequest = request;
    this.matchCached = cached;
    this.matchMask = mask;
  }

  /** Prefill/decode pairing (§3.4): GPU g is decode-heavy when it runs at least one request and fewer than
   * `decodeHeavyPendingTokens` prefill tokens remain on it (running prefills + its queue): its next iterations
   * would be mostly decode, memory-bound, leaving compute idle. */
  isDecodeHeavy(view: ClusterView, g: number): boolean {
    const running = view.outstandingRequests(g) - view.queueLength(g);
    return running >= 1 && view.pendingPrefillTokens(g) < this.options.decodeHeavyPendingTokens;
  }

  route(request: ClusterRequest, view: ClusterView): number {
    const o = this.options;
    const R = this.replicas;
    this.analyze(request, view.now);
    const cached = this.matchCached;
    const mask = this.matchMask;
    const missed = request.promptTokens - cached;
    let chosen = -1;
    let kind = EXPLORE;
    if (cached > missed) {
      // Exploit: the GPUs holding the deepest match; lowest load cost, ties → lowest GPU id.
      kind = EXPLOIT;
      let best = Infinity;
      for (let g = 0; g < R; g++) {
        if ((mask & (1 << g)) === 0) continue;
        const c = this.cost(g, request);
        if (c < best) {
          best = c;
          chosen = g;
        }
      }
      if (o.rebalance && this.dispatches >= o.rebalanceAfter) {
        let busiest = 0;
        let lightest = 0;
        let maxL = -Infinity;
        let minL = Infinity;
        for (let g = 0; g < R; g++) {
          const L = this.windowLoad(g);
          if (L > maxL) {
            maxL = L;
            busiest = g;
          }
          if (L < minL) {
            minL = L;
            lightest = g;
          }
        }
        if (chosen === busiest && maxL > o.thBal * minL && lightest !== busiest) {
          kind = REBALANCE;
          chosen = lightest;
          this.cost(chosen, request);
        }
      }
    } else {
      // Explore: pairing first (a prefill-heavy request goes to the decode-heavy GPU of lowest load cost), else the
      // lowest load cost over all GPUs.
      let best = Infinity;
      let bestPair = -1;
      let pairCost = Infinity;
      const pairing = o.pairing && missed >= o.pairingPrefillTokens;
      for (let g = 0; g < R; g++) {
        const c = this.cost(g, request);
        if (c < best) {
          best = c;
          chosen = g;
        }
        if (pairing && c < pairCost && this.isDecodeHeavy(view, g)) {
          bestPair = g;
          pairCost = c;
        }
      }
      if (bestPair >= 0) {
        chosen = bestPair;
        kind = PAIRING;
      }
      // What a simpler rule would have chosen (pitfall 5): the lowest L alone, the fewest requests in the window.
      let byL = 0;
      let byCount = 0;
      for (let g = 1; g < R; g++) {
        if (this.costL[g] < this.costL[byL]) byL = g;
        if (this.windowRequestsPerGpu[g] < this.windowRequestsPerGpu[byCount]) byCount = g;
      }
      if (byL === chosen) this.exploreSameAsL++;
      if (byCount === chosen) this.exploreSameAsCount++;
    }
    this.kindCounts[kind]++;
    const L = this.costL[chosen];
    const M = this.costM[chosen];
    const P = this.costP[chosen];
    this.sumL += L;
    this.sumM += M;
    this.sumP += P;
    this.costDecisions++;
    if (M > 0) this.decisionsWithM++;
    if (o.recordDecisions) {
      this.logKind.push(kind);
      this.logTime.push(view.now);
      this.logL.push(L);
      this.logM.push(M);
      this.logP.push(P);
      this.logGpu.push(chosen);
    }
    return chosen;
  }

  onDispatch(record: RequestRecord, view: ClusterView): void {
    const request = record.request;
    if (this.lastRequest !== request) this.analyze(request, view.now);
    this.lastRequest = null;
    const g = record.replica;
    const bit = 1 << g;
    const missed = request.promptTokens - this.matchTokens[g];
    if (this.prefillNs[g] < 0) this.prefillNs[g] = this.prefillNanoseconds(missed, this.matchTokens[g]);
    const tpotNs = Math.round(this.step.mixedSeconds(0, 0, 0, 1, request.promptTokens, 0) * NS);
    // The whole prompt is now "on" g (optimistically cached there), in use until the request finishes.
    for (let i = 0; i < this.pathLength; i++) {
      const n = this.path[i];
      const info = n.payload as GlobalNodeInfo;
      if ((info.alloc & bit) === 0) {
        info.alloc |= bit;
        this.allocatedTokens[g] += n.tokens;
      }
      info.page[info.base + g]++;
      this.unlink(info, g);
      info.windowCount++;
    }
    this.wTime.push(view.now);
    this.wGpu.push(g);
    this.wPrefill.push(this.prefillNs[g]);
    this.wTpot.push(tpotNs);
    this.wLeaf.push(this.path[this.pathLength - 1]);
    this.windowPrefillNs[g] += this.prefillNs[g];
    this.windowTpotNs[g] += tpotNs;
    this.windowRequestsPerGpu[g]++;
    this.windowRequests++;
    this.dispatches++;
  }

  onFinish(record: RequestRecord, view: ClusterView): void {
    const now = view.now;
    this.expire(now);
    const g = record.replica;
    const R = this.replicas;
    const request = record.request;
    const leaf = this.tree.match(request.segments);
    // Idle again: leaf first, so a parent always follows its children in the LRU list.
    for (let n: GNode | null = leaf; n !== null && n.parent !== null; n = n.parent) {
      const info = n.payload as GlobalNodeInfo;
      info.page[info.base + g]--;
      info.page[info.base + R + g] = now;
      if (info.page[info.base + g] === 0 && (info.alloc & (1 << g)) !== 0) this.append(n, g);
    }
    this.oTime.push(now);
    this.oTokens.push(request.outputTokens);
    this.outputSum += request.outputTokens;
    if (!this.options.autoscale) return;
    const important = (leaf.payload as GlobalNodeInfo).important;
    const info = important.payload as GlobalNodeInfo;
    const queueing = record.start - record.dispatch;
    this.qTime.push(now);
    this.qValue.push(queueing);
    this.qNode.push(important);
    info.recentSum += queueing;
    info.recentCount++;
    this.maybeAutoscale(important, now);
  }

  /** Autoscaling: a prefix whose mean queueing in the recent half-window is ≥ factor × the earlier half gets one
   * more GPU (the lightest not holding it); exploit then splits its requests by load cost. */
  private maybeAutoscale(node: GNode, now: number): void {
    const o = this.options;
    const info = node.payload as GlobalNodeInfo;
    if (now < info.scaledUntil || info.recentCount < o.autoscaleMinSamples || info.earlierCount < o.autoscaleMinSamples) return;
    const recent = info.recentSum / info.recentCount;
    const earlier = info.earlierSum / info.earlierCount;
    if (!(recent >= o.autoscaleFactor * earlier && recent >= o.autoscaleMinQueueing)) return;
    let target = -1;
    let best = Infinity;
    for (let g = 0; g < this.replicas; g++) {
      if (info.alloc & (1 << g)) continue;
      const L = this.windowLoad(g);
      if (L < best) {
        best = L;
        target = g;
      }
    }
    info.scaledUntil = now + o.autoscaleCooldown;
    if (target < 0) return;
    const bit = 1 << target;
    for (let n: GNode | null = node; n !== null && n.parent !== null; n = n.parent) {
      const a = n.payload as GlobalNodeInfo;
      if ((a.alloc & bit) === 0) {
        a.alloc |= bit;
        this.allocatedTokens[target] += n.tokens;
      }
    }
    this.autoscaleEvents.push({ time: now, segment: node.segment, tokens: node.prefixTokens + node.tokens, gpu: target, recentMeanQueueing: recent, earlierMeanQueueing: earlier });
  }

  /** An eviction on a GPU: it no longer holds the node. Ignored when stale — a request using the node on that
   * GPU is still outstanding, or finished after the eviction (it recomputed the node there). A partial eviction
   * counts as losing the node (segment granularity). */
  onEvict(notice: EvictionNotice): void {
    const node = this.tree.find(notice.path);
    const g = notice.replica;
    if (node === null || node.parent === null) return;
    const info = node.payload as GlobalNodeInfo;
    const bit = 1 << g;
    if ((info.alloc & bit) === 0) return;
    if (info.page[info.base + g] > 0 || info.page[info.base + this.replicas + g] > notice.time) {
      this.noticesIgnored++;
      return;
    }
    info.alloc &= ~bit;
    this.allocatedTokens[g] -= node.tokens;
    this.unlink(info, g);
    this.noticesApplied++;
  }

  stats(): Record<string, unknown> {
    const n = this.costDecisions;
    const counts: Record<string, number> = {};
    DECISION_KINDS.forEach((k, i) => (counts[k] = this.kindCounts[i]));
    const out: Record<string, unknown> = {
      ...counts,
      autoscale: this.autoscaleEvents.length,
      meanL: n ? this.sumL / n : NaN,
      meanM: n ? this.sumM / n : NaN,
      meanP: n ? this.sumP / n : NaN,
      decisionsWithEviction: this.decisionsWithM,
      exploreSameAsL: this.exploreSameAsL,
      exploreSameAsCount: this.exploreSameAsCount,
      noticesApplied: this.noticesApplied,
      noticesIgnored: this.noticesIgnored,
      globalTreeNodes: this.tree.nodeCount,
      autoscaleEvents: this.autoscaleEvents.slice(),
    };
    if (this.options.recordDecisions) out.decisions = { kind: this.logKind.slice(), time: this.logTime.slice(), gpu: this.logGpu.slice(), L: this.logL.slice(), M: this.logM.slice(), P: this.logP.slice() };
    return out;
  }
}

registerRouter(
  "preble",
  "Preble's global scheduler: E2 over a global radix tree, load cost L + M + P, rebalancing (Th_bal), autoscaling, prefill/decode pairing",
  (ctx, o) => new PrebleRouter(ctx, o),
);
