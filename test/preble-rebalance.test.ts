// Preble's rebalancing and autoscaling rules (lib/cluster/preble/rebalance.ts) on hand-made states: the lecture's
// redirect at Th_bal ± ε, its "busiest and more outstanding" conditions and its warm-up; the released migration's
// order, stops and bookkeeping; autoscaling's thresholds and target. Loads are hand sums on the token step model
// (test/support/preble-world.ts): a document of X tokens with two requests (suffixes of 10 tokens) costs
// (X + 10 + 45) + (10 + 45) = X + 110 seconds of L; a single request of X + 10 tokens costs X + 55.
import { describe, expect, it } from "vitest";
import type { ClusterView } from "../lib/cluster/index";
import { autoscaleOf, infoOf } from "../lib/cluster/preble/global-tree";
import { maybeAutoscale, migrateImportantNodes, Redirect } from "../lib/cluster/preble/rebalance";
import { request } from "./support/preble-hand";
import { tokenStep, World, world } from "./support/preble-world";

const two = (id: number, tokens: number, suffix: number) => request([{ id, tokens }, { id: suffix, tokens: 10 }]);
/** a document of id `id` (X tokens) with two requests on g: L = X + 110 */
function doc(w: World, id: number, X: number, g: number): void {
  w.put(two(id, X, id + 1), g);
  w.put(two(id, X, id + 2), g);
}
/** a single request of X + 10 tokens on g: L = X + 55 (never a migration candidate: one request in the window) */
function single(w: World, id: number, X: number, g: number): void {
  w.put(two(id, X, id + 1), g);
}
const view = (outstanding: number[]) => ({ outstandingRequests: (g: number) => outstanding[g] }) as unknown as ClusterView;

describe("the lecture's redirect (Redirect.target)", () => {
  /** window loads (s) set by hand: L_g = prefillNs_g / 1e9 (no decode term: no requests counted). */
  function redirect(loads: number[], options: Record<string, unknown> = {}) {
    const w = world(loads.length, { rebalance: true, thBal: 1.5, ...options });
    loads.forEach((L, g) => (w.window.prefillNs[g] = L * 1e9));
    return new Redirect(w.o, w.costs);
  }

  it("busiest = exploit's GPU, above Th_bal × the lightest, more outstanding → the lightest", () => {
    expect(redirect([3, 1]).target(view([2, 1]), 0, 0)).toBe(1);
    expect(redirect([1, 3]).target(view([1, 2]), 1, 0)).toBe(0);
  });

  it("at Th_bal exactly: no redirect; just above: redirect", () => {
    expect(redirect([1.5, 1]).target(view([2, 1]), 0, 0)).toBe(-1);
    expect(redirect([1.5 + 1e-9, 1]).target(view([2, 1]), 0, 0)).toBe(1);
  });

  it("equal outstanding: no redirect; exploit's GPU not the busiest: none", () => {
    expect(redirect([3, 1]).target(view([1, 1]), 0, 0)).toBe(-1);
    expect(redirect([3, 1, 1]).target(view([5, 0, 0]), 1, 0)).toBe(-1);
  });

  it("two lightest GPUs tie → the lower id", () => {
    expect(redirect([3, 1, 1]).target(view([5, 0, 0]), 0, 0)).toBe(1);
  });

  it("waits rebalanceAfter dispatches", () => {
    const r = redirect([3, 1], { rebalanceAfter: 10 });
    expect(r.target(view([2, 1]), 0, 9)).toBe(-1);
    expect(r.target(view([2, 1]), 0, 10)).toBe(1);
  });

  it("off without rebalancing, and under the released action", () => {
    expect(redirect([3, 1], { rebalance: false }).target(view([2, 1]), 0, 0)).toBe(-1);
    expect(redirect([3, 1], { rebalanceAction: "migrate" }).target(view([2, 1]), 0, 0)).toBe(-1);
  });
});

