// Preble (§3): E2 on hand-made cases (the cached = missed boundary, the candidate set, the tie-break mapped to GPU
// ids), the load cost L + M + P against hand computation, rebalancing exactly at Th_bal, autoscaling, pairing,
// eviction notices, window statistics against a brute-force rescan, local policies (priority shares 55 → 10 … 1),
// and conservation / KV capacity under every named configuration.
import { describe, expect, it } from "vitest";
import { ParameterError } from "../lib/core/errors";
import {
  ClusterRequest,
  ClusterView,
  CONFIGURATION_NAMES,
  configurationOptions,
  createRouter,
  EvictionNotice,
  generateWorkload,
  LocalPolicyContext,
  longestPrefixFirst,
  PrebleRouter,
  priorityGroup,
  priorityGroups,
  RequestRecord,
  Router,
  Segment,
  simulateCluster,
  decideUnfinished,
  CLUSTER_CONFIGURATIONS,
  priorityGroupsPerIteration,
  resolveLocalPolicy,
} from "../lib/cluster/index";

import { kvCapacityTokens } from "../lib/hardware/step-model";
import { capacity, prefill, request, step, tpot } from "./support/preble-hand";

/** A view with given per-replica queue state (nothing else is used by Preble). */
function stubView(replicas: number, state: { now?: number; outstanding?: number[]; queued?: number[]; pendingPrefill?: number[] } = {}): ClusterView & { now: number } {
  const z = new Array(replicas).fill(0);
  const out = state.outstanding ?? z;
  const q = state.queued ?? z;
  const pend = state.pendingPrefill ?? z;
  return { replicaCount: replicas, now: state.now ?? 0, kvCapacity: capacity, step, outstandingRequests: (i: number) => out[i], queueLength: (i: number) => q[i], pendingPrefillTokens: (i: number) => pend[i] } as unknown as ClusterView & { now: number };
}

function router(replicas: number, options: Record<string, unknown> = {}): PrebleRouter {
  return new PrebleRouter({ replicas, step, kvCapacity: capacity }, { rebalance: false, autoscale: false, pairing: false, ...options });
}

/** Records a dispatch of `req` to `gpu` at `now` (as the simulator would after route). */
function dispatch(r: PrebleRouter, req: ClusterRequest, gpu: number, now = 0): RequestRecord {
  const rec = new RequestRecord(req, now);
  rec.replica = gpu;
  r.onDispatch(rec, stubView(4, { now }));
  return rec;
}

function finish(r: PrebleRouter, rec: RequestRecord, now: number, queueing = 0): void {
  rec.start = rec.dispatch + queueing;
  rec.finish = now;
  r.onFinish(rec, stubView(4, { now }));
}

describe("E2: exploit vs explore", () => {
  it("exploits exactly when cached > missed (strict): cached = missed explores", () => {
    const r = router(4);
    dispatch(r, request([{ id: 1, tokens: 500 }, { id: 2, tokens: 40 }]), 1);
    const equal = request([{ id: 1, tokens: 500 }, { id: 3, tokens: 500 }]);
    const m = r.globalMatch(equal, 0);
    expect([m.cached, m.missed, m.candidates]).toEqual([500, 500, [1]]);
    // Explore: GPU 1 carries load (L > 0), the others are idle and equal → the lowest id.
    expect(r.route(equal, stubView(4))).toBe(0);
    const oneLess = request([{ id: 1, tokens: 500 }, { id: 4, tokens: 499 }]);
    expect(r.route(oneLess, stubView(4))).toBe(1);
    expect(r.stats()).toMatchObject({ exploit: 1, explore: 1 });
  });

  it("candidates are the GPUs holding the deepest match, not those holding a shorter prefix", () => {
    const r = router(4);
    dispatch(r, request([{ id: 10, tokens: 100 }, { id: 11, tokens: 50 }]), 0); // system prompt only on GPU 0
    dispatch(r, request([{ id: 10, tokens: 100 }, { id: 12, tokens: 3000 }, { id: 13, tokens: 80 }]), 1);
    dispatch(r, request([{ id: 10, tokens: 100 }, { id: 12, tokens: 3000 }, { id: 14, tokens: 80 }]), 3);
    const q = request([{ id: 10, tokens: 100 }, { id: 12, tokens: 3000 }, { id: 15, tokens: 90 }]);
    const m = r.globalMatch(q, 0);
    expect(m.candidates).toEqual([1, 3]);
    expect(m.cached).toBe(3100);
    expect(m.perGpu).toEqual([100, 3100, 0, 3100]);
    expect([1, 3]).toContain(r.route(q, stubView(4)));
  });

  it("ties in load cost go to the lowest GPU id of the candidates (not the position in the candidate list)", () => {
    const r = router(4);
    // The same document with equally long questions on GPUs 3 and 2: identical L, M and P for a third request.
    dispatch(r, request([{ id: 20, tokens: 2000 }, { id: 21, tokens: 100 }]), 3);
    dispatch(r, request([{ id: 20, tokens: 2000 }, { id: 22, tokens: 100 }]), 2);
    const q = request([{ id: 20, tokens: 2000 }, { id: 23, tokens: 100 }]);
    const costs = r.loadCosts(q, { now: 0 });
    expect(costs[2].total).toBe(costs[3].total);
    expect(r.route(q, stubView(4))).toBe(2);
  });

  it("the first request of a cold cluster explores to GPU 0; an unrelated one goes to the idle GPU", () => {
    const r = router(3);
    const a = request([{ id: 30, tokens: 1000 }]);
    expect(r.route(a, stubView(3))).toBe(0);
    dispatch(r, a, 0);
    expect(r.route(request([{ id: 31, tokens: 1000 }]), stubView(3))).toBe(1);
  });
});

