// Preble's load cost L + M + P (paper Alg. 2, §3.3), in the two readings of options.ts: L's decode term (lecture /
// released) and M (free space / memory full). Per-decision work never grows with the window H: L reads the window's
// running sums, and the eviction walk stops once the request's new tokens are covered.
import type { StepModel } from "../../hardware/step-model";
import type { ClusterRequest } from "../workloads";
import { GlobalNodeInfo, GlobalTree, GNode, releasedOf } from "./global-tree";
import type { PrebleOptions } from "./options";
import { LoadWindow, OutstandingDecode } from "./window";

export const NS = 1e9;

/** The terms of one GPU's load cost (seconds). */
export interface LoadCost {
  L: number;
  M: number;
  P: number;
  total: number;
}

export class LoadCostModel {
  /** the terms of the last cost() per GPU (seconds) */
  readonly L: Float64Array;
  readonly M: Float64Array;
  readonly P: Float64Array;
  /** this decision's prefill ns per GPU (−1 until computed) */
  readonly prefillNs: Float64Array;
  private readonly memoryFull: boolean;
  private readonly capacity: number;
  private readonly matchTokens: Float64Array;

  constructor(
    readonly replicas: number,
    private readonly step: StepModel,
    options: PrebleOptions,
    private readonly tree: GlobalTree,
    private readonly window: LoadWindow,
    /** the released decode term's state (null under the lecture's reading) */
    readonly decode: OutstandingDecode | null,
  ) {
    this.L = new Float64Array(replicas);
    this.M = new Float64Array(replicas);
    this.P = new Float64Array(replicas);
    this.prefillNs = new Float64Array(replicas);
    this.memoryFull = options.evictionEstimate === "memoryFull";
    this.capacity = options.capacityTokens;
    this.matchTokens = tree.matchTokens;
  }

  /** A new decision: forget the previous one's prefill estimates. */
  reset(): void {
    this.prefillNs.fill(-1);
  }

  /** Integer nanoseconds to prefill `tokens` new tokens on top of `cached` ones (Preble's T_prefill). */
  prefillNanoseconds(tokens: number, cached: number): number {
    if (tokens <= 0) return 0;
    return Math.round(this.step.mixedSeconds(tokens, tokens * cached + (tokens * (tokens + 1)) / 2, cached, 0, 0, 1) * NS);
  }

  /** Integer nanoseconds of one decode step of a single request with `context` tokens (the lecture's TPOT). */
  singleDecodeNanoseconds(context: number): number {
    return Math.round(this.step.mixedSeconds(0, 0, 0, 1, context, 0) * NS);
  }

  private recompute(info: GlobalNodeInfo, node: GNode): number {
    const known = this.tree.recomputeNs;
    if (known[info.id] < 0) known[info.id] = this.prefillNanoseconds(node.tokens, node.prefixTokens);
    return known[info.id];
  }

  /** Nanoseconds to recompute a node of the global tree on top of its prefix (what evicting it costs, before its
   * hit rate; the page's M reads it). */
  recomputeNanoseconds(node: GNode): number {
    return this.recompute(node.payload as GlobalNodeInfo, node);
  }

  /** This decision's prefill ns of the request on g (its tokens not allocated there). */
  prefillOn(g: number, request: ClusterRequest): number {
    const ns = this.prefillNs[g];
    if (ns >= 0) return ns;
    const m = this.matchTokens[g];
    return (this.prefillNs[g] = this.prefillNanoseconds(request.promptTokens - m, m));
  }

  /** L: the window's work on GPU g, seconds — the prefill of each dispatched request's missed tokens plus the decode
   * term: lecture, the window's requests × mean output × single-request decode per token; released, the requests
   * outstanding on g × their node's last output length × the median TPOT measured on g. */
  windowLoad(g: number): number {
    const w = this.window;
    if (this.decode === null) return (w.prefillNs[g] + w.meanOutputTokens() * w.tpotNs[g]) / NS;
    return w.prefillNs[g] / NS + this.decode.tokens[g] * this.decode.medianTpot(g);
  }

  /** One important node's share of L on g (the released rebalancing prices and moves nodes by it). */
  nodeLoad(node: GNode, g: number): number {
    const info = (node.payload as GlobalNodeInfo);
    const s = this.window.nodeSums(info, g);
    if (this.decode === null) return (s.prefillNs + this.window.meanOutputTokens() * s.tpotNs) / NS;
    const decode = info.alloc & (1 << g) ? info.page[info.base + 4 * this.replicas + g] * releasedOf(info).lastOutputTokens * this.decode.medianTpot(g) : 0;
    return s.prefillNs / NS + decode;
  }

  /** M: seconds of recomputation that placing this request on GPU g would evict. Free space (ours): only the new
   * tokens that do not fit in g's free memory, each idle node in g's LRU order costing its recompute time × its
   * window hit rate (partially for the last). Memory full (released, gsw:280–289): the request's tokens new to the
   * global tree are always evicted, each evicted important node costing miss rate × window count × recompute time. */
  evictionCost(g: number, missedOnG: number): number {
    const full = this.memoryFull;
    let need: number;
    if (full) need = this.tree.leaf.tokens;
    else {
      const free = this.capacity - this.tree.allocatedTokens[g];
      if (missedOnG <= free) return 0;
      need = free > 0 ? missedOnG - free : missedOnG;
    }
    const tree = this.tree;
    const stamp = tree.decisionCounter;
    const total = this.window.requests;
    let freed = 0;
    let cost = 0;
    for (let id = tree.listHead[g]; id >= 0 && freed < need; ) {
      const node = tree.nodes[id];
      const info = (node.payload as GlobalNodeInfo);
      id = tree.nextIdle(info, g);
      if (info.pathStamp === stamp) continue; // this request's own prefix: it would be locked, not evicted
      const take = node.tokens < need - freed ? node.tokens : need - freed;
      freed += take;
      if (full) {
        const st = info.released;
        if (info.important === node && st !== null && st.count > 0) {
          const missRate = 1 - st.hitTokens / st.promptTokens;
          cost += missRate * st.count * (this.recompute(info, node) / NS);
        }
      } else if (total > 0 && info.windowCount > 0) cost += (this.recompute(info, node) / NS) * (take / node.tokens) * (info.windowCount / total);
    }
    return cost;
  }

  /** L + M + P of the request on g (the terms stay in L, M, P). */
  cost(g: number, request: ClusterRequest): number {
    const missed = request.promptTokens - this.matchTokens[g];
    const P = this.prefillOn(g, request) / NS;
    const L = this.windowLoad(g);
    const M = this.evictionCost(g, missed);
    this.L[g] = L;
    this.M[g] = M;
    this.P[g] = P;
    return L + M + P;
  }
}