describe("the released migration (migrateImportantNodes)", () => {
  const migrate = (w: World, dispatches: number, now = 5) => migrateImportantNodes(w.o, w.tree, w.window, w.costs, now, dispatches);
  const moved = (w: World, dispatches: number, now?: number) => migrate(w, dispatches, now).map((m) => [m.segment, m.from, m.to, m.load]);
  const M = (options: Record<string, unknown> = {}) => ({ rebalance: true, rebalanceAction: "migrate", thBal: 1.5, ...options });

  /** GPU `heavy`: C (3110), A (210), B (1110), dispatched in that order; GPU `light`: one request (155). */
  function twoMoves(heavy = 0, light = 1, options: Record<string, unknown> = {}) {
    const w = world(2, M(options));
    doc(w, 300, 3000, heavy);
    doc(w, 100, 100, heavy);
    doc(w, 200, 1000, heavy);
    single(w, 400, 100, light);
    return w;
  }

  it("cheapest first while the busiest stays the heavier: A then B, not C (it would make GPU 1 the heavier)", () => {
    const w = twoMoves();
    expect([w.costs.windowLoad(0), w.costs.windowLoad(1)]).toEqual([4430, 155]);
    expect(moved(w, 7)).toEqual([[100, 0, 1, 210], [200, 0, 1, 1110]]);
    expect([w.costs.windowLoad(0), w.costs.windowLoad(1)]).toEqual([3110, 1475]);
    expect(infoOf(w.node(100)).alloc).toBe(0b10);
    expect(infoOf(w.node(100, 101)).alloc).toBe(0b10);
    expect(infoOf(w.node(300)).alloc).toBe(0b01);
    const m = migrate(twoMoves(), 7, 42)[0];
    expect(m.time).toBe(42);
  });

  it("the busiest is found by load, not by id", () => {
    expect(moved(twoMoves(1, 0), 7)).toEqual([[100, 1, 0, 210], [200, 1, 0, 1110]]);
  });

  it("waits rebalanceAfter dispatches; off without rebalancing or under the lecture's action", () => {
    expect(moved(twoMoves(0, 1, { rebalanceAfter: 7 }), 6)).toEqual([]);
    expect(moved(twoMoves(0, 1, { rebalanceAfter: 7 }), 7)).toHaveLength(2);
    expect(moved(twoMoves(0, 1, { rebalance: false }), 7)).toEqual([]);
    expect(moved(twoMoves(0, 1, { rebalanceAction: "redirect" }), 7)).toEqual([]);
  });

  it("stops before a move that would make the lightest the heavier (A moves; B would leave 1150 < 1475)", () => {
    const w = world(2, M());
    doc(w, 100, 100, 0);
    doc(w, 200, 1000, 0);
    doc(w, 300, 1040, 0);
    single(w, 400, 100, 1);
    expect(moved(w, 7)).toEqual([[100, 0, 1, 210]]);
  });

  it("equal before and after a move is allowed (large − cost = small + cost)", () => {
    const w = world(2, M({ thBal: 1 }));
    doc(w, 100, 100, 0); // 210
    doc(w, 200, 390, 0); // 500
    single(w, 400, 235, 1); // 290: 710 − 210 = 290 + 210
    expect(moved(w, 5)).toEqual([[100, 0, 1, 210]]);
  });

  it("stops once the busiest is below Th_bal × the lightest (A moves; B would still fit)", () => {
    const w = world(2, M());
    doc(w, 100, 100, 0); // 210
    doc(w, 200, 110, 0); // 220
    doc(w, 300, 1370, 0); // 1480
    single(w, 400, 945, 1); // 1000; after A: 1700 < 1.5 × 1210
    expect(moved(w, 7)).toEqual([[100, 0, 1, 210]]);
  });

  it("at Th_bal × the lightest exactly it goes on (after A: 1815 = 1.5 × 1210; B moves)", () => {
    const w = world(2, M());
    doc(w, 100, 100, 0); // 210
    doc(w, 200, 110, 0); // 220
    doc(w, 300, 1485, 0); // 1595
    single(w, 400, 945, 1); // 1000
    expect(moved(w, 7)).toEqual([[100, 0, 1, 210], [200, 0, 1, 220]]);
  });

  it("starts at Th_bal × the lightest exactly, not one second below", () => {
    const at = world(2, M());
    doc(at, 100, 100, 0);
    doc(at, 200, 110, 0);
    doc(at, 300, 960, 0); // 1500 = 1.5 × 1000
    single(at, 400, 945, 1);
    expect(moved(at, 7)).toEqual([[100, 0, 1, 210]]);
    const below = world(2, M());
    doc(below, 100, 100, 0);
    doc(below, 200, 110, 0);
    doc(below, 300, 959, 0); // 1499
    single(below, 400, 945, 1);
    expect(moved(below, 7)).toEqual([]);
  });

  it("an idle cluster (every load 0) migrates nothing", () => {
    const w = world(2, M(), tokenStep(0, { n: 0 }, 0));
    doc(w, 100, 100, 0);
    doc(w, 200, 110, 0);
    expect(moved(w, 4)).toEqual([]);
  });

  it("a node seen once in the window is no candidate", () => {
    const w = world(2, M());
    single(w, 500, 45, 0); // 100, one request
    doc(w, 100, 100, 0); // 210
    doc(w, 200, 1000, 0); // 1110
    single(w, 400, 100, 1); // 155
    expect(moved(w, 6)).toEqual([[100, 0, 1, 210]]);
  });

  it("a GPU with a single candidate is left alone (to autoscaling)", () => {
    const w = world(2, M());
    doc(w, 100, 100, 0); // 210
    single(w, 500, 945, 0); // 1000
    single(w, 400, 100, 1); // 155
    expect(moved(w, 4)).toEqual([]);
  });

  it("a node no longer allocated on the busiest (evicted there) is no candidate", () => {
    const w = twoMoves();
    const a1 = two(100, 90, 101);
    const a2 = two(100, 90, 102);
    w.finish(a1, 0, 1);
    w.finish(a2, 0, 1);
    expect(w.tree.applyEviction({ replica: 0, time: 2, path: [100], segmentTokens: 90, heldTokens: 0, evictedTokens: 90, removed: true })).toBe("applied");
    expect(moved(w, 7)).toEqual([[200, 0, 1, 1110]]);
  });

  it("a node allocated on the busiest without window load there (replicated, its requests elsewhere) is no candidate", () => {
    const w = world(2, M());
    doc(w, 100, 100, 0); // 210
    doc(w, 200, 1000, 0); // 1110
    doc(w, 300, 35, 1); // 145, also allocated on GPU 0 (autoscaling's replication) with no load counted there
    w.tree.allocateUpward(w.node(300), 0);
    expect(moved(w, 6)).toEqual([[100, 0, 1, 210]]);
  });

  it("three GPUs at Th_bal = 1 with no candidates anywhere: every round weighed, nothing moves", () => {
    const w = world(3, M({ thBal: 1 }));
    single(w, 100, 245, 0); // 300
    single(w, 200, 145, 1); // 200
    single(w, 300, 45, 2); // 100
    expect(moved(w, 3)).toEqual([]);
  });

  it("equal costs → the older node (lower id) first", () => {
    const w = world(2, M());
    w.look(two(200, 100, 201)); // node 200 created first, dispatched later
    doc(w, 100, 100, 0); // 210
    doc(w, 200, 100, 0); // 210
    single(w, 500, 945, 0); // 1000
    single(w, 400, 100, 1); // 155
    expect(moved(w, 6)).toEqual([[200, 0, 1, 210], [100, 0, 1, 210]]);
  });

  it("three GPUs: the next-busiest is weighed against the lightest as updated by the first round", () => {
    const w = world(3, M());
    doc(w, 100, 100, 0); // 210
    doc(w, 200, 1000, 0); // 1110
    doc(w, 300, 1040, 0); // 1150: GPU 0 = 2470
    doc(w, 600, 60, 1); // 170
    doc(w, 700, 260, 1); // 370: GPU 1 = 540
    single(w, 400, 100, 2); // 155
    // round 1: A → GPU 2 (365); round 2: 540 < 1.5 × 365 — nothing (against the stale 155, node 600 would move)
    expect(moved(w, 11)).toEqual([[100, 0, 2, 210]]);
    expect([0, 1, 2].map((g) => w.costs.windowLoad(g))).toEqual([2260, 540, 365]);
  });
});