describe("load cost L + M + P (Algorithm 2) by hand", () => {
  const A = { id: 40, tokens: 1000 };
  const B = { id: 41, tokens: 800 };
  const q1 = { id: 42, tokens: 200 };
  const q2 = { id: 43, tokens: 100 };
  const q3 = { id: 44, tokens: 300 };

  it("L = window prefill of missed tokens + mean output × single-request decode per token; P = prefill of the missed part", () => {
    const r = router(2, { capacityTokens: 100_000 });
    dispatch(r, request([A, q1]), 0, 0);
    dispatch(r, request([B, q2]), 1, 1);
    const costs = r.loadCosts(request([A, q3]), { now: 2 });
    // No request finished yet: the decode estimate uses the default output length, 45 tokens.
    expect(costs[0].L).toBeCloseTo(prefill(1200, 0) + 45 * tpot(1200), 9);
    expect(costs[1].L).toBeCloseTo(prefill(900, 0) + 45 * tpot(900), 9);
    expect(costs[0].P).toBeCloseTo(prefill(300, 1000), 9);
    expect(costs[1].P).toBeCloseTo(prefill(1300, 0), 9);
    expect(costs[0].M).toBe(0);
    expect(costs[1].M).toBe(0);
    // L dwarfs P: the decode estimate alone is 45 single-request decode steps.
    expect(costs[0].L / costs[0].P).toBeGreaterThan(10);
  });

  it("the mean output length comes from requests finished within the window, and L forgets dispatches older than H", () => {
    const r = router(2, { capacityTokens: 100_000, windowSeconds: 10 });
    const r1 = dispatch(r, request([A, q1], 20), 0, 0);
    dispatch(r, request([B, q2], 60), 1, 1);
    finish(r, r1, 5);
    expect(r.meanOutputTokens()).toBe(20);
    let costs = r.loadCosts(request([A, q3]), { now: 6 });
    expect(costs[1].L).toBeCloseTo(prefill(900, 0) + 20 * tpot(900), 9);
    // At t = 10.5 the dispatch at t = 0 has left the window; the one at t = 1 has not.
    costs = r.loadCosts(request([A, q3]), { now: 10.5 });
    expect(costs[0].L).toBe(0);
    expect(costs[1].L).toBeCloseTo(prefill(900, 0) + 20 * tpot(900), 9);
    // At t = 15.5 the finish at t = 5 has left too: back to the default output length.
    r.loadCosts(request([A, q3]), { now: 15.5 });
    expect(r.meanOutputTokens()).toBe(45);
  });

  it("M walks the GPU's idle nodes in LRU order (children first), prices each by recompute time × window hit rate, partially for the last, and skips the request's own prefix", () => {
    // GPU 1: idle list [q2, B] after its request finishes; capacity 1500, new request misses 1300 → 700 to evict.
    const r = router(2, { capacityTokens: 1500 });
    const r1 = dispatch(r, request([A, q1]), 0, 0);
    const r2 = dispatch(r, request([B, q2]), 1, 1);
    finish(r, r1, 2);
    finish(r, r2, 3);
    const costs = r.loadCosts(request([A, q3]), { now: 4 });
    // Hit rates: each node was used by 1 of the 2 requests in the window.
    expect(costs[1].M).toBeCloseTo(prefill(100, 800) * 1 * 0.5 + prefill(800, 0) * (600 / 800) * 0.5, 9);
    // GPU 0: 1200 allocated, 300 free, missing 300 → nothing to evict.
    expect(costs[0].M).toBe(0);
    // With capacity 1200 GPU 0 must free 300: q1 (200 tokens) goes; A is on the request's own path and is skipped.
    const tight = router(2, { capacityTokens: 1200 });
    finish(tight, dispatch(tight, request([A, q1]), 0, 0), 2);
    finish(tight, dispatch(tight, request([B, q2]), 1, 1), 3);
    expect(tight.loadCosts(request([A, q3]), { now: 4 })[0].M).toBeCloseTo(prefill(200, 1000) * 0.5, 9);
  });

  it("window statistics kept incrementally equal a brute-force rescan of the window (random dispatches and finishes)", () => {
    const H = 20;
    const r = router(3, { capacityTokens: 100_000, windowSeconds: H, recordDecisions: true });
    const log: Array<{ time: number; gpu: number; prefill: number; tpot: number }> = [];
    const finished: Array<{ time: number; tokens: number }> = [];
    const open: RequestRecord[] = [];
    let t = 0;
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let i = 0; i < 400; i++) {
      t += rand() * 0.5;
      const doc = Math.floor(rand() * 6);
      const req = request([{ id: 100 + doc, tokens: 500 + 100 * doc }, { id: 5000 + i, tokens: 20 + Math.floor(rand() * 200) }], 1 + Math.floor(rand() * 80), t);
      const view = stubView(3, { now: t });
      const g = r.route(req, view);
      const rec = new RequestRecord(req, t);
      rec.replica = g;
      r.onDispatch(rec, view);
      const d = (r.stats().decisions as { P: number[] }).P;
      log.push({ time: t, gpu: g, prefill: d[d.length - 1], tpot: tpot(req.promptTokens) });
      open.push(rec);
      if (open.length > 5 && rand() < 0.6) {
        const done = open.splice(Math.floor(rand() * open.length), 1)[0];
        finish(r, done, t);
        finished.push({ time: t, tokens: done.outputTokens });
      }
      const inWindow = finished.filter((f) => f.time >= t - H);
      const meanOut = inWindow.length ? inWindow.reduce((s, f) => s + f.tokens, 0) / inWindow.length : 45;
      expect(r.meanOutputTokens()).toBeCloseTo(meanOut, 9);
      for (let gpu = 0; gpu < 3; gpu++) {
        const mine = log.filter((e) => e.gpu === gpu && e.time >= t - H);
        const brute = mine.reduce((s, e) => s + e.prefill, 0) + meanOut * mine.reduce((s, e) => s + e.tpot, 0);
        expect(r.windowLoad(gpu)).toBeCloseTo(brute, 6);
      }
    }
  });
});

