// §6 production routers: the SGLang router's rules (imbalance boundary, cache-threshold boundary, smallest tree,
// its approximate tree and LRU eviction), Dynamo's cost and temperature, the gateway scorers and weights — on
// hand-made cluster states — then small simulated runs (no request lost, determinism, restarts) and demo shapes.
import { describe, expect, it } from "vitest";
import { ParameterError } from "../lib/core/errors";
import { rng } from "../lib/core/rng";
import { kvCapacityTokens, StepModel } from "../lib/hardware/step-model";
import { MISTRAL_7B, A6000 } from "../lib/hardware/specs";
import {
  ClusterRequest,
  ClusterView,
  createRouter,
  DynamoKvRouter,
  dynamoCost,
  GatewayPrefixScorer,
  generateWorkload,
  prefixScore,
  queueScores,
  kvScore,
  routerNames,
  SGLANG_ROUTER_DEFAULTS,
  SglangRouter,
  simulateCluster,
  softmaxSample,
  TenantTree,
} from "../lib/cluster/index";
import { runDemo } from "../lib/demos/index";

let nextId = 0;
/** A request made of segments [id, tokens]. */
function request(segments: Array<[number, number]>, outputTokens = 4): ClusterRequest {
  const segs = segments.map(([id, tokens]) => ({ id, tokens }));
  return {
    id: nextId++,
    arrival: 0,
    segments: segs,
    promptTokens: segs.reduce((s, x) => s + x.tokens, 0),
    outputTokens,
    outputSegment: { id: 100000 + nextId, tokens: outputTokens },
    key: 0,
    keySegment: segs[0].id,
  };
}

interface FakeState {
  inFlight?: number[];
  queue?: number[];
  pendingPrefill?: number[];
  activeKv?: number[];
  kvUtil?: number[];
  now?: number;
}
const CAPACITY = 1000;
function view(n: number, s: FakeState = {}): ClusterView {
  const at = (xs: number[] | undefined, i: number) => (xs ? xs[i] : 0);
  return {
    replicaCount: n,
    now: s.now ?? 0,
    kvCapacity: CAPACITY,
    outstandingRequests: (i: number) => at(s.inFlight, i),
    outstandingTokens: (i: number) => at(s.inFlight, i) * 100,
    queueLength: (i: number) => at(s.queue, i),
    pendingPrefillTokens: (i: number) => at(s.pendingPrefill, i),
    activeKvTokens: (i: number) => at(s.activeKv, i),
    kvUtilization: (i: number) => at(s.kvUtil, i),
    viewMatch: () => 0,
    cachedMatch: () => 0,
  } as unknown as ClusterView;
}

describe("registry", () => {
  it("the production routers are registered by name and reject unknown options", () => {
    for (const name of ["sglangRouter", "sglangRouterLeastLoad", "dynamoKvRouter", "gatewayPrefixScorer"]) expect(routerNames()).toContain(name);
    const ctx = { replicas: 2, rng: rng(1), step: new StepModel(MISTRAL_7B, A6000), kvCapacity: CAPACITY };
    expect(() => createRouter("sglangRouter", ctx, { cacheTreshold: 0.3 })).toThrow(ParameterError);
    expect(() => createRouter("sglangRouter", ctx, { cacheThreshold: 1.5 })).toThrow(/cacheThreshold/);
    expect(() => createRouter("dynamoKvRouter", ctx, { temperature: -1 })).toThrow(/temperature/);
    expect(() => createRouter("gatewayPrefixScorer", ctx, { prefixWeight: -3 })).toThrow(/prefixWeight/);
  });
});