describe("autoscaling (maybeAutoscale)", () => {
  /** Node 1 (the prefix) on GPU 0 (155), GPU 1 and GPU 2 with the given single-request loads. */
  function scaled(load1: number, load2: number, options: Record<string, unknown> = {}) {
    const w = world(3, { autoscale: true, autoscaleMinSamples: 2, autoscaleFactor: 2, autoscaleMinQueueing: 0.5, autoscaleCooldown: 10, ...options });
    single(w, 1, 100, 0);
    single(w, 10, load1 - 55, 1);
    single(w, 20, load2 - 55, 2);
    const node = w.node(1);
    const info = infoOf(node);
    /** earlier / recent half-window: (sum, count) each */
    const stats = (earlierSum: number, earlierCount: number, recentSum: number, recentCount: number) => {
      Object.assign(autoscaleOf(info), { earlierSum, earlierCount, recentSum, recentCount });
    };
    stats(2, 2, 4, 2); // earlier mean 1, recent 2 = factor × earlier, both at the minimum sample count
    return { w, node, info, stats, scale: (now = 100) => maybeAutoscale(w.o, w.tree, w.costs, node, now) };
  }

  it("recent = factor × earlier with the minimum samples → the lightest GPU not holding the prefix", () => {
    const s = scaled(300, 500);
    const e = s.scale();
    expect(e).toEqual({ time: 100, segment: 1, tokens: 100, gpu: 1, recentMeanQueueing: 2, earlierMeanQueueing: 1 });
    expect(s.info.alloc).toBe(0b011);
    expect(s.info.autoscale?.scaledUntil).toBe(110);
  });

  it("skips GPUs holding it; two equally light → the lower id; GPU 0 can be the target", () => {
    expect(scaled(500, 300).scale()?.gpu).toBe(2);
    expect(scaled(300, 300).scale()?.gpu).toBe(1);
    const s = scaled(300, 500);
    s.info.alloc = 0b100;
    expect(s.scale()?.gpu).toBe(0);
  });

  it("every GPU holds it → no event (but the cooldown starts)", () => {
    const s = scaled(300, 500);
    s.info.alloc = 0b111;
    expect(s.scale()).toBeNull();
    expect(s.info.autoscale?.scaledUntil).toBe(110);
  });

  it("below the factor, below the minimum queueing, or one sample short → none", () => {
    const a = scaled(300, 500);
    a.stats(4, 2, 6, 2); // earlier mean 2, recent 3 < 2 × 2
    expect(a.scale()).toBeNull();
    expect(scaled(300, 500, { autoscaleMinQueueing: 2 }).scale()?.gpu).toBe(1);
    expect(scaled(300, 500, { autoscaleMinQueueing: 2.5 }).scale()).toBeNull();
    const b = scaled(300, 500);
    b.stats(1, 1, 4, 2);
    expect(b.scale()).toBeNull();
    const c = scaled(300, 500);
    c.stats(2, 2, 2, 1);
    expect(c.scale()).toBeNull();
  });

  it("the cooldown: none before scaledUntil, again at scaledUntil", () => {
    const s = scaled(300, 500);
    expect(s.scale(100)?.gpu).toBe(1);
    expect(s.scale(109.5)).toBeNull();
    expect(s.scale(110)?.gpu).toBe(2);
  });

  it("the prefix's tokens run to the end of the important node (its prefix included)", () => {
    const w = world(2, { autoscale: true, autoscaleMinSamples: 1, autoscaleMinQueueing: 0 });
    w.put(request([{ id: 1, tokens: 100 }, { id: 2, tokens: 500 }]), 0);
    const node = w.node(1, 2);
    expect(infoOf(node).important).toBe(node);
    Object.assign(autoscaleOf(infoOf(node)), { earlierSum: 1, earlierCount: 1, recentSum: 2, recentCount: 1 });
    expect(maybeAutoscale(w.o, w.tree, w.costs, node, 0)?.tokens).toBe(600);
  });
});