describe("rebalancing", () => {
  /** GPU 0 holds document D; GPU 1 gets filler work. Returns the router and an exploit request for D. Rebalancing may
   * act from the first dispatch here (rebalanceAfter 0); GPU 0 has a request outstanding, GPU 1 none (busy2). */
  const busy2 = stubView(2, { outstanding: [1, 0] });
  function scenario(thBal: number, fillers: number) {
    const r = router(2, { rebalance: true, thBal, capacityTokens: 100_000, rebalanceAfter: 0 });
    dispatch(r, request([{ id: 60, tokens: 4000 }, { id: 61, tokens: 50 }]), 0);
    for (let i = 0; i < fillers; i++) dispatch(r, request([{ id: 70 + i, tokens: 300 }]), 1);
    return { r, q: request([{ id: 60, tokens: 4000 }, { id: 62, tokens: 50 }]) };
  }

  it("fires exactly when the busiest GPU's load exceeds Th_bal × the lightest's (strict) and exploit would pick the busiest", () => {
    const probe = scenario(1.5, 1).r;
    const ratio = probe.windowLoad(0) / probe.windowLoad(1);
    expect(ratio).toBeGreaterThan(1);
    // At Th_bal = the ratio itself the condition is not met; just below it, it is.
    const at = scenario(ratio, 1);
    expect(at.r.route(at.q, busy2)).toBe(0);
    const below = scenario(ratio * (1 - 1e-9), 1);
    expect(below.r.route(below.q, busy2)).toBe(1);
    expect(below.r.stats()).toMatchObject({ rebalance: 1, exploit: 0 });
  });

  it("over many load configurations: rebalanced iff exploit's GPU is the busiest and L_max > Th_bal · L_min", () => {
    for (const thBal of [1.2, 1.5, 2, 3]) {
      for (let fillers = 0; fillers <= 12; fillers++) {
        const { r, q } = scenario(thBal, fillers);
        const L0 = r.windowLoad(0);
        const L1 = r.windowLoad(1);
        const busiest = L1 > L0 ? 1 : 0;
        const lightest = L1 < L0 ? 1 : 0;
        const expected = busiest === 0 && lightest === 1 && L0 > thBal * L1 ? 1 : 0;
        expect(r.route(q, busy2), `Th_bal ${thBal}, ${fillers} fillers, L = ${L0}, ${L1}`).toBe(expected);
      }
    }
  });

  it("does not fire before `rebalanceAfter` dispatches (default 50 per GPU, gsw:378), nor when disabled", () => {
    const late = new PrebleRouter({ replicas: 2, step, kvCapacity: capacity }, { rebalance: true, autoscale: false, pairing: false, rebalanceAfter: 5 });
    dispatch(late, request([{ id: 80, tokens: 4000 }]), 0);
    expect(late.route(request([{ id: 80, tokens: 4000 }, { id: 81, tokens: 10 }]), busy2)).toBe(0);
    expect(new PrebleRouter({ replicas: 3, step, kvCapacity: capacity }).options.rebalanceAfter).toBe(150);
    const off = router(2);
    dispatch(off, request([{ id: 80, tokens: 4000 }]), 0);
    expect(off.route(request([{ id: 80, tokens: 4000 }, { id: 81, tokens: 10 }]), busy2)).toBe(0);
  });

  it("does not fire on an idle cluster: past the warm-up, a cached document's GPU with only finished history keeps its request", () => {
    // 3 GPUs; an 8,020-token document was computed on GPU 0; 150 small requests (the warm-up) ran on GPUs 0 and 1
    // and finished. GPU 0's window load is far above GPU 2's (none) — but nothing is outstanding anywhere.
    const r = router(3, { rebalance: true, capacityTokens: 100_000 });
    const D = { id: 140, tokens: 8020 };
    finish(r, dispatch(r, request([D, { id: 141, tokens: 30 }]), 0, 0), 3);
    for (let i = 0; i < 150; i++) finish(r, dispatch(r, request([{ id: 1400 + i, tokens: 200 }]), i % 2, 4 + i * 0.01), 5 + i * 0.01);
    expect(r.windowLoad(0)).toBeGreaterThan(1.5 * r.windowLoad(2));
    const q = request([D, { id: 142, tokens: 30 }]);
    expect(r.route(q, stubView(3, { now: 10 }))).toBe(0);
    expect(r.stats()).toMatchObject({ rebalance: 0, exploit: 1 });
    // The same history with two requests outstanding on GPU 0 and none on GPU 2: the redirect fires.
    expect(r.route(q, stubView(3, { now: 10, outstanding: [2, 0, 0] }))).toBe(2);
    expect(r.stats()).toMatchObject({ rebalance: 1 });
  });

  it("the §3.1 samples: eight simultaneous requests for one problem land on one GPU under full Preble", () => {
    const w = generateWorkload("programming", { rate: 4, seed: 3, requestCount: 8 });
    const samples = w.requests.filter((x) => x.tags?.problem === w.requests[0].tags?.problem);
    expect(samples.length).toBe(8);
    for (const c of ["e2", "e2+rebalance", "preble", "prebleReleased"]) {
      const gpus = decideUnfinished(samples, 4, CLUSTER_CONFIGURATIONS[c].routerOptions).map((d) => d.gpu);
      expect(new Set(gpus).size, c).toBe(1);
    }
    // Before the fix (rebalancing from the first dispatch) full Preble spread them over 4 GPUs.
    expect(new Set(decideUnfinished(samples, 4, { ...CLUSTER_CONFIGURATIONS.preble.routerOptions, rebalanceAfter: 0 }).map((d) => d.gpu)).size).toBe(4);
  });
});