describe("SGLang router (cache_aware)", () => {
  it("uses the CLI defaults, with the character budget turned into tokens at 4 characters per token", () => {
    expect(SGLANG_ROUTER_DEFAULTS).toMatchObject({ cacheThreshold: 0.3, balanceAbs: 64, balanceRel: 1.5, evictionInterval: 120, onMiss: "smallestTree" });
    expect(SGLANG_ROUTER_DEFAULTS.maxTreeTokens * 4).toBe(2 ** 26);
  });

  it("imbalance needs both max − min > abs and max > rel × min, at the boundary", () => {
    expect(SglangRouter.isImbalanced(130, 65, 64, 1.5)).toBe(true);
    expect(SglangRouter.isImbalanced(129, 65, 64, 1.5)).toBe(false); // gap exactly 64
    expect(SglangRouter.isImbalanced(300, 200, 64, 1.5)).toBe(false); // 300 = 1.5 × 200, not above
    expect(SglangRouter.isImbalanced(301, 200, 64, 1.5)).toBe(true);
    expect(SglangRouter.isImbalanced(65, 0, 64, 1.5)).toBe(true);
  });

  it("imbalanced → the fewest in-flight (first on ties) even against a full match, and the tree still learns", () => {
    const r = new SglangRouter(4);
    const req = request([[1, 100], [2, 100]]);
    r.tree.insert(req.segments, 3, 0);
    expect(r.route(req, view(4, { inFlight: [10, 75, 10, 80] }))).toBe(0);
    expect(r.lastDecision?.kind).toBe("imbalanced");
    expect(TenantTree.isTenant(r.tree.match(req.segments).node, 0)).toBe(true);
    // Gap of exactly 64: balanced → the full match on worker 3.
    const fresh = new SglangRouter(4);
    fresh.tree.insert(req.segments, 3, 0);
    expect(fresh.route(req, view(4, { inFlight: [10, 74, 10, 74] }))).toBe(3);
    expect(fresh.lastDecision?.kind).toBe("hit");
  });

  it("follows the match only when the match rate is strictly above the cache threshold", () => {
    const r = new SglangRouter(3);
    r.tree.insert(request([[10, 30], [11, 5]]).segments, 2, 0);
    r.tree.insert(request([[20, 31], [21, 5]]).segments, 2, 0);
    // 30 / 100 = 0.3 exactly: a miss → the smallest tree (worker 0: empty, lowest index).
    expect(r.route(request([[10, 30], [12, 70]]), view(3))).toBe(0);
    expect(r.lastDecision).toMatchObject({ kind: "miss", matched: 30 });
    // 31 / 100 > 0.3: a hit on worker 2.
    expect(r.route(request([[20, 31], [22, 69]]), view(3))).toBe(2);
    expect(r.lastDecision?.kind).toBe("hit");
  });

  it("a miss goes to the smallest tree even when that worker is the busiest; the newer variant goes to the least loaded", () => {
    const old = new SglangRouter(3);
    old.tree.insert(request([[1, 500]]).segments, 0, 0);
    old.tree.insert(request([[2, 50]]).segments, 1, 0);
    old.tree.insert(request([[3, 300]]).segments, 2, 0);
    const busy = view(3, { inFlight: [0, 9, 1] });
    expect(old.route(request([[7, 100]]), busy)).toBe(1);
    expect(old.stats().missesToBusiest).toBe(1);
    const newer = new SglangRouter(3, { onMiss: "leastLoad" });
    newer.tree.insert(request([[2, 50]]).segments, 1, 0);
    expect(newer.route(request([[7, 100]]), busy)).toBe(0);
  });

  it("the tree records what was routed (not the replicas' caches) and counts tokens per worker", () => {
    const r = new SglangRouter(2);
    const a = request([[1, 40], [2, 60]]);
    r.route(a, view(2, { now: 1 }));
    const w = r.lastDecision?.worker as number;
    expect(r.tree.sizeTokens[w]).toBe(100);
    // A second request sharing 40 tokens: 0.4 > 0.3 → the same worker; its tree grows by the new 60.
    expect(r.route(request([[1, 40], [3, 60]]), view(2, { now: 2 }))).toBe(w);
    expect(r.tree.sizeTokens[w]).toBe(160);
    r.tree.checkInvariants();
  });

  it("evicts each worker's least-recently-used leaves down to the cap, only when the eviction timer fires", () => {
    const r = new SglangRouter(2, { maxTreeTokens: 150, evictionInterval: 10 });
    r.tree.insert(request([[1, 50], [2, 50]]).segments, 0, 1); // oldest leaf: segment 2
    r.tree.insert(request([[1, 50], [3, 50]]).segments, 0, 2);
    r.tree.insert(request([[4, 50]]).segments, 0, 3);
    r.tree.insert(request([[1, 50], [2, 50]]).segments, 1, 1);
    expect(r.tree.sizeTokens[0]).toBe(200);
    r.route(request([[9, 10]]), view(2, { now: 5 })); // before the timer: nothing evicted
    expect(r.stats().treeEvictions).toBe(0);
    r.route(request([[9, 10]]), view(2, { now: 10 }));
    // Worker 0 had 200 (+10 if the first [9] went there) → the oldest leaves go until ≤ 150.
    expect(r.tree.sizeTokens[0]).toBeLessThanOrEqual(150);
    expect(r.tree.matchFor(request([[1, 50], [2, 50]]).segments, 0).tokens).toBe(50); // segment 2 evicted for worker 0 …
    expect(r.tree.matchFor(request([[1, 50], [2, 50]]).segments, 1).tokens).toBe(100); // … but not for worker 1
    expect(r.tree.matchFor(request([[1, 50], [3, 50]]).segments, 0).tokens).toBe(100);
    r.tree.checkInvariants();
  });
});

