// Preble's load cost L + M + P (lib/cluster/preble/load-cost.ts) on hand-built windows and trees, every value a hand
// sum: on the token step model (test/support/preble-world.ts) prefilling t new tokens takes t seconds and one decode
// step of one request 1 second, so a request's L under the lecture's reading is its missed tokens + 45 (the default
// mean output × 1 s).
import { describe, expect, it } from "vitest";
import { infoOf } from "../lib/cluster/preble/global-tree";
import { LoadCostModel } from "../lib/cluster/preble/load-cost";
import { prebleOptions } from "../lib/cluster/preble/options";
import { GlobalTree } from "../lib/cluster/preble/global-tree";
import { LoadWindow } from "../lib/cluster/preble/window";
import { request } from "./support/preble-hand";
import { tokenStep, world } from "./support/preble-world";

const one = (id: number, tokens: number) => request([{ id, tokens }]);
const two = (id: number, tokens: number, suffix: number, suffixTokens = 10, out = 10) => request([{ id, tokens }, { id: suffix, tokens: suffixTokens }], out);

describe("P: the prefill of the tokens g does not hold", () => {
  it("no new tokens cost nothing, even on a step model with a fixed overhead per step", () => {
    const w = world(1, {}, tokenStep(7));
    expect(w.costs.prefillNanoseconds(0, 500)).toBe(0);
    expect(w.costs.prefillNanoseconds(-3, 500)).toBe(0);
    expect(w.costs.prefillNanoseconds(1, 500)).toBe(8e9);
  });

  it("P on g counts only the tokens past g's match, and is computed once per decision", () => {
    const calls = { n: 0 };
    const w = world(2, {}, tokenStep(0, calls));
    w.put(one(1, 300), 0);
    const q = two(1, 300, 2, 40);
    w.look(q);
    calls.n = 0;
    expect(w.costs.prefillOn(0, q)).toBe(40e9);
    expect(w.costs.prefillOn(1, q)).toBe(340e9);
    expect(w.costs.prefillOn(0, q)).toBe(40e9);
    expect(calls.n).toBe(2);
    w.costs.reset();
    expect(w.costs.prefillOn(0, q)).toBe(40e9);
    expect(calls.n).toBe(3);
  });

  it("a zero estimate is remembered too (prefill and a node's recompute time)", () => {
    const calls = { n: 0 };
    const w = world(1, {}, tokenStep(0, calls, 0));
    const q = one(1, 300);
    w.look(q);
    calls.n = 0;
    expect(w.costs.prefillOn(0, q)).toBe(0);
    expect(w.costs.prefillOn(0, q)).toBe(0);
    expect(calls.n).toBe(1);
    const n = w.node(1);
    expect(w.costs.recomputeNanoseconds(n)).toBe(0);
    expect(w.costs.recomputeNanoseconds(n)).toBe(0);
    expect(calls.n).toBe(2);
  });
});

describe("L: the window's work on g", () => {
  it("lecture: Σ prefill of the missed tokens + requests × mean output × single decode", () => {
    const w = world(2);
    w.put(two(1, 300, 2), 0);
    w.put(two(1, 300, 3), 0);
    w.put(one(4, 50), 1);
    expect(w.costs.windowLoad(0)).toBe(310 + 10 + 2 * 45);
    expect(w.costs.windowLoad(1)).toBe(50 + 45);
    w.window.addOutput(1, 5);
    expect(w.costs.windowLoad(0)).toBe(320 + 2 * 5);
    // the lecture's node load: the node's own sums, same formula
    expect(w.costs.nodeLoad(w.node(1), 0)).toBe(320 + 2 * 5);
    expect(w.costs.nodeLoad(w.node(1), 1)).toBe(0);
  });

  it("released: Σ prefill + the outstanding requests' last output length × the median measured TPOT", () => {
    const w = world(3, { decodeEstimate: "released", initialTpotSeconds: 2, tpotSamples: 3 });
    w.put(two(1, 100, 2, 10, 10), 1);
    w.put(two(1, 100, 3, 10, 30), 1);
    w.put(one(4, 50), 0);
    // GPU 1: prefill 110 + 10; 2 outstanding requests of node 1 re-priced at its last output 30; median TPOT 2
    expect(w.costs.windowLoad(1)).toBe(120 + 2 * 30 * 2);
    expect(w.costs.nodeLoad(w.node(1), 1)).toBe(120 + 2 * 30 * 2);
    expect(w.costs.windowLoad(0)).toBe(50 + 10 * 2);
    expect(w.costs.nodeLoad(w.node(1), 0)).toBe(0);
    expect(w.costs.nodeLoad(w.node(4), 0)).toBe(50 + 10 * 2);
    // node 1 not allocated on GPU 2: no decode term there, whatever it has outstanding
    expect(w.costs.nodeLoad(w.node(1), 2)).toBe(0);
  });
});