describe("autoscaling, pairing, eviction notices", () => {
  it("replicates a prefix to the lightest GPU not holding it when its queueing in the recent half-window doubles", () => {
    const make = (recentQueueing: number) => {
      const r = router(3, { autoscale: true, windowSeconds: 100, capacityTokens: 100_000 });
      const D = { id: 90, tokens: 3000 };
      dispatch(r, request([{ id: 95, tokens: 100 }]), 1, 0); // GPU 1 carries some load, GPU 2 none
      const recs = Array.from({ length: 20 }, (_, i) => dispatch(r, request([D, { id: 900 + i, tokens: 50 }]), 0, 0));
      // Earlier half: finishes at 0.5 … 9.5 s with 1 s of queueing; recent half: at 60 … 69 s.
      recs.slice(0, 10).forEach((rec, i) => finish(r, rec, 0.5 + i, 1));
      recs.slice(10).forEach((rec, i) => finish(r, rec, 60 + i, recentQueueing));
      return { r, q: request([D, { id: 999, tokens: 50 }]) };
    };
    const { r, q } = make(3);
    const events = r.autoscaleEvents;
    expect(events.length).toBe(1);
    expect(events[0]).toMatchObject({ segment: 90, gpu: 2 });
    // The 5th finish of the recent half (t = 64 s, window [−36, 64]: halves split at 14 s) triggers: 1 s → 3 s.
    expect(events[0].time).toBe(64);
    expect(r.globalMatch(q, 70).candidates).toEqual([0, 2]);
    // Queueing that grows by less than 2× does not trigger.
    expect(make(1.9).r.autoscaleEvents.length).toBe(0);
  });

  it("pairing sends a prefill-heavy explore request to the decode-heavy GPU of lowest load cost; off → the lowest load cost", () => {
    // GPUs 1 and 2 run requests with fewer than 2,048 prefill tokens left (decode-heavy); GPU 0 and 3 have more.
    const view = stubView(4, { outstanding: [3, 4, 6, 2], queued: [1, 0, 0, 0], pendingPrefill: [5000, 1000, 100, 3000] });
    const on = router(4, { pairing: true });
    expect([0, 1, 2, 3].map((g) => on.isDecodeHeavy(view, g))).toEqual([false, true, true, false]);
    expect(on.isDecodeHeavy(stubView(4, { outstanding: [2, 0, 0, 0], queued: [2, 0, 0, 0] }), 0)).toBe(false); // nothing running
    // GPU 2 carries more window load than GPU 1; GPUs 0 and 3 carry none.
    dispatch(on, request([{ id: 119, tokens: 4000 }]), 2);
    const big = request([{ id: 120, tokens: 2000 }]);
    expect(on.route(big, view)).toBe(1);
    expect(on.stats()).toMatchObject({ pairing: 1 });
    // A request missing fewer than 512 tokens is not prefill-heavy: plain explore, the lowest load cost (GPU 0).
    expect(on.route(request([{ id: 121, tokens: 300 }]), view)).toBe(0);
    const off = router(4);
    dispatch(off, request([{ id: 119, tokens: 4000 }]), 2);
    expect(off.route(request([{ id: 122, tokens: 2000 }]), view)).toBe(0);
  });

  it("an eviction notice removes the GPU from the node unless a request using it there is outstanding or finished after the eviction", () => {
    const r = router(2);
    const D = { id: 130, tokens: 3000 };
    const rec = dispatch(r, request([D, { id: 131, tokens: 20 }]), 1, 0);
    const q = request([D, { id: 132, tokens: 20 }]);
    const notice = (time: number): EvictionNotice => ({ replica: 1, time, path: [130], segmentTokens: 3000, heldTokens: 0, evictedTokens: 3000, removed: true });
    r.onEvict(notice(1)); // the request is still outstanding: it will (re)compute D on GPU 1
    expect(r.globalMatch(q, 2).candidates).toEqual([1]);
    finish(r, rec, 5);
    r.onEvict(notice(4)); // evicted before that request finished: stale
    expect(r.globalMatch(q, 6).candidates).toEqual([1]);
    r.onEvict(notice(6));
    expect(r.globalMatch(q, 7).candidates).toEqual([]);
    expect(r.stats()).toMatchObject({ noticesIgnored: 2, noticesApplied: 1 });
    // Now the document is nowhere: explore.
    expect(r.route(q, stubView(2))).toBe(0);
  });

  it("in a run without evictions, the global tree's per-GPU match equals the simulator's view (dispatched or cached)", () => {
    const inner = router(4, { rebalance: true, pairing: true });
    let checked = 0;
    const spy: Router = {
      name: "spy",
      route(req, view) {
        const m = inner.globalMatch(req, view.now).perGpu;
        for (let g = 0; g < 4; g++) expect(m[g]).toBe(view.viewMatch(req, g));
        checked++;
        return inner.route(req, view);
      },
      onDispatch: (rec, view) => inner.onDispatch(rec, view),
      onFinish: (rec, view) => inner.onFinish(rec, view),
      onEvict: (n) => inner.onEvict(n),
    };
    const res = simulateCluster({ workload: "toolCalling", rate: 20, replicas: 4, router: spy, requestCount: 300, seed: 3 });
    expect(res.replicas.every((x) => x.evictedTokens === 0)).toBe(true);
    expect(checked).toBe(300);
  });
});