describe("tenant tree", () => {
  it("matches whole segments, prunes nodes without tenants, and respects a token limit", () => {
    const t = new TenantTree(2, { tokenLimit: 120 });
    const a = request([[1, 100], [2, 50], [3, 50]]);
    t.insert(a.segments, 1, 0);
    expect(t.sizeTokens[1]).toBe(120); // 100 + the first 20 tokens of segment 2; segment 3 starts past the limit
    expect(t.match(a.segments).tokens).toBe(120);
    expect(t.evictTenant(1, 0)).toBe(120);
    expect(t.tree.nodeCount).toBe(0);
    t.checkInvariants();
  });
});

describe("Dynamo KV router", () => {
  it("cost = w × (uncached prompt + pending prefill) / block + active KV / block", () => {
    const c = dynamoCost({ promptTokens: 1000, overlapTokens: 640, activePrefillTokens: 160, activeKvTokens: 3200, blockSize: 16, overlapWeight: 1 });
    expect(c.prefillBlocks).toBe((1000 - 640 + 160) / 16);
    expect(c.decodeBlocks).toBe(200);
    expect(c.cost).toBe(c.prefillBlocks + c.decodeBlocks);
    expect(dynamoCost({ promptTokens: 1000, overlapTokens: 0, activePrefillTokens: 0, activeKvTokens: 0, blockSize: 16, overlapWeight: 2 }).cost).toBe(125);
  });

  it("temperature 0 is the argmin of the cost computed from its event-built index and the load", () => {
    const r = new DynamoKvRouter(3, rng(1));
    const req = request([[1, 800], [2, 200]]);
    r.index.learn(req);
    r.onStore({ replica: 2, time: 0, path: [1], addedTokens: 800 });
    r.onStore({ replica: 1, time: 0, path: [1], addedTokens: 800 });
    // Worker 1 holds the prefix but has a long prefill queue; worker 2 holds it and is light.
    const v = view(3, { pendingPrefill: [0, 4000, 100], activeKv: [500, 0, 1600] });
    const w = r.route(req, v);
    const expected = [0, 1, 2].map((i) => dynamoCost({ promptTokens: 1000, overlapTokens: i === 0 ? 0 : 800, activePrefillTokens: [0, 4000, 100][i], activeKvTokens: [500, 0, 1600][i], blockSize: 16, overlapWeight: 1 }).cost);
    expect(r.lastCosts.map((c) => c.cost)).toEqual(expected);
    expect(w).toBe(expected.indexOf(Math.min(...expected)));
    // An eviction event (partial: 320 of 800 tokens left) lowers worker 2's overlap accordingly.
    r.onEvict({ replica: 2, time: 1, path: [1], segmentTokens: 800, heldTokens: 320, evictedTokens: 480, removed: false });
    r.route(req, v);
    expect(r.lastCosts[2].overlapTokens).toBe(320);
  });

  it("softmax sampling: T = 0 picks only minima (at random among ties); large T tends to uniform; small T to the argmin", () => {
    const r = rng(7);
    const costs = [5, 3, 3, 9];
    const seen = new Set<number>();
    for (let k = 0; k < 200; k++) seen.add(softmaxSample(costs, 0, r));
    expect([...seen].sort()).toEqual([1, 2]);
    const counts = (t: number) => {
      const c = [0, 0, 0, 0];
      for (let k = 0; k < 4000; k++) c[softmaxSample([1, 2, 3, 4], t, r)]++;
      return c.map((x) => x / 4000);
    };
    const hot = counts(100);
    for (const p of hot) expect(Math.abs(p - 0.25)).toBeLessThan(0.04);
    const cold = counts(0.05);
    expect(cold[0]).toBeGreaterThan(0.99);
    // T = 1: probabilities ∝ exp(−(c − min)/range) → p0/p3 = e.
    const mid = counts(1);
    expect(mid[0] / mid[3]).toBeGreaterThan(2.2);
    expect(mid[0] / mid[3]).toBeLessThan(3.3);
  });
});