describe("M, free space (ours): only what does not fit, each idle node × its window hit rate", () => {
  /** GPU 0 holds X (300) and Y (400), both finished (LRU order X, Y), both dispatched within the window. */
  function idle(capacityTokens: number) {
    const w = world(1, { capacityTokens });
    const x = one(1, 300);
    const y = one(2, 400);
    w.put(x, 0, 0);
    w.put(y, 0, 0);
    w.finish(x, 0, 1);
    w.finish(y, 0, 1);
    return w;
  }

  it("fits exactly → 0; one token over → 1/300 of X's recompute × X's share of the window", () => {
    const w = idle(1000);
    w.look(one(3, 500), 2);
    expect(w.costs.evictionCost(0, 300)).toBe(0);
    expect(w.costs.evictionCost(0, 301)).toBeCloseTo(300 * (1 / 300) * (1 / 2), 9);
    expect(w.costs.evictionCost(0, 500)).toBeCloseTo(300 * (200 / 300) * (1 / 2), 9);
  });

  it("a need spanning two nodes takes X whole and the rest of Y", () => {
    const w = idle(1000);
    w.look(one(3, 800), 2);
    expect(w.costs.evictionCost(0, 800)).toBeCloseTo(300 * (1 / 2) + 400 * (200 / 400) * (1 / 2), 9);
  });

  it("over capacity already (free < 0): the request's missed tokens, not more", () => {
    const w = idle(500);
    w.look(one(3, 100), 2);
    expect(w.costs.evictionCost(0, 100)).toBeCloseTo(300 * (100 / 300) * (1 / 2), 9);
  });

  it("the request's own prefix is skipped (it would be locked)", () => {
    const w = idle(1000);
    w.look(two(1, 300, 5, 600), 2);
    expect(w.costs.evictionCost(0, 600)).toBeCloseTo(400 * (300 / 400) * (1 / 2), 9);
  });

  it("an empty window costs nothing to evict from (no hit rate), not NaN", () => {
    const w = idle(1000);
    w.look(one(3, 500), 1000);
    expect(w.window.requests).toBe(0);
    expect(w.costs.evictionCost(0, 500)).toBe(0);
  });

  it("L + M + P, each term kept", () => {
    const w = idle(1000);
    const q = one(3, 500);
    w.look(q, 2);
    expect(w.costs.cost(0, q)).toBeCloseTo(300 + 400 + 2 * 45 + 100 + 500, 9);
    expect([w.costs.L[0], w.costs.P[0]]).toEqual([790, 500]);
    expect(w.costs.M[0]).toBeCloseTo(100, 9);
  });
});

describe("M, memory full (released): the request's new tokens always evicted, important nodes at miss rate × count × T", () => {
  /** X (300) with two requests (suffixes 10 each; the second hit X's 300 tokens), finished: LRU x1, x2, X. */
  function full(now = 0) {
    const w = world(1, { evictionEstimate: "memoryFull" });
    const r1 = two(1, 300, 2);
    const r2 = two(1, 300, 3);
    w.put(r1, 0, now);
    w.put(r2, 0, now);
    w.finish(r1, 0, now + 1);
    w.finish(r2, 0, now + 1);
    return w;
  }
  const missRate = 1 - 300 / 620;

  it("the walk stops once the new tokens are freed: suffixes only (not important) → 0", () => {
    const w = full();
    w.look(one(9, 20), 2);
    expect(w.costs.evictionCost(0, 20)).toBe(0);
  });

  it("reaching X: miss rate × its 2 window requests × its recompute time", () => {
    const w = full();
    w.look(one(9, 25), 2);
    expect(w.costs.evictionCost(0, 25)).toBeCloseTo(missRate * 2 * 300, 9);
  });

  it("an important node that is only the prefix of a deeper important node has no statistics: it costs nothing", () => {
    const w = world(1, { evictionEstimate: "memoryFull" });
    const r = request([{ id: 1, tokens: 100 }, { id: 2, tokens: 500 }]); // 1 important (under the root), 2 too (500 > 100)
    w.put(r, 0, 0);
    w.finish(r, 0, 1);
    expect(infoOf(w.node(1)).released).toBeNull();
    w.look(one(9, 600), 2);
    // LRU: 2 (its own request: no hit, miss rate 1 × 1 × 500), then 1 (no statistics)
    expect(w.costs.evictionCost(0, 600)).toBeCloseTo(500, 9);
  });

  it("an important node whose window requests expired costs nothing (not NaN)", () => {
    const w = full(0);
    const q = one(9, 25);
    w.put(q, 0, 150);
    w.finish(q, 0, 151);
    w.look(one(10, 400), 200);
    expect(infoOf(w.node(1)).released?.count).toBe(0);
    // LRU: x1, x2, X (expired: 0), then node 9 (one request in the window, no hit)
    expect(w.costs.evictionCost(0, 400)).toBeCloseTo(1 * 1 * 25, 9);
  });
});