describe("local policies", () => {
  const ctx = (cached: Map<RequestRecord, number>): LocalPolicyContext => ({ now: 0, replica: 0, cachedTokens: (r) => cached.get(r) ?? 0 });
  let segmentId = 5_000_000;
  const record = (prompt: number) => new RequestRecord(request([{ id: segmentId++, tokens: prompt }]), 0);

  it("priority group = 0 if nothing cached, else ⌈P·ratio⌉ − 1 clipped (the released code's formula)", () => {
    expect(priorityGroup(63, 100, 10)).toBe(6); // the lecture's example
    expect(priorityGroup(0, 100, 10)).toBe(0);
    expect(priorityGroup(1, 100, 10)).toBe(0);
    expect(priorityGroup(70, 100, 10)).toBe(6); // ⌊10·0.7⌋ would say 7: the formulas differ only at multiples of 0.1
    expect(priorityGroup(99, 100, 10)).toBe(9);
    expect(priorityGroup(100, 100, 10)).toBe(9);
  });

  it("55 admissions take 10, 9, …, 1 from groups 10 … 1 (shares ∝ priority), FCFS within each group, and the cycle resumes", () => {
    const policy = priorityGroups();
    const cached = new Map<RequestRecord, number>();
    const waiting: RequestRecord[] = [];
    for (let i = 0; i < 12; i++) {
      for (let g = 0; g < 10; g++) {
        const r = record(100);
        cached.set(r, 10 * g + 5);
        waiting.push(r);
      }
    }
    const c = ctx(cached);
    const order = policy.order(waiting, c) as RequestRecord[];
    const first = order.slice(0, 55);
    const counts = new Array(10).fill(0);
    for (const r of first) counts[priorityGroup(cached.get(r) as number, 100, 10)]++;
    expect(counts.reverse()).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    // FCFS within a group: group 9's ten are its first ten in dispatch order.
    const group9 = waiting.filter((r) => cached.get(r) === 95);
    expect(first.slice(0, 10)).toEqual(group9.slice(0, 10));
    // Admit them one by one (as the engine would): the cycle is back at the top group.
    for (const r of first) policy.onAdmit?.(r, c);
    expect(policy.state()).toEqual({ group: 9, taken: 0 });
    const rest = waiting.filter((r) => !first.includes(r));
    const next = policy.order(rest, c) as RequestRecord[];
    expect(next[0]).toBe(group9[10]);
    // Group 9 has 2 requests left: admitting one leaves the cycle inside its turn, the second ends the turn.
    policy.onAdmit?.(next[0], c);
    expect(policy.state()).toEqual({ group: 9, taken: 1 });
    policy.onAdmit?.(next[1], c);
    expect(policy.state()).toEqual({ group: 8, taken: 0 });
  });

  it("empty groups are skipped and their quota is not carried over", () => {
    const policy = priorityGroups();
    const cached = new Map<RequestRecord, number>();
    const low = Array.from({ length: 5 }, () => record(100));
    low.forEach((r) => cached.set(r, 0));
    const high = Array.from({ length: 30 }, () => record(100));
    high.forEach((r) => cached.set(r, 99));
    const order = policy.order([...low, ...high], ctx(cached)) as RequestRecord[];
    // Turn of group 9: 10 high; group 0: 1 low; then group 9 again…
    expect(order.slice(0, 11)).toEqual([...high.slice(0, 10), low[0]]);
    expect(order.slice(11, 22)).toEqual([...high.slice(10, 20), low[1]]);
  });

  it("longest-prefix-first: most cached first, ties in dispatch order; FCFS beyond 128 waiting (SGLang's cut-off)", () => {
    const policy = longestPrefixFirst();
    const cached = new Map<RequestRecord, number>();
    const rs = [0, 50, 10, 50, 0].map((c) => {
      const r = record(100);
      cached.set(r, c);
      return r;
    });
    expect(policy.order(rs, ctx(cached))).toEqual([rs[1], rs[3], rs[2], rs[0], rs[4]]);
    const many = Array.from({ length: 129 }, (_, i) => {
      const r = record(100);
      cached.set(r, i);
      return r;
    });
    expect(policy.order(many, ctx(cached))).toBeNull();
  });
});