describe("gateway prefix scorer", () => {
  it("queue score is min–max normalized (1 when all equal), KV score = 1 − utilization, prefix = matched / total blocks", () => {
    expect(queueScores([0, 5, 10])).toEqual([1, 0.5, 0]);
    expect(queueScores([3, 3])).toEqual([1, 1]);
    expect(kvScore(0.25)).toBe(0.75);
    expect(prefixScore(160, 320, 16, 256)).toBe(0.5);
    expect(prefixScore(15, 320, 16, 256)).toBe(0);
    expect(prefixScore(5000, 50000, 16, 256)).toBe(1); // only the first 256 blocks count
    expect(prefixScore(10, 10, 16, 256)).toBe(0); // shorter than a block
  });

  it("weights 2 : 2 : 3 — a full prefix match wins unless the queue and KV scores together outweigh it", () => {
    const r = new GatewayPrefixScorer(2, rng(1), CAPACITY);
    const req = request([[1, 320]]);
    r.index.insert(req.segments, 1, 0);
    // Pod 1 has the prefix (3 × 1) but the longest queue (0) and KV 0.2 used (2 × 0.8); pod 0: 2 + 2 × 1 = 4.
    expect(r.route(req, view(2, { queue: [0, 4], kvUtil: [0, 0.2] }))).toBe(1); // 0 + 1.6 + 3 = 4.6 > 4
    expect(r.lastScores[0].total).toBeCloseTo(4, 12);
    expect(r.lastScores[1].total).toBeCloseTo(4.6, 12);
    expect(r.route(req, view(2, { queue: [0, 4], kvUtil: [0, 0.6] }))).toBe(0); // 0 + 0.8 + 3 = 3.8 < 4
    const noPrefix = new GatewayPrefixScorer(2, rng(1), CAPACITY, { prefixWeight: 0 });
    noPrefix.index.insert(req.segments, 1, 0);
    expect(noPrefix.route(req, view(2, { queue: [2, 1], kvUtil: [0.1, 0.1] }))).toBe(1);
  });

  it("its index forgets a pod's oldest prompts beyond the pod's capacity", () => {
    const r = new GatewayPrefixScorer(1, rng(1), CAPACITY, { capacityTokens: 500 });
    for (let k = 0; k < 4; k++) r.route({ ...request([[50 + k, 200]]) }, view(1, { now: k }));
    expect(r.index.sizeTokens[0]).toBeLessThanOrEqual(500);
    expect(r.index.matchFor(request([[50, 200]]).segments, 0).tokens).toBe(0);
    expect(r.index.matchFor(request([[53, 200]]).segments, 0).tokens).toBe(200);
  });
});