describe("options read by the model", () => {
  it("capacityTokens is the budget of free space", () => {
    const o = prebleOptions(1, 1_000_000, { capacityTokens: 350, autoscale: false, pairing: false });
    const tree = new GlobalTree(1, false);
    const window = new LoadWindow(1, o.windowSeconds, o.defaultOutputTokens);
    const costs = new LoadCostModel(1, tokenStep(), o, tree, window, null);
    const x = one(1, 300);
    tree.analyze(x, 0);
    tree.markDispatched(0);
    window.add(0, 0, 300e9, 1e9, tree.leaf, 0, 300);
    tree.markFinished(x, 0, 1);
    tree.analyze(one(2, 100), 2);
    expect(costs.evictionCost(0, 50)).toBe(0);
    expect(costs.evictionCost(0, 100)).toBeCloseTo(300 * (50 / 300), 9);
  });
});

describe("the global tree's leaf at finish (markFinished walks up from the leaf its dispatch recorded)", () => {
  // Requests sharing prefixes of different depths, dispatched, then finished in another order: the leaf markFinished
  // returns is the node a match from the root ends at, and every node on each path is idle again on its GPU.
  const paths = [[[1, 300], [2, 40]], [[1, 300], [2, 40], [3, 5]], [[1, 300], [4, 7]], [[1, 300]], [[5, 50], [6, 6]]] as const;
  const build = (ids: (r: ReturnType<typeof request>) => ReturnType<typeof request>) => {
    const tree = new GlobalTree(3, false);
    const reqs = paths.map((p) => ids(request(p.map(([id, tokens]) => ({ id, tokens })))));
    reqs.forEach((r, i) => {
      tree.analyze(r, i);
      tree.markDispatched(i % 3, r);
    });
    return { tree, reqs };
  };

  for (const [label, ids] of [
    ["ids the table indexes", (r: ReturnType<typeof request>) => r],
    ["ids it does not (matched again)", (r: ReturnType<typeof request>) => ({ ...r, id: -1 - r.id })],
  ] as const) {
    it(`returns the path's leaf and leaves every node idle again — ${label}`, () => {
      const { tree, reqs } = build(ids);
      for (const i of [3, 1, 4, 0, 2]) {
        const r = reqs[i];
        const leaf = tree.markFinished(r, i % 3, 10 + i);
        expect(leaf).toBe(tree.tree.match(r.segments));
        expect(tree.tree.pathOf(leaf)).toEqual(r.segments.map((s) => s.id));
      }
      for (const r of reqs) {
        for (let n = tree.tree.match(r.segments); n.parent !== null; n = n.parent) {
          const info = infoOf(n);
          for (let g = 0; g < 3; g++) expect(info.page[info.base + g]).toBe(0);
        }
      }
    });
  }

  it("a request dispatched after another one's leaf grew keeps its own leaf", () => {
    const tree = new GlobalTree(2, false);
    const short = request([{ id: 1, tokens: 300 }]);
    const long = request([{ id: 1, tokens: 300 }, { id: 2, tokens: 40 }]);
    tree.analyze(short, 0);
    tree.markDispatched(0, short);
    tree.analyze(long, 1);
    tree.markDispatched(1, long);
    expect(tree.tree.pathOf(tree.markFinished(short, 0, 2))).toEqual([1]);
    expect(tree.tree.pathOf(tree.markFinished(long, 1, 3))).toEqual([1, 2]);
  });
});

describe("recompute times by node id (GlobalTree.recomputeNs, grown past its first 1,024 nodes)", () => {
  it("every node's time is the prefill of its tokens on its prefix, on a new tree and on one of pooled nodes", () => {
    for (let round = 0; round < 2; round++) {
      const o = prebleOptions(1, 1_000_000, { autoscale: false, pairing: false });
      const tree = new GlobalTree(1, false);
      const costs = new LoadCostModel(1, tokenStep(), o, tree, new LoadWindow(1, o.windowSeconds, o.defaultOutputTokens), null);
      // 1,500 requests of two segments under 5 shared roots: 1,505 nodes, ids past 1,024
      for (let i = 0; i < 1500; i++) tree.analyze(request([{ id: 1 + (i % 5), tokens: 100 + (i % 5) }, { id: 100 + i, tokens: 1 + (i % 7) }]), i);
      expect(tree.nodes.length).toBeGreaterThan(1500);
      for (const node of tree.nodes.slice(1)) expect(costs.recomputeNanoseconds(node)).toBe(costs.prefillNanoseconds(node.tokens, node.prefixTokens));
      for (const node of tree.nodes.slice(1)) expect(tree.recomputeNs[infoOf(node).id]).toBe(costs.prefillNanoseconds(node.tokens, node.prefixTokens)); // kept
      tree.release(); // round 1 runs on these nodes
    }
  });
});