describe("both readings: each option changes what its source line says", () => {
  it("decodeEstimate released (gsw:152–159, 195–197, 368–369): outstanding requests × the node's last output length × the median measured TPOT, seeded 0.15 s", () => {
    const X = { id: 150, tokens: 2000 };
    const Y = { id: 151, tokens: 1500 };
    const r = router(2, { decodeEstimate: "released", capacityTokens: 100_000 });
    const a = dispatch(r, request([X, { id: 152, tokens: 100 }], 40), 0, 0);
    dispatch(r, request([X, { id: 153, tokens: 100 }], 60), 0, 0);
    dispatch(r, request([Y, { id: 154, tokens: 100 }], 10), 1, 0);
    const p0 = prefill(2100, 0) + prefill(100, 2000);
    // Both of X's outstanding requests are priced at the last one's 60 tokens; the TPOT median is the seed 0.15 s.
    expect(r.windowLoad(0)).toBeCloseTo(p0 + 2 * 60 * 0.15, 9);
    expect(r.windowLoad(1)).toBeCloseTo(prefill(1600, 0) + 1 * 10 * 0.15, 9);
    // A finishes with a measured TPOT of 0.05 s: one outstanding request left, the median of {0.15, 0.05} is 0.1.
    a.start = 0;
    a.firstToken = 1;
    a.finish = 1 + 39 * 0.05;
    r.onFinish(a, stubView(2, { now: a.finish }));
    expect(r.windowLoad(0)).toBeCloseTo(p0 + 1 * 60 * 0.1, 9);
    // The lecture's reading for the same dispatches: window requests × mean output × single-request decode.
    const l = router(2, { capacityTokens: 100_000 });
    dispatch(l, request([X, { id: 152, tokens: 100 }], 40), 0, 0);
    dispatch(l, request([X, { id: 153, tokens: 100 }], 60), 0, 0);
    expect(l.windowLoad(0)).toBeCloseTo(p0 + 45 * 2 * tpot(2100), 9);
  });

  it("evictionEstimate memoryFull (gsw:161–167, 280–289): every placement evicts the request's new tokens, each important node costing miss rate × count × T", () => {
    const D = { id: 160, tokens: 3000 };
    const make = (evictionEstimate: string) => {
      const r = router(2, { evictionEstimate, capacityTokens: 100_000 });
      finish(r, dispatch(r, request([D, { id: 161, tokens: 100 }]), 0, 0), 1);
      finish(r, dispatch(r, request([D, { id: 162, tokens: 100 }]), 0, 2), 3);
      return r;
    };
    const q = request([{ id: 163, tokens: 500 }]);
    expect(make("freeSpace").loadCosts(q, { now: 4 })[0].M).toBe(0); // plenty of free memory
    // D's two window requests held 0 and 3,000 of their 3,100 prompt tokens in the global tree: miss rate 1 − 3000/6200.
    // GPU 0's idle list is [q161, q162, D] (leaves first); 500 new tokens evict q161 (100, not important),
    // q162 (100, not important) and D (important).
    const missRate = 1 - 3000 / 6200;
    expect(make("memoryFull").loadCosts(q, { now: 4 })[0].M).toBeCloseTo(missRate * 2 * prefill(3000, 0), 9);
    expect(make("memoryFull").loadCosts(q, { now: 4 })[1].M).toBe(0); // nothing idle on GPU 1
  });

  it("pairingRule released (gsw:329–330, simulator.py:349–364): an explore request goes to the GPU with the highest 30 s hit ratio when it is ≥ 0.7", () => {
    const admit = (r: PrebleRouter, gpu: number, cached: number, at: number) => {
      const rec = dispatch(r, request([{ id: 170 + gpu * 10 + Math.floor(at), tokens: 1000 }]), gpu, at);
      rec.start = at;
      rec.cachedTokens = cached;
      return rec;
    };
    const r = router(3, { pairing: true, pairingRule: "released", capacityTokens: 100_000 });
    admit(r, 1, 800, 1); // GPU 1: hit 0.8, still running
    finish(r, admit(r, 2, 900, 2), 3); // GPU 2: hit 0.9, finished
    const q = request([{ id: 199, tokens: 700 }]);
    expect(r.hitRatio(1, 10)).toBeCloseTo(0.8, 9);
    expect(r.hitRatio(2, 10)).toBeCloseTo(0.9, 9);
    expect(r.route(q, stubView(3, { now: 10 }))).toBe(2);
    expect(r.stats()).toMatchObject({ pairing: 1 });
    // 40 s later both admissions are out of the 30 s window: plain explore (the lowest load cost: GPU 0, no load).
    expect(r.route(request([{ id: 198, tokens: 700 }]), stubView(3, { now: 40 }))).toBe(0);
    // Ours would not pair here (no GPU is decode-heavy in this view).
    const ours = router(3, { pairing: true, capacityTokens: 100_000 });
    admit(ours, 1, 800, 1);
    expect(ours.route(q, stubView(3, { now: 10 }))).toBe(0);
  });

  it("rebalanceAction migrate (gsw:377–462): the busiest GPU's important nodes move, cheapest first, to the lightest until the loads are within Th_bal", () => {
    // Three documents, two requests each, all dispatched to GPU 0 in the order 180, 180, 181, 181, 182, 182; the rule
    // runs after every dispatch. A node's cost on GPU 0 = Σ over its requests of prefill + 45 × single-request decode.
    const docs = [{ id: 180, tokens: 1000 }, { id: 181, tokens: 2000 }, { id: 182, tokens: 3000 }];
    const cost = (d: Segment, n: number) => n * (prefill(d.tokens + 10, 0) + 45 * tpot(d.tokens + 10)) - (n > 1 ? prefill(d.tokens + 10, 0) - prefill(10, d.tokens) : 0);
    const [c0, c1, c2] = docs.map((d) => cost(d, 2));
    // By hand: after dispatch 4 the candidates (count > 1) are 180 and 181; 180 is cheaper and L0 − c0 = c1 ≥ L1 + c0 = c0,
    // so it moves; then c1 < 1.5 · c0 stops the loop. After dispatch 6 the candidates are 181 and 182, and moving 181
    // would overshoot (L0 − c1 = c2 < L1 + c1 = c0 + c1). One migration: 180 to GPU 1.
    expect(c1).toBeGreaterThanOrEqual(c0);
    expect(c1).toBeLessThan(1.5 * c0);
    expect(c2).toBeLessThan(c0 + c1);
    const r = router(2, { rebalance: true, rebalanceAction: "migrate", rebalanceAfter: 0, capacityTokens: 200_000 });
    let t = 0;
    for (const d of docs) for (let k = 0; k < 2; k++) dispatch(r, request([d, { id: 1800 + t, tokens: 10 }]), 0, t++);
    expect(r.migrations.map((m) => [m.segment, m.from, m.to])).toEqual([[180, 0, 1]]);
    // The node's window load moved with it; the document now lives on GPU 1 alone, so its next request exploits there.
    expect(r.windowLoad(1)).toBeCloseTo(c0, 6);
    expect(r.windowLoad(0)).toBeCloseTo(c1 + c2, 6);
    expect(r.globalMatch(request([docs[0], { id: 1899, tokens: 10 }]), t).candidates).toEqual([1]);
    // The lecture's action never moves nodes.
    const redirect = router(2, { rebalance: true, rebalanceAfter: 0, capacityTokens: 200_000 });
    t = 0;
    for (const d of docs) for (let k = 0; k < 2; k++) dispatch(redirect, request([d, { id: 1800 + t, tokens: 10 }]), 0, t++);
    expect(redirect.stats().migrated).toBe(0);
  });

  it("priority rotation: quota across iterations (ours, k = 1) vs one group per iteration (released, k = 10, rpc:474–486, 790–801)", () => {
    // 30 requests of group 5 and 30 of group 0; each iteration the engine admits at most 2 from the order it gets.
    const waitingOf = () => {
      const cached = new Map<RequestRecord, number>();
      const list: RequestRecord[] = [];
      for (let i = 0; i < 30; i++) {
        const a = new RequestRecord(request([{ id: 2_000_000 + 2 * i, tokens: 100 }]), 0);
        const b = new RequestRecord(request([{ id: 2_000_001 + 2 * i, tokens: 100 }]), 0);
        cached.set(a, 55);
        cached.set(b, 0);
        list.push(a, b);
      }
      return { cached, list };
    };
    const run = (policy: ReturnType<typeof priorityGroups> | ReturnType<typeof priorityGroupsPerIteration>) => {
      const { cached, list } = waitingOf();
      const c: LocalPolicyContext = { now: 0, replica: 0, cachedTokens: (rec) => cached.get(rec) ?? 0 };
      const byGroup = [0, 0];
      for (let it = 0; it < 12; it++) {
        const order = policy.order(list, c) ?? list;
        for (const rec of order.slice(0, 2)) {
          policy.onAdmit?.(rec, c);
          byGroup[cached.get(rec) === 0 ? 0 : 1]++;
          list.splice(list.indexOf(rec), 1);
        }
      }
      return byGroup;
    };
    // Ours: turns of 6 (group 5) and 1 (group 0) fill each iteration: 24 admissions = 3 × (6 + 1) + 3 → 21 and 3.
    expect(run(priorityGroups())).toEqual([3, 21]);
    // Released: the pointer alternates between the two non-empty groups, one group per iteration: 12 and 12.
    expect(run(priorityGroupsPerIteration())).toEqual([12, 12]);
  });

  it("the paper's baseline engine: SGLang's LPM without chunking (e2e_4r_toolbench_config.py:23–29)", () => {
    const o = configurationOptions("baselinePaper");
    expect(o.localPolicy).toBe("lpm");
    expect(o.chunkBudget).toBe(Math.floor(capacity / 6));
    expect(configurationOptions("baseline").chunkBudget).toBeUndefined();
    // LPM keeps sorting beyond 128 waiting (up to 1,024), SGLang's later LPF falls back to FCFS.
    const cached = new Map<RequestRecord, number>();
    const many = Array.from({ length: 200 }, (_, i) => {
      const rec = new RequestRecord(request([{ id: 3_000_000 + i, tokens: 100 }]), 0);
      cached.set(rec, i % 50);
      return rec;
    });
    const c: LocalPolicyContext = { now: 0, replica: 0, cachedTokens: (rec) => cached.get(rec) ?? 0 };
    expect(longestPrefixFirst().order(many, c)).toBeNull();
    const lpm = resolveLocalPolicy("lpm")(0).order(many, c) as RequestRecord[];
    expect(cached.get(lpm[0])).toBe(49);
  });

  it("conservation under every option combination: no request lost, KV never over capacity", () => {
    const cap = kvCapacityTokens("MISTRAL_7B", "A6000", 0.36);
    const w = generateWorkload("toolCalling", { rate: 14, requestCount: 200, seed: 9 });
    let runs = 0;
    for (const decodeEstimate of ["lecture", "released"])
      for (const evictionEstimate of ["freeSpace", "memoryFull"])
        for (const pairingRule of ["ours", "released"])
          for (const rebalanceAction of ["redirect", "migrate"])
            for (const localPolicy of ["priority", "priorityReleased"]) {
              const res = simulateCluster({ workload: w, replicas: 3, memFraction: 0.36, check: true, router: { name: "preble", decodeEstimate, evictionEstimate, pairingRule, rebalanceAction, rebalanceAfter: 20, windowSeconds: 30, autoscaleMinSamples: 2 }, localPolicy });
              expect(res.records.length).toBe(200);
              for (const rec of res.records) expect(Number.isFinite(rec.finish)).toBe(true);
              expect(res.replicas.reduce((s, x) => s + x.requests, 0)).toBe(200);
              for (const rep of res.replicas) expect(rep.peakKvTokens).toBeLessThanOrEqual(cap);
              runs++;
            }
    expect(runs).toBe(32);
  });
});

