// A Preble scheduler's state built by hand, without a router (test/preble-load-cost.test.ts,
// test/preble-rebalance.test.ts): the global tree, the window H, the released decode state and the load-cost model,
// wired as PrebleRouter wires them, on a step model whose times are plain token counts — prefilling t new tokens takes
// t seconds, one decode step of one request takes 1 second — so every L, M and P is a hand sum of tokens.
// (Not a test file: vitest only collects *.test.ts.)
import type { StepModel } from "../../lib/hardware/step-model";
import type { ClusterRequest } from "../../lib/cluster/index";
import { GlobalTree, GNode, infoOf } from "../../lib/cluster/preble/global-tree";
import { LoadCostModel } from "../../lib/cluster/preble/load-cost";
import { PrebleOptions, prebleOptions } from "../../lib/cluster/preble/options";
import { LoadWindow, OutstandingDecode } from "../../lib/cluster/preble/window";

/** mixedSeconds(prefillTokens, attention, cached, decodeRequests, …) = prefillTokens + decodeRequests (+ overhead) */
export function tokenStep(overhead = 0, calls: { n: number } = { n: 0 }, scale = 1): StepModel {
  return {
    mixedSeconds: (prefillTokens: number, _attention: number, _cached: number, decodeRequests: number) => {
      calls.n++;
      return scale * (overhead + prefillTokens + decodeRequests);
    },
  } as unknown as StepModel;
}

export interface World {
  o: PrebleOptions;
  tree: GlobalTree;
  window: LoadWindow;
  decode: OutstandingDecode | null;
  costs: LoadCostModel;
  /** dispatches `request` to g at `now` as PrebleRouter.onDispatch does; returns the dispatch count */
  put(request: ClusterRequest, g: number, now?: number): number;
  /** the request finished on g (its nodes idle there again) */
  finish(request: ClusterRequest, g: number, now: number): void;
  /** a new decision for `request` at `now` (expire, analyse, forget the previous prefill estimates) */
  look(request: ClusterRequest, now?: number): void;
  /** the node of the global tree at the end of these segment ids */
  node(...ids: number[]): GNode;
}

/** R GPUs, the options given (rebalancing, autoscaling and pairing off unless given; KV capacity 1,000,000 tokens);
 * the window always keeps per-node sums (the released rebalancing's state). */
export function world(R: number, options: Record<string, unknown> = {}, step: StepModel = tokenStep()): World {
  const o = prebleOptions(R, 1_000_000, { rebalance: false, autoscale: false, pairing: false, rebalanceAfter: 0, ...options });
  const tree = new GlobalTree(R, true);
  const window = new LoadWindow(R, o.windowSeconds, o.defaultOutputTokens, true, o.evictionEstimate === "memoryFull");
  const decode = o.decodeEstimate === "released" ? new OutstandingDecode(R, o.initialTpotSeconds, o.tpotSamples) : null;
  if (decode !== null) tree.onImportantAlloc = (info, g, added) => decode.onAlloc(info, g, added);
  const costs = new LoadCostModel(R, step, o, tree, window, decode);
  let dispatches = 0;
  const look = (request: ClusterRequest, now = 0) => {
    window.expire(now);
    tree.analyze(request, now);
    costs.reset();
  };
  return {
    o,
    tree,
    window,
    decode,
    costs,
    look,
    put(request, g, now = 0) {
      look(request, now);
      const prefill = costs.prefillOn(g, request);
      const tpot = costs.singleDecodeNanoseconds(request.promptTokens);
      const hit = tree.matchCached;
      tree.markDispatched(g, request); // as the router does: the leaf is kept for markFinished
      window.add(now, g, prefill, tpot, tree.leaf, hit, request.promptTokens);
      if (decode !== null) decode.onDispatch(infoOf(infoOf(tree.leaf).important), g, request.outputTokens);
      return ++dispatches;
    },
    finish(request, g, now) {
      tree.markFinished(request, g, now);
    },
    node(...ids) {
      const n = tree.tree.find(ids);
      if (n === null) throw new Error(`no node ${ids.join("/")}`);
      return n;
    },
  };
}
