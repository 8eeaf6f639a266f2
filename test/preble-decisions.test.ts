// Preble's E2 (lib/cluster/preble/e2.ts) and the lecture's redirect (rebalance.ts) decision by decision: what a
// simpler rule would have chosen on an explore (pitfall 5's counters), the redirect's target (GPU 0 included) and
// when it is on. Hand-made dispatches on a router without a simulation.
import { describe, expect, it } from "vitest";
import { ClusterRequest, ClusterView, PrebleRouter, RequestRecord } from "../lib/cluster/index";
import { capacity, request, step } from "./support/preble-hand";

function stubView(replicas: number, outstanding: number[] = new Array(replicas).fill(0)): ClusterView & { now: number } {
  const z = () => 0;
  return { replicaCount: replicas, now: 0, kvCapacity: capacity, step, outstandingRequests: (i: number) => outstanding[i], queueLength: z, pendingPrefillTokens: z } as unknown as ClusterView & { now: number };
}
function router(replicas: number, options: Record<string, unknown> = {}): PrebleRouter {
  return new PrebleRouter({ replicas, step, kvCapacity: capacity }, { rebalance: false, autoscale: false, pairing: false, ...options });
}
function dispatch(r: PrebleRouter, req: ClusterRequest, gpu: number): void {
  const rec = new RequestRecord(req, 0);
  rec.replica = gpu;
  r.onDispatch(rec, stubView(3));
}
let nextSegment = 5000;
const fresh = (tokens: number) => request([{ id: nextSegment++, tokens }]);

describe("E2's explore: what L alone and the fewest dispatched would have chosen", () => {
  it("cold cluster: every rule picks GPU 0 (ties → the lowest id), so both counters count the decision", () => {
    const r = router(3);
    expect(r.route(fresh(100), stubView(3))).toBe(0);
    expect(r.stats()).toMatchObject({ explore: 1, exploreSameAsL: 1, exploreSameAsCount: 1 });
  });

  it("L alone and the count disagree: GPU 1 has three tiny requests (least L), GPU 0 one huge (fewest), GPU 2 two large", () => {
    const r = router(3);
    dispatch(r, fresh(20000), 0);
    for (let i = 0; i < 3; i++) dispatch(r, fresh(10), 1);
    dispatch(r, fresh(12000), 2);
    dispatch(r, fresh(12000), 2);
    expect(r.windowLoad(1)).toBeLessThan(r.windowLoad(0));
    expect(r.windowLoad(1)).toBeLessThan(r.windowLoad(2));
    expect(r.route(fresh(100), stubView(3))).toBe(1);
    expect(r.stats()).toMatchObject({ explore: 1, exploreSameAsL: 1, exploreSameAsCount: 0 });
  });

  it("an exploit decision counts in neither", () => {
    const r = router(2);
    dispatch(r, request([{ id: 9000, tokens: 4000 }, { id: 9001, tokens: 10 }]), 1);
    expect(r.route(request([{ id: 9000, tokens: 4000 }, { id: 9002, tokens: 10 }]), stubView(2))).toBe(1);
    expect(r.stats()).toMatchObject({ exploit: 1, explore: 0, exploreSameAsL: 0, exploreSameAsCount: 0 });
  });
});

describe("the lecture's redirect", () => {
  /** Document D on GPU `doc`, `fillers` filler requests on the other GPU (2 GPUs). */
  function scenario(doc: number, fillers: number, options: Record<string, unknown> = {}) {
    const r = router(2, { rebalance: true, thBal: 1.5, capacityTokens: 100_000, rebalanceAfter: 0, ...options });
    dispatch(r, request([{ id: 9100, tokens: 4000 }, { id: 9101, tokens: 50 }]), doc);
    for (let i = 0; i < fillers; i++) dispatch(r, fresh(300), 1 - doc);
    return { r, q: request([{ id: 9100, tokens: 4000 }, { id: 9102, tokens: 50 }]) };
  }

  it("redirects to GPU 0 when GPU 1 is the busiest holding the prefix", () => {
    const { r, q } = scenario(1, 0);
    expect(r.route(q, stubView(2, [0, 1]))).toBe(0);
    expect(r.stats()).toMatchObject({ rebalance: 1, exploit: 0 });
  });

  it("no redirect when exploit's GPU is not the busiest (the load is elsewhere)", () => {
    const { r, q } = scenario(0, 30);
    expect(r.windowLoad(1)).toBeGreaterThan(1.5 * r.windowLoad(0));
    expect(r.route(q, stubView(2, [0, 5]))).toBe(0);
    expect(r.stats()).toMatchObject({ rebalance: 0, exploit: 1 });
  });

  it("the released action (migrate) never redirects a request", () => {
    const { r, q } = scenario(0, 1, { rebalanceAction: "migrate" });
    expect(r.route(q, stubView(2, [1, 0]))).toBe(0);
    expect(r.stats()).toMatchObject({ rebalance: 0, exploit: 1 });
  });
});

describe("E2's explore: pairing (ours) and the fewest-dispatched counter", () => {
  it("a request missing exactly pairingPrefillTokens (512) pairs with the decode-heavy GPU; one token fewer does not", () => {
    expect(router(2, { pairing: true }).route(fresh(512), stubView(2, [0, 1]))).toBe(1);
    expect(router(2, { pairing: true }).route(fresh(511), stubView(2, [0, 1]))).toBe(0);
  });

  it("two decode-heavy GPUs at equal cost → the lower id", () => {
    expect(router(3, { pairing: true }).route(fresh(600), stubView(3, [0, 1, 1]))).toBe(1);
  });

  it("the decode-heavy GPU may be GPU 0, even when GPU 1 is cheaper", () => {
    const r = router(2, { pairing: true });
    dispatch(r, fresh(2000), 0);
    expect(r.windowLoad(0)).toBeGreaterThan(r.windowLoad(1));
    expect(r.route(fresh(600), stubView(2, [1, 0]))).toBe(0);
  });

  it("the fewest dispatched need not be GPU 0: 2, 1, 2 tiny requests → GPU 1 by L and by count", () => {
    const r = router(3);
    for (const [g, n] of [[0, 2], [1, 1], [2, 2]]) for (let i = 0; i < n; i++) dispatch(r, fresh(10), g);
    expect(r.route(fresh(100), stubView(3))).toBe(1);
    expect(r.stats()).toMatchObject({ explore: 1, exploreSameAsL: 1, exploreSameAsCount: 1 });
  });
});
