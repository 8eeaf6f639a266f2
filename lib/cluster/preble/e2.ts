// E2 (paper Alg. 1, §3.2): exploit when the cluster-wide cached prefix is longer than the missed part (strict), among
// the GPUs holding the deepest match, by lowest load cost (ties → lowest GPU id — the released code returns the
// position in the candidate list, gsw:300, a bug when candidates are a subset); else explore: pairing first, then
// the lowest load cost over every GPU. The lecture's redirect may then send an exploit request elsewhere.
import type { ClusterView } from "../routers";
import type { ClusterRequest } from "../workloads";
import type { GlobalTree } from "./global-tree";
import type { LoadCostModel } from "./load-cost";
import type { PrebleOptions } from "./options";
import { AdmissionHitWindow, isDecodeHeavy } from "./pairing";
import type { Redirect } from "./rebalance";

/** Decision kinds, in the order of DECISION_KINDS. */
export const DECISION_KINDS = ["exploit", "explore", "rebalance", "pairing"] as const;
export type DecisionKind = (typeof DECISION_KINDS)[number];
export const EXPLOIT = 0;
export const EXPLORE = 1;
export const REBALANCE = 2;
export const PAIRING = 3;

/** One decision (reused: no allocation per request). */
export interface Decision {
  gpu: number;
  kind: number;
  /** explore only: the GPU the lowest L alone, and the fewest requests in the window, would have chosen */
  byL: number;
  byCount: number;
}

/** The E2 decision over the router's parts (an object: the router calls decide() once per request). */
export class E2 {
  constructor(
    private readonly options: PrebleOptions,
    private readonly tree: GlobalTree,
    private readonly costs: LoadCostModel,
    /** per GPU: requests dispatched within the window */
    private readonly windowRequests: Int32Array,
    /** the released pairing rule's hit ratios (null under our rule) */
    private readonly hits: AdmissionHitWindow | null,
    private readonly redirect: Redirect,
  ) {}

  /** Decides `request` (already analysed by the tree) into `out`. */
  decide(request: ClusterRequest, view: ClusterView, dispatches: number, out: Decision): void {
    const o = this.options;
    const costs = this.costs;
    const R = costs.replicas;
    const cached = this.tree.matchCached;
    const mask = this.tree.matchMask;
    const missed = request.promptTokens - cached;
    out.byL = -1;
    out.byCount = -1;
    if (cached > missed) {
      let chosen = -1;
      let best = Infinity;
      for (let g = 0; g < R; g++) {
        if ((mask & (1 << g)) === 0) continue;
        const c = costs.cost(g, request);
        if (c < best) {
          best = c;
          chosen = g;
        }
      }
      const redirect = this.redirect.target(view, chosen, dispatches);
      if (redirect >= 0) {
        costs.cost(redirect, request);
        out.gpu = redirect;
        out.kind = REBALANCE;
      } else {
        out.gpu = chosen;
        out.kind = EXPLOIT;
      }
      return;
    }
    // Explore. The released rule pairs before any cost is compared (gsw:329–330).
    const hits = this.hits;
    if (o.pairing && hits !== null) {
      const target = hits.target(view.now, o.pairingHitRatio);
      if (target >= 0) {
        costs.cost(target, request);
        out.gpu = target;
        out.kind = PAIRING;
        return;
      }
    }
    // Ours: a prefill-heavy request goes to the decode-heavy GPU of lowest load cost; else the lowest over all.
    let chosen = -1;
    let best = Infinity;
    let bestPair = -1;
    let pairCost = Infinity;
    const pairing = o.pairing && hits === null && missed >= o.pairingPrefillTokens;
    for (let g = 0; g < R; g++) {
      const c = costs.cost(g, request);
      if (c < best) {
        best = c;
        chosen = g;
      }
      if (pairing && c < pairCost && isDecodeHeavy(view, g, o.decodeHeavyPendingTokens)) {
        bestPair = g;
        pairCost = c;
      }
    }
    out.gpu = bestPair >= 0 ? bestPair : chosen;
    out.kind = bestPair >= 0 ? PAIRING : EXPLORE;
    // What a simpler rule would have chosen (pitfall 5).
    let byL = 0;
    let byCount = 0;
    for (let g = 1; g < R; g++) {
      if (costs.L[g] < costs.L[byL]) byL = g;
      if (this.windowRequests[g] < this.windowRequests[byCount]) byCount = g;
    }
    out.byL = byL;
    out.byCount = byCount;
  }
}