describe("simulated runs", () => {
  const w = generateWorkload("videoQA", { rate: 3, seed: 4, requestCount: 240 });
  const names = ["sglangRouter", "sglangRouterLeastLoad", "dynamoKvRouter", "gatewayPrefixScorer"];

  it("no request is lost, KV stays within capacity, and the same seed gives the same run", () => {
    for (const router of names) {
      const a = simulateCluster({ workload: w, replicas: 3, router, seed: 2, notificationDelay: 0.05, check: true, replicationSamples: 0 });
      expect(a.records.every((r) => Number.isFinite(r.finish) && r.finish >= r.arrival), router).toBe(true);
      expect(a.replicas.reduce((s, x) => s + x.requests, 0)).toBe(w.requests.length);
      const b = simulateCluster({ workload: w, replicas: 3, router, seed: 2, notificationDelay: 0.05, replicationSamples: 0 });
      expect(b.records.map((r) => [r.replica, r.finish])).toEqual(a.records.map((r) => [r.replica, r.finish]));
    }
  });

  it("a restart flushes the replica's cache: Dynamo's index sees it, the SGLang tree does not", () => {
    const t = w.requests[150].arrival;
    const base = { workload: w, replicas: 3, seed: 2, notificationDelay: 0.05, replicationSamples: 0, check: true } as const;
    const plain = simulateCluster({ ...base, router: "sglangRouter" });
    const restarted = simulateCluster({ ...base, router: "sglangRouter", restarts: [{ replica: 0, time: t }] });
    expect(restarted.replicas[0].evictedTokens).toBeGreaterThan(plain.replicas[0].evictedTokens);
    expect(restarted.replicas[0].computedPrefillTokens).toBeGreaterThan(plain.replicas[0].computedPrefillTokens);
    // The SGLang router's decisions are unchanged (it never hears of the restart).
    expect(restarted.records.map((r) => r.replica)).toEqual(plain.records.map((r) => r.replica));
    const dynamo = simulateCluster({ ...base, router: "dynamoKvRouter", restarts: [{ replica: 0, time: t }] });
    const dynamoPlain = simulateCluster({ ...base, router: "dynamoKvRouter" });
    expect((dynamo.routerStats.removeEvents as number)).toBeGreaterThan(dynamoPlain.routerStats.removeEvents as number);
    expect(() => simulateCluster({ ...base, router: "leastLoad", restarts: [{ replica: 3, time: t }] })).toThrow(ParameterError);
    expect(() => simulateCluster({ ...base, router: "leastLoad", restarts: [{ replica: 0, time: -1 }] })).toThrow(/restarts/);
  });

  it("KV capacity used by the gateway's default index capacity is the replica's", () => {
    const r = new GatewayPrefixScorer(2, rng(1), kvCapacityTokens(MISTRAL_7B, A6000));
    expect(r.options.capacityTokens).toBe(kvCapacityTokens(MISTRAL_7B, A6000));
  });
});

describe("demos 06.x (small)", () => {
  it("06.1 has one row per workload × policy with the stated columns", () => {
    const t = runDemo("06.1", { workloads: ["videoQA"], replicas: [3], rates: [2], requestCounts: [150], policies: ["leastLoad", "sglangRouter", "dynamoKvRouter", "gatewayPrefixScorer"] });
    expect(t.columns.map((c) => c.key)).toEqual(["workload", "policy", "meanLatency", "p99Latency", "hitRate", "maxShare"]);
    expect(t.rows.map((r) => r.policy)).toEqual(["leastLoad", "sglangRouter", "dynamoKvRouter", "gatewayPrefixScorer"]);
    for (const r of t.rows) expect(r.hitRate as number).toBeGreaterThanOrEqual(0);
    expect(() => runDemo("06.1", { policies: ["noSuchRouter"] })).toThrow(/noSuchRouter/);
  });

  it("06.2 reports every window for every policy and rejects a restart too late for its windows", () => {
    const t = runDemo("06.2", { requestCount: 1100, restartTime: 130, seeds: [1], policies: ["sglangRouter", "dynamoKvRouter"] });
    expect(t.rows.length).toBe(2 * 4);
    expect(() => runDemo("06.2", { requestCount: 300, restartTime: 130, seeds: [1], policies: ["sglangRouter"] })).toThrow(/restartTime/);
    expect(() => runDemo("06.2", { restartTime: 60 })).toThrow(/restartTime/);
  });
});
