// Post-assignment rebalancing and autoscaling (§3.4). Two rebalancing actions: the lecture's (an exploit request
// bound for the busiest GPU is redirected to the lightest) and the released one (gsw:377–462: the busiest GPU's
// important nodes move, cheapest first, to the lightest). Both wait for 50 dispatches per GPU (gsw:378), and a
// redirect also needs the busiest GPU to have more outstanding requests than the lightest: a window load that is only
// history (its requests have finished) is no reason to recompute a cached prefix elsewhere.
import type { ClusterView } from "../routers";
import { GlobalNodeInfo, GlobalTree, GNode } from "./global-tree";
import type { LoadCostModel } from "./load-cost";
import type { PrebleOptions } from "./options";
import type { LoadWindow } from "./window";

/** The lecture's redirect (an object, so that the per-decision call is a plain method call). */
export class Redirect {
  /** rebalancing on, by redirect */
  readonly enabled: boolean;
  constructor(
    private readonly o: PrebleOptions,
    private readonly costs: LoadCostModel,
  ) {
    this.enabled = o.rebalance && o.rebalanceAction === "redirect";
  }

  /** The lightest GPU when `chosen` (exploit's pick) is the busiest by window load, that load is above Th_bal × the
   * lightest's, and the busiest has more requests outstanding; −1 otherwise. */
  target(view: ClusterView, chosen: number, dispatches: number): number {
    if (!this.enabled || dispatches < this.o.rebalanceAfter) return -1;
    const costs = this.costs;
    const R = costs.replicas;
    let busiest = 0;
    let lightest = 0;
    let maxL = -Infinity;
    let minL = Infinity;
    for (let g = 0; g < R; g++) {
      const L = costs.windowLoad(g);
      if (L > maxL) {
        maxL = L;
        busiest = g;
      }
      if (L < minL) {
        minL = L;
        lightest = g;
      }
    }
    if (chosen !== busiest || !(maxL > this.o.thBal * minL) || lightest === busiest) return -1;
    if (view.outstandingRequests(busiest) <= view.outstandingRequests(lightest)) return -1;
    return lightest;
  }
}

export interface Migration {
  time: number;
  /** segment id of the migrated important node */
  segment: number;
  from: number;
  to: number;
  /** its share of L on `from` when it moved (s) */
  load: number;
}

/** The released rebalancing after a dispatch (gsw:377–457): GPUs sorted by load, the busiest against the lightest;
 * while the busiest is at least Th_bal × the lightest, its important nodes seen more than once in the window (with
 * load counted on it: a node only allocated there costs nothing to move in our accounting) move,
 * cheapest first, to the lightest (the node and its subtree allocated there alone, its window load carried along),
 * stopping before a move would make the lightest the heavier; then the next-busiest against the (updated) lightest.
 * A GPU whose load rests on a single such node is left to autoscaling (the released code splits that node only
 * when its TTFT doubled, gsw:419–429). Returns the migrations made. */
export function migrateImportantNodes(o: PrebleOptions, tree: GlobalTree, window: LoadWindow, costs: LoadCostModel, now: number, dispatches: number): Migration[] {
  const moves: Migration[] = [];
  if (!o.rebalance || o.rebalanceAction !== "migrate" || dispatches < o.rebalanceAfter) return moves;
  const R = costs.replicas;
  const loads: Array<[number, number]> = [];
  for (let g = 0; g < R; g++) loads.push([g, costs.windowLoad(g)]);
  loads.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  let list = loads;
  while (list.length > 1) {
    const [larger, largeLoad0] = list[0];
    const [smaller, smallLoad0] = list[list.length - 1];
    let largeLoad = largeLoad0;
    let smallLoad = smallLoad0;
    if (largeLoad < o.thBal * smallLoad || largeLoad <= 0) break;
    const candidates: Array<{ node: GNode; cost: number }> = [];
    for (const node of window.activeImportant) {
      const info = (node.payload as GlobalNodeInfo);
      if ((info.alloc & (1 << larger)) === 0 || (info.released?.count ?? 0) <= 1 || window.nodeSums(info, larger).count === 0) continue;
      candidates.push({ node, cost: costs.nodeLoad(node, larger) });
    }
    if (candidates.length > 1) {
      candidates.sort((a, b) => a.cost - b.cost || (a.node.payload as GlobalNodeInfo).id - (b.node.payload as GlobalNodeInfo).id);
      for (const { node, cost } of candidates) {
        if (largeLoad - cost < smallLoad + cost) break;
        largeLoad -= cost;
        smallLoad += cost;
        tree.reallocateSubtree(node, smaller);
        window.moveImportantNode(node, larger, smaller);
        moves.push({ time: now, segment: node.segment, from: larger, to: smaller, load: cost });
        if (largeLoad < o.thBal * smallLoad) break;
      }
    }
    list[list.length - 1] = [smaller, smallLoad];
    list = list.slice(1);
  }
  return moves;
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

/** Autoscaling: a prefix whose mean queueing in the recent half-window is ≥ factor × the earlier half gets one more
 * GPU (the lightest not holding it); exploit then splits its requests by load cost. */
export function maybeAutoscale(o: PrebleOptions, tree: GlobalTree, costs: LoadCostModel, node: GNode, now: number): AutoscaleEvent | null {
  const info = (node.payload as GlobalNodeInfo);
  const stats = info.autoscale;
  // (no statistics yet: no finished request, so neither half has a sample and nothing scales)
  if (stats === null || now < stats.scaledUntil || stats.recentCount < o.autoscaleMinSamples || stats.earlierCount < o.autoscaleMinSamples) return null;
  const recent = stats.recentSum / stats.recentCount;
  const earlier = stats.earlierSum / stats.earlierCount;
  if (!(recent >= o.autoscaleFactor * earlier && recent >= o.autoscaleMinQueueing)) return null;
  let target = -1;
  let best = Infinity;
  for (let g = 0; g < costs.replicas; g++) {
    if (info.alloc & (1 << g)) continue;
    const L = costs.windowLoad(g);
    if (L < best) {
      best = L;
      target = g;
    }
  }
  stats.scaledUntil = now + o.autoscaleCooldown;
  if (target < 0) return null;
  tree.allocateUpward(node, target);
  return { time: now, segment: node.segment, tokens: node.prefixTokens + node.tokens, gpu: target, recentMeanQueueing: recent, earlierMeanQueueing: earlier };
}