describe("every configuration: no request lost, KV capacity never exceeded", () => {
  const cases: Array<[string, number, number, number]> = [
    ["toolCalling", 14, 3, 0.36],
    ["longDocQA", 0.6, 2, 0.9],
    ["agent", 8, 2, 0.34],
    ["videoQA", 3, 3, 0.5],
  ];
  for (const [workload, rate, replicas, memFraction] of cases) {
    it(`${workload}: ${CONFIGURATION_NAMES.join(", ")} and preble with delayed notices`, () => {
      const cap = kvCapacityTokens("MISTRAL_7B", "A6000", memFraction);
      const runs = [...CONFIGURATION_NAMES.map((c) => ({ c, delay: 0 })), { c: "preble", delay: 3 }];
      const w = generateWorkload(workload, { rate, requestCount: 250, seed: 5 });
      const n = w.requests.length;
      for (const { c, delay } of runs) {
        const res = simulateCluster({ workload: w, replicas, memFraction, check: true, notificationDelay: delay, ...configurationOptions(c, c === "preble" ? { autoscaleMinSamples: 2, windowSeconds: 30 } : {}) });
        expect(res.records.length).toBe(n);
        for (const r of res.records) {
          expect(Number.isFinite(r.finish), `${c}: request ${r.id}`).toBe(true);
          expect(r.computedTokens).toBe(r.promptTokens - r.cachedTokens);
        }
        expect(new Set(res.records.map((r) => r.id)).size).toBe(n);
        expect(res.replicas.reduce((s, x) => s + x.requests, 0)).toBe(n);
        for (const rep of res.replicas) expect(rep.peakKvTokens).toBeLessThanOrEqual(cap);
        if (c === "preble" && memFraction < 0.5) expect((res.routerStats.noticesApplied as number) + (res.routerStats.noticesIgnored as number)).toBeGreaterThan(0);
      }
    });
  }
});

describe("bad options throw a clear error", () => {
  const ctx = { replicas: 4, step, kvCapacity: capacity, rng: null as never };
  it.each([
    [{ thBal: 0.9 }, /thBal/],
    [{ windowSeconds: 0 }, /windowSeconds/],
    [{ rebalance: "yes" }, /rebalance/],
    [{ autoscaleFactor: 1 }, /autoscaleFactor/],
    [{ bogus: 1 }, /参数 bogus：不是路由器 preble 的选项/],
  ])("%o", (options, message) => {
    expect(() => createRouter("preble", ctx, options)).toThrow(ParameterError);
    expect(() => createRouter("preble", ctx, options)).toThrow(message);
  });
  it("more than 30 replicas and unknown configurations are rejected", () => {
    expect(() => createRouter("preble", { ...ctx, replicas: 31 })).toThrow(/replicas/);
    expect(() => configurationOptions("sglang")).toThrow(/configuration.*baseline/);
  });
});
