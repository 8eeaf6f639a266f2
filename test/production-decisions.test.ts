// §6 production routers, decision by decision on hand-made states (the mutation core "production",
// test/support/mutation-cores.mjs): the SGLang router's rules (imbalance boundary, cache-threshold boundary, least
// loaded and its tie-breaks, smallest tree, the hit's tenant, its approximate tree and LRU eviction), Dynamo's cost and
// temperature, the gateway's scorers and weights. Every expected value is computed by hand in the comment beside it.
// The simulated runs and the 06.x demos are in test/production-routers.test.ts.
import { describe, expect, it } from "vitest";
import { ParameterError } from "../lib/core/errors";
import { rng } from "../lib/core/rng";
import { StepModel } from "../lib/hardware/step-model";
import { MISTRAL_7B, A6000 } from "../lib/hardware/specs";
import {
  ActiveSequences,
  BlockLruIndex,
  createRouter,
  DynamoKvRouter,
  dynamoCost,
  GatewayPrefixScorer,
  prefixScore,
  queueScores,
  kvScore,
  routerNames,
  SGLANG_LATE_2025,
  SGLANG_PYTHON_EVICTION_INTERVAL,
  SGLANG_ROUTER_DEFAULTS,
  SglangRouter,
  softmaxSample,
  TenantTree,
  tenantOrderKey,
} from "../lib/cluster/index";
import { RequestRecord } from "../lib/cluster/record";
import { CAPACITY, request, view } from "./support/production-world";

describe("registry", () => {
  it("the production routers are registered by name and reject unknown options", () => {
    for (const name of ["sglangRouter", "sglangRouterLate2025", "sglangRouterSmallestTree", "dynamoKvRouter", "gatewayPrefixScorer"]) expect(routerNames()).toContain(name);
    const ctx = { replicas: 2, rng: rng(1), step: new StepModel(MISTRAL_7B, A6000), kvCapacity: CAPACITY };
    expect(() => createRouter("sglangRouter", ctx, { cacheTreshold: 0.3 })).toThrow(ParameterError);
    expect(() => createRouter("sglangRouter", ctx, { cacheThreshold: 1.5 })).toThrow(/cacheThreshold/);
    expect(() => createRouter("dynamoKvRouter", ctx, { temperature: -1 })).toThrow(/temperature/);
    expect(() => createRouter("gatewayPrefixScorer", ctx, { prefixWeight: -3 })).toThrow(/prefixWeight/);
    expect(() => createRouter("dynamoKvRouter", ctx, { trackOutputBlocks: "yes" })).toThrow(/trackOutputBlocks/);
    expect(() => createRouter("sglangRouterLate2025", ctx, { tieBreak: "random" })).toThrow(/tieBreak/);
  });
});

describe("SGLang router (cache_aware)", () => {
  it("uses the CLI defaults of today's release, with the character budget turned into tokens at 4 characters per token", () => {
    expect(SGLANG_ROUTER_DEFAULTS).toMatchObject({ cacheThreshold: 0.3, balanceAbs: 64, balanceRel: 1.5, evictionInterval: 120, onMiss: "leastLoad", tieBreak: "processed", hitTenant: "creator" });
    expect(SGLANG_ROUTER_DEFAULTS.maxTreeTokens * 4).toBe(2 ** 26);
    expect(SGLANG_PYTHON_EVICTION_INTERVAL).toBe(60);
  });

  it("least-load ties go by (in-flight, requests routed there, index): three misses on an idle cluster go to 0, 1, 2 (late 2025: 0, 0, 0)", () => {
    const now = new SglangRouter(3);
    const late = new SglangRouter(3, SGLANG_LATE_2025, "sglangRouterLate2025");
    const idle = view(3, { inFlight: [0, 0, 0] });
    expect([1, 2, 3].map((k) => now.route(request([[900 + k, 100]]), idle))).toEqual([0, 1, 2]);
    expect([1, 2, 3].map((k) => late.route(request([[900 + k, 100]]), idle))).toEqual([0, 0, 0]);
    expect(Array.from(now.processed)).toEqual([1, 1, 1]);
    // Load still comes first: worker 1 has fewer in flight, whatever it was sent before.
    expect(now.route(request([[950, 100]]), view(3, { inFlight: [2, 1, 2] }))).toBe(1);
  });

  it("a hit goes to the node's creator; late 2025 took the first tenant in hash-map order", () => {
    // A segment whose hash order puts worker 0 before worker 2, so the two rules disagree.
    let seg = 5000;
    while (tenantOrderKey(seg, 0) > tenantOrderKey(seg, 2)) seg++;
    const build = (r: SglangRouter) => {
      r.tree.insert(request([[seg, 100]]).segments, 2, 0); // worker 2 creates the node
      r.tree.insert(request([[seg, 100]]).segments, 0, 1); // worker 0 becomes a second tenant
    };
    const now = new SglangRouter(3);
    const late = new SglangRouter(3, SGLANG_LATE_2025, "sglangRouterLate2025");
    build(now);
    build(late);
    const req = request([[seg, 100], [seg + 100000, 50]]); // match rate 100 / 150 > 0.3: a hit
    expect(now.route(req, view(3))).toBe(2);
    expect(now.lastDecision?.kind).toBe("hit");
    expect(late.route(req, view(3))).toBe(0);
    // Once the creator is evicted from the node, the first remaining tenant takes its place (and is kept).
    const r = new SglangRouter(3);
    build(r);
    r.tree.evictTenant(2, 0);
    expect(r.hitTenant(r.tree.match(req.segments).node)).toBe(0);
    expect(r.tree.lastTenant(r.tree.match(req.segments).node)).toBe(0);
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
    // 30 / 100 = 0.3 exactly: a miss → the least loaded (all idle, none routed yet: worker 0).
    expect(r.route(request([[10, 30], [12, 70]]), view(3))).toBe(0);
    expect(r.lastDecision).toMatchObject({ kind: "miss", matched: 30 });
    // 31 / 100 > 0.3: a hit on worker 2.
    expect(r.route(request([[20, 31], [22, 69]]), view(3))).toBe(2);
    expect(r.lastDecision?.kind).toBe("hit");
  });

  it("a miss goes to the least loaded; the version before December 2025 sent it to the smallest tree even when that worker was the busiest", () => {
    const old = new SglangRouter(3, { onMiss: "smallestTree", tieBreak: "index", hitTenant: "hashOrder" }, "sglangRouterSmallestTree");
    old.tree.insert(request([[1, 500]]).segments, 0, 0);
    old.tree.insert(request([[2, 50]]).segments, 1, 0);
    old.tree.insert(request([[3, 300]]).segments, 2, 0);
    const busy = view(3, { inFlight: [0, 9, 1] });
    expect(old.route(request([[7, 100]]), busy)).toBe(1);
    expect(old.stats().missesToBusiest).toBe(1);
    const newer = new SglangRouter(3);
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
    r.route(request([[9, 10]]), view(2, { now: 5, inFlight: [1, 0] })); // before the timer: nothing evicted (→ worker 1)
    expect(r.stats().treeEvictions).toBe(0);
    r.route(request([[9, 10]]), view(2, { now: 10, inFlight: [1, 0] }));
    // Worker 0 had 200 → the oldest leaves go until ≤ 150.
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
  it("cost = w × (uncached prompt + in-flight prefill) / block + distinct in-flight blocks + this request's new blocks", () => {
    const c = dynamoCost({ promptTokens: 1000, overlapTokens: 640, activePrefillTokens: 160, activeBlocks: 200, newBlocks: 22, blockSize: 16, overlapWeight: 1 });
    expect(c.prefillBlocks).toBe((1000 - 640 + 160) / 16);
    expect(c.decodeBlocks).toBe(222);
    expect(c.cost).toBe(c.prefillBlocks + c.decodeBlocks);
    expect(dynamoCost({ promptTokens: 1000, overlapTokens: 0, activePrefillTokens: 0, activeBlocks: 0, newBlocks: 0, blockSize: 16, overlapWeight: 2 }).cost).toBe(125);
  });

  it("active sequences count each shared block once, queued requests included, and keep a shared block until its last request ends", () => {
    const a = new ActiveSequences(16);
    const r1 = new RequestRecord(request([[1, 320], [2, 48]]), 0); // 23 blocks: 20 of the shared 320 + 3
    const r2 = new RequestRecord(request([[1, 320], [3, 48]]), 0);
    a.add(r1, 368);
    a.add(r2, 48);
    expect(a.activeBlocks).toBe(20 + 3 + 3);
    expect(a.activePrefillTokens).toBe(416);
    // A request [1:320][4:32]: 22 blocks, 20 of them already in flight.
    expect(a.newBlocks(request([[1, 320], [4, 32]]).segments, 352)).toBe(2);
    r1.firstToken = 1; // past its prefill
    a.sweepPrefills();
    expect(a.activePrefillTokens).toBe(48);
    a.remove(r1);
    expect(a.activeBlocks).toBe(23);
    a.remove(r2);
    expect(a.activeBlocks).toBe(0);
    expect(a.activePrefillTokens).toBe(0);
    expect(a.tree.nodeCount).toBe(0);
  });

  it("hand-built: a worker with three queued prompts vs one running a long decode — released term → the long decode's worker; the first version's term → the other", () => {
    // R = 352 fresh tokens (22 blocks), cached nowhere. Worker 0: three queued prompts of 320 distinct tokens (960 to
    // prefill, 60 blocks). Worker 1: one running request, 160-token prompt (10 blocks), 2,000-token output, 500 generated.
    const setup = (o: Record<string, unknown>) => {
      const r = new DynamoKvRouter(2, rng(1), o);
      for (const id of [11, 12, 13]) r.active[0].add(Object.assign(new RequestRecord(request([[id, 320]]), 0), { replica: 0 }), 320);
      r.active[1].add(Object.assign(new RequestRecord(request([[20, 160]], 2000), 0), { replica: 1, firstToken: 0.5, generated: 500 }), 160);
      return r;
    };
    const req = request([[30, 352]]);
    // The replica's own state, which the first version read: 960 tokens queued on 0; 160 + 2,000 running on 1.
    const v = view(2, { pendingPrefill: [960, 0], activeKv: [0, 2160] });
    const released = setup({});
    expect(released.route(req, v)).toBe(1);
    // by hand: worker 0: (352 + 960) / 16 + 60 + 22 = 164; worker 1: 352 / 16 + 10 + 22 = 54
    expect(released.lastCosts.map((c) => c.cost)).toEqual([164, 54]);
    const first = setup({ decodeTerm: "runningKv", prefillTerm: "replica" });
    expect(first.route(req, v)).toBe(0);
    // by hand: worker 0: 1312 / 16 + 0 = 82; worker 1: 22 + 2160 / 16 = 157
    expect(first.lastCosts.map((c) => c.cost)).toEqual([82, 157]);
    // router_track_output_blocks adds the 500 generated tokens' 31 whole blocks on worker 1.
    const withOutput = setup({ trackOutputBlocks: true });
    withOutput.route(req, v);
    expect(withOutput.lastCosts[1].cost).toBe(54 + 31);
  });

  it("the prefill term is the router's: a request's new tokens count until its first token, then leave; a finished request's blocks leave", () => {
    const r = new DynamoKvRouter(1, rng(1));
    const rec = Object.assign(new RequestRecord(request([[40, 320]]), 0), { replica: 0 });
    r.route(rec.request, view(1));
    r.onDispatch(rec);
    expect(r.active[0].activePrefillTokens).toBe(320);
    rec.firstToken = 1;
    r.route(request([[41, 32]]), view(1, { now: 1 }));
    expect(r.lastCosts[0].prefillBlocks).toBe(2);
    r.onFinish(rec);
    expect(r.active[0].activeBlocks).toBe(0);
  });

  it("temperature 0 is the argmin of the cost computed from its event-built index and the load", () => {
    const r = new DynamoKvRouter(3, rng(1), { decodeTerm: "runningKv", prefillTerm: "replica" });
    const req = request([[1, 800], [2, 200]]);
    r.index.learn(req);
    r.onStore({ replica: 2, time: 0, path: [1], addedTokens: 800 });
    r.onStore({ replica: 1, time: 0, path: [1], addedTokens: 800 });
    // Worker 1 holds the prefix but has a long prefill queue; worker 2 holds it and is light.
    const v = view(3, { pendingPrefill: [0, 4000, 100], activeKv: [500, 0, 1600] });
    const w = r.route(req, v);
    const expected = [0, 1, 2].map((i) => dynamoCost({ promptTokens: 1000, overlapTokens: i === 0 ? 0 : 800, activePrefillTokens: [0, 4000, 100][i], activeBlocks: [500, 0, 1600][i] / 16, newBlocks: 0, blockSize: 16, overlapWeight: 1 }).cost);
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
    r.index.add(r.index.blocks(req.segments), 1);
    // Pod 1 has the prefix (3 × 1) but the longest queue (0) and KV 0.2 used (2 × 0.8); pod 0: 2 + 2 × 1 = 4.
    expect(r.route(req, view(2, { queue: [0, 4], kvUtil: [0, 0.2] }))).toBe(1); // 0 + 1.6 + 3 = 4.6 > 4
    expect(r.lastScores[0].total).toBeCloseTo(4, 12);
    expect(r.lastScores[1].total).toBeCloseTo(4.6, 12);
    expect(r.route(req, view(2, { queue: [0, 4], kvUtil: [0, 0.6] }))).toBe(0); // 0 + 0.8 + 3 = 3.8 < 4
    const noPrefix = new GatewayPrefixScorer(2, rng(1), CAPACITY, { prefixWeight: 0 });
    noPrefix.index.add(noPrefix.index.blocks(req.segments), 1);
    expect(noPrefix.route(req, view(2, { queue: [2, 1], kvUtil: [0.1, 0.1] }))).toBe(1);
  });

  it("block ids (chained hashes): whole 16-token blocks, at most 256, equal exactly when the prompts agree up to the block's end", () => {
    const idx = new BlockLruIndex(1, 100);
    const a = idx.blocks(request([[1, 40], [2, 40]]).segments);
    const b = idx.blocks(request([[1, 40], [3, 40]]).segments);
    expect(a.length).toBe(5); // ⌊80 / 16⌋
    expect(a.slice(0, 2)).toEqual(b.slice(0, 2)); // blocks ending at 16 and 32 lie in segment 1
    expect(a[2]).not.toBe(b[2]); // the block ending at 48 spans segment 2 vs 3
    expect(idx.blocks(request([[5, 50000]]).segments).length).toBe(256);
    expect(idx.blocks(request([[6, 10]]).segments)).toEqual([]);
    expect(idx.blocks(request([[1, 40], [2, 40]]).segments)).toEqual(a);
  });

  it("hand-built: a pod's LRU drops a prompt's HEAD first, so the prompt no longer matches there (the old tail-first index kept its head)", () => {
    const idx = new BlockLruIndex(1, 4);
    const p = idx.blocks(request([[1, 64]]).segments); // 4 blocks
    idx.add(p, 0);
    idx.add(idx.blocks(request([[2, 16]]).segments), 0); // a fifth block: the oldest (p's head) goes
    expect(idx.holds(0, p[0])).toBe(false);
    expect(idx.holds(0, p[3])).toBe(true);
    const out = new Float64Array(1);
    idx.match(p, out);
    expect(out[0]).toBe(0); // the walk stops at the first block: no pod holds it
  });

  it("hand-built: blocks are counted across pods — a pod that lost its copy's head still scores the blocks another pod kept", () => {
    const idx = new BlockLruIndex(2, 100);
    const p = idx.blocks(request([[1, 64]]).segments); // blocks h0 h1 h2 h3
    idx.add(p.slice(1), 0); // pod 0 holds h1 h2 h3 (its head gone)
    idx.add(p.slice(0, 2), 1); // pod 1 holds h0 h1
    const out = new Float64Array(2);
    idx.match(p, out);
    // h0: pod 1; h1: both; h2, h3: pod 0 → pod 0 scores 3 of 4, pod 1 2 of 4 (per pod from the start: 0 and 2).
    expect(Array.from(out)).toEqual([3, 2]);
    const r = new GatewayPrefixScorer(2, rng(1), CAPACITY);
    const q = r.index.blocks(request([[1, 64]]).segments);
    r.index.add(q.slice(1), 0);
    r.index.add(q.slice(0, 2), 1);
    r.route(request([[1, 64]]), view(2));
    expect(r.lastScores.map((s) => s.prefix)).toEqual([0.75, 0.5]);
  });

  it("its index is an LRU per pod: the same blocks held as a plain LRU list over a long random use (queues grown and compacted)", () => {
    for (const capacity of [1, 7, 40, 300]) {
      const r = rng(`gateway LRU ${capacity}`);
      const pods = 3;
      const index = new BlockLruIndex(pods, capacity);
      // the reference: per pod, a Map in use order (a re-used block moves to the back; the front is evicted)
      const lru = Array.from({ length: pods }, () => new Map<number, true>());
      const ids = capacity * 3 + 5;
      for (let call = 0; call < 400; call++) {
        const pod = r.int(pods);
        const blocks = Array.from({ length: 1 + r.int(24) }, () => r.int(ids));
        index.add(blocks, pod);
        for (const id of blocks) {
          lru[pod].delete(id);
          lru[pod].set(id, true);
          if (lru[pod].size > capacity) lru[pod].delete(lru[pod].keys().next().value as number);
        }
        for (let p = 0; p < pods; p++) {
          expect(index.sizes[p], `capacity ${capacity}, call ${call}, pod ${p}`).toBe(lru[p].size);
          let held = "";
          let want = "";
          for (let id = 0; id < ids; id++) {
            held += index.holds(p, id) ? "1" : "0";
            want += lru[p].has(id) ? "1" : "0";
          }
          expect(held, `capacity ${capacity}, call ${call}, pod ${p}: blocks held`).toBe(want);
        }
      }
      // the match counts, per pod, the blocks it holds before the first block no pod holds
      const probe = Array.from({ length: 30 }, (_, k) => k % ids);
      const out = new Float64Array(pods);
      index.match(probe, out);
      const expected = new Float64Array(pods);
      for (const id of probe) {
        if (!lru.some((m) => m.has(id))) break;
        lru.forEach((m, p) => (expected[p] += m.has(id) ? 1 : 0));
      }
      expect(Array.from(out)).toEqual(Array.from(expected));
    }
  });

  it("its index forgets a pod's least recent blocks beyond the pod's capacity in blocks", () => {
    const r = new GatewayPrefixScorer(1, rng(1), CAPACITY, { capacityTokens: 500 }); // 31 blocks
    for (let k = 0; k < 4; k++) r.route({ ...request([[50 + k, 200]]) }, view(1, { now: k })); // 12 blocks each
    expect(r.index.sizes[0]).toBe(31);
    const out = new Float64Array(1);
    r.index.match(r.index.blocks(request([[50, 200]]).segments), out);
    expect(out[0]).toBe(0);
    r.index.match(r.index.blocks(request([[53, 200]]).segments), out);
    expect(out[0]).toBe(12);
  });
});

/** A segment id ≥ from whose hash-map order (sgl-router's "first tenant") puts worker a before worker b. */
function segmentOrdering(a: number, b: number, from = 7000): number {
  let seg = from;
  while (tenantOrderKey(seg, a) > tenantOrderKey(seg, b)) seg++;
  return seg;
}
/** The time `worker` was last sent the node's prefix (NaN: not a tenant) — the tenant tree's payload by contract. */
function accessTime(node: { payload: unknown }, worker: number): number {
  return (node.payload as Float64Array)[worker];
}

describe("SGLang router: options and variants", () => {
  const ctx = { replicas: 2, rng: rng(1), step: new StepModel(MISTRAL_7B, A6000), kvCapacity: CAPACITY };
  it("checks every option against its range, at the boundary", () => {
    const ok = (o: Record<string, unknown>) => new SglangRouter(2, o).options;
    expect(ok({ cacheThreshold: 0 }).cacheThreshold).toBe(0);
    expect(ok({ cacheThreshold: 1 }).cacheThreshold).toBe(1);
    expect(() => ok({ cacheThreshold: -0.01 })).toThrow(/cacheThreshold/);
    expect(ok({ balanceAbs: 0 }).balanceAbs).toBe(0);
    expect(() => ok({ balanceAbs: -1 })).toThrow(/balanceAbs/);
    expect(() => ok({ balanceAbs: 1.5 })).toThrow(/balanceAbs/);
    expect(ok({ balanceRel: 1 }).balanceRel).toBe(1);
    expect(() => ok({ balanceRel: 0.99 })).toThrow(/balanceRel/);
    expect(ok({ evictionInterval: 0.001 }).evictionInterval).toBe(0.001);
    expect(() => ok({ evictionInterval: 0 })).toThrow(/evictionInterval/);
    expect(ok({ maxTreeTokens: 0 }).maxTreeTokens).toBe(0);
    expect(() => ok({ maxTreeTokens: -1 })).toThrow(/maxTreeTokens/);
    expect(() => ok({ onMiss: "random" })).toThrow(/onMiss/);
    expect(() => ok({ hitTenant: "last" })).toThrow(/hitTenant/);
    expect(ok({ onMiss: "smallestTree", tieBreak: "index", hitTenant: "hashOrder", balanceAbs: 3, balanceRel: 2, cacheThreshold: 0.5 })).toEqual({
      ...SGLANG_ROUTER_DEFAULTS,
      onMiss: "smallestTree",
      tieBreak: "index",
      hitTenant: "hashOrder",
      balanceAbs: 3,
      balanceRel: 2,
      cacheThreshold: 0.5,
    });
  });

  it("the three registered releases are one router with their option sets, and a given option still wins", () => {
    const today = createRouter("sglangRouter", ctx, {}) as SglangRouter;
    expect(today.options).toEqual(SGLANG_ROUTER_DEFAULTS);
    expect(today.name).toBe("sglangRouter");
    const late = createRouter("sglangRouterLate2025", ctx, { cacheThreshold: 0.5 }) as SglangRouter;
    expect(late.options).toEqual({ ...SGLANG_ROUTER_DEFAULTS, tieBreak: "index", hitTenant: "hashOrder", cacheThreshold: 0.5 });
    expect(late.name).toBe("sglangRouterLate2025");
    const old = createRouter("sglangRouterSmallestTree", ctx, { balanceAbs: 8 }) as SglangRouter;
    expect(old.options).toEqual({ ...SGLANG_ROUTER_DEFAULTS, onMiss: "smallestTree", tieBreak: "index", hitTenant: "hashOrder", balanceAbs: 8 });
    expect(old.name).toBe("sglangRouterSmallestTree");
    expect(old.replicas).toBe(2);
  });
});

describe("SGLang router: the least loaded, the smallest tree, the hit's tenant", () => {
  it("least loaded: load first, then requests routed there, then the lowest index; the index tie-break ignores what was routed", () => {
    const r = new SglangRouter(3);
    r.processed.set([3, 1, 2]);
    expect(r.leastLoaded(view(3, { inFlight: [1, 1, 1] }))).toBe(1); // all at load 1: fewest routed (1)
    r.processed.set([2, 2, 1]);
    expect(r.leastLoaded(view(3, { inFlight: [1, 1, 1] }))).toBe(2);
    r.processed.set([2, 2, 2]);
    expect(r.leastLoaded(view(3, { inFlight: [1, 1, 1] }))).toBe(0); // (1, 2) everywhere: the lowest index
    r.processed.set([5, 0, 0]);
    expect(r.leastLoaded(view(3, { inFlight: [1, 2, 2] }))).toBe(0); // load before routed counts: 1 < 2 although 5 > 0
    r.processed.set([5, 4, 0]);
    expect(r.leastLoaded(view(3, { inFlight: [2, 1, 2] }))).toBe(1);
    const late = new SglangRouter(3, SGLANG_LATE_2025, "sglangRouterLate2025");
    late.processed.set([3, 1, 2]);
    expect(late.leastLoaded(view(3, { inFlight: [1, 1, 1] }))).toBe(0);
    expect(late.leastLoaded(view(3, { inFlight: [2, 1, 1] }))).toBe(1);
  });

  it("smallest tree: the fewest tokens, ties to the lowest index", () => {
    const r = new SglangRouter(3, { onMiss: "smallestTree" });
    r.tree.insert(request([[1, 50]]).segments, 0, 0);
    r.tree.insert(request([[2, 30]]).segments, 1, 0);
    r.tree.insert(request([[3, 30]]).segments, 2, 0);
    expect(r.smallestTree()).toBe(1); // 50, 30, 30
    r.tree.insert(request([[4, 1]]).segments, 1, 0);
    expect(r.smallestTree()).toBe(2); // 50, 31, 30
  });

  it("the hit's tenant: −1 at the root; the creator, worker 0 included, while it is a tenant; else the first in hash order", () => {
    const r = new SglangRouter(3);
    expect(r.hitTenant(r.tree.tree.root)).toBe(-1);
    expect(r.firstTenant(r.tree.tree.root)).toBe(-1);
    expect(r.tree.lastTenant(r.tree.tree.root)).toBe(-1);
    expect(r.tree.tenantsOf(r.tree.tree.root)).toEqual([]);
    // worker 0 creates the node, worker 2 joins it, and hash order puts 2 first: the creator 0 still gets the hit
    const seg = segmentOrdering(2, 0);
    r.tree.insert([{ id: seg, tokens: 10 }], 0, 0);
    const node = r.tree.insert([{ id: seg, tokens: 10 }], 2, 1);
    expect(r.tree.tenantsOf(node)).toEqual([0, 2]);
    expect(r.firstTenant(node)).toBe(2);
    expect(r.hitTenant(node)).toBe(0);
    expect(new SglangRouter(3, { hitTenant: "hashOrder" }).firstTenant(node)).toBe(2);
  });
});

describe("SGLang router: the background eviction and the tenant touched by a match", () => {
  it("evicts every evictionInterval seconds of simulated time, on the next decision at or after each multiple", () => {
    // cap 0: every eviction empties the tree; each decision then inserts one 10-token prompt
    const r = new SglangRouter(2, { maxTreeTokens: 0, evictionInterval: 10 });
    const at = (now: number, id: number) => {
      r.route(request([[id, 10]]), view(2, { now }));
      return r.tree.evictions;
    };
    expect(at(0, 1)).toBe(0); // → worker 0
    expect(at(10, 2)).toBe(1); // 10 ≥ 10: prompt 1 evicted; next at 20
    expect(at(19.9, 3)).toBe(1);
    expect(at(20, 4)).toBe(3); // prompts 2 and 3
    expect(at(45, 5)).toBe(4); // prompt 4; next at 50, not 55
    expect(at(49, 6)).toBe(4);
    expect(at(50, 7)).toBe(6); // prompts 5 and 6
    expect(r.stats().treeEvictions).toBe(6);
    expect(r.tree.sizeTokens[0] + r.tree.sizeTokens[1]).toBe(10); // only prompt 7 left
  });

  it("a match touches the matched tenant even when the request goes elsewhere (prefix_match), so its path outlives an older leaf", () => {
    const build = (cap: number) => {
      const r = new SglangRouter(2, { maxTreeTokens: cap, evictionInterval: 10 });
      r.tree.insert(request([[1, 50]]).segments, 0, 1); // A, worker 0, at 1
      r.tree.insert(request([[2, 50]]).segments, 0, 2); // B, worker 0, at 2
      // 50 / 200 = 0.25 ≤ 0.3: a miss, sent to worker 1 (fewer in flight); worker 0 matched A and is touched at 3
      expect(r.route(request([[1, 50], [3, 150]]), view(2, { now: 3, inFlight: [1, 0] }))).toBe(1);
      expect(r.lastDecision).toMatchObject({ kind: "miss", matched: 50, worker: 1 });
      r.route(request([[9, 10]]), view(2, { now: 10, inFlight: [1, 0] })); // the eviction runs first
      return r;
    };
    const r = build(50);
    // worker 0: 100 tokens > 50 → its least recent leaf goes: B (2), not A (touched at 3)
    expect(r.tree.matchFor(request([[1, 50]]).segments, 0).tokens).toBe(50);
    expect(r.tree.matchFor(request([[2, 50]]).segments, 0).tokens).toBe(0);
    // cap 0: A must go too, so its touch at 3 must have queued it as a leaf again
    expect(build(0).tree.sizeTokens[0]).toBe(0);
  });
});

describe("SGLang router: its decision counts and diagnostics", () => {
  it("counts imbalanced, hit and miss decisions and the requests routed to each worker", () => {
    const r = new SglangRouter(2);
    r.route(request([[1, 100]]), view(2, { inFlight: [0, 0] })); // miss → 0
    r.route(request([[1, 100], [2, 10]]), view(2, { inFlight: [1, 0] })); // 100/110 > 0.3: hit → 0
    r.route(request([[3, 100]]), view(2, { inFlight: [70, 0] })); // 70 − 0 > 64 and 70 > 0: imbalanced → 1
    expect(r.stats()).toMatchObject({ imbalanced: 1, hit: 1, miss: 1, treeTokens: [110, 100], treeEvictions: 0, treeNodes: 3 });
    expect(Array.from(r.processed)).toEqual([2, 1]);
  });

  it("a stale hit: the worker's real match (with what is on its way) is below half the tree's match — exactly half is not stale", () => {
    const r = new SglangRouter(2);
    r.tree.insert(request([[1, 100]]).segments, 1, 0);
    r.route(request([[1, 100], [2, 100]]), view(2, { viewMatch: [0, 50] })); // 50 = 0.5 × 100
    expect(r.lastDecision).toMatchObject({ kind: "hit", worker: 1, matched: 100 });
    expect(r.stats().staleHits).toBe(0);
    r.route(request([[1, 100], [3, 100]]), view(2, { viewMatch: [0, 49] }));
    expect(r.stats().staleHits).toBe(1);
    r.route(request([[1, 100], [4, 100]]), view(2, { viewMatch: [100, 49] })); // another worker's cache does not count
    expect(r.stats().staleHits).toBe(2);
  });

  it("misses to the busiest, above the mean, and what a random choice would score, on hand-made loads", () => {
    // the smallest-tree rule, so that the tree sizes (not the load) say where a miss goes: worker 3 (50 tokens)
    const missTo3 = (load: number[]) => {
      const r = new SglangRouter(4, { onMiss: "smallestTree" });
      [100, 100, 100, 50].forEach((tokens, w) => r.tree.insert(request([[600 + w, tokens]]).segments, w, 0));
      expect(r.route(request([[700, 10]]), view(4, { inFlight: load }))).toBe(3);
      const s = r.stats();
      return [s.missesToBusiest, s.missesAboveMean, s.missesToBusiestByChance];
    };
    // loads 3, 3, 1, 0 (mean 1.75): worker 3 is neither the busiest nor above the mean; 2 of 4 are the busiest
    expect(missTo3([3, 3, 1, 0])).toEqual([0, 0, 2 / 4]);
    // 1, 1, 1, 2 (mean 1.25): the busiest, above the mean; 1 of 4 is the busiest
    expect(missTo3([1, 1, 1, 2])).toEqual([1, 1, 1 / 4]);
    // all 2: at the maximum, but nobody is less busy, and at the mean, not above it — nothing counted
    expect(missTo3([2, 2, 2, 2])).toEqual([0, 0, 0]);
    // 4, 0, 2, 2 (mean 2): at the mean, not above it; 1 of 4 is the busiest
    expect(missTo3([4, 0, 2, 2])).toEqual([0, 0, 1 / 4]);
    // the chance score adds up over misses: 2/4 + 1/4
    const r = new SglangRouter(4, { onMiss: "smallestTree" });
    r.route(request([[701, 10]]), view(4, { inFlight: [3, 3, 1, 0] }));
    r.route(request([[702, 10]]), view(4, { inFlight: [4, 0, 2, 2] }));
    expect(r.stats().missesToBusiestByChance).toBe(0.75);
  });
});

describe("tenant tree: insert, match, touch, evict", () => {
  const segs = (...s: Array<[number, number]>) => s.map(([id, tokens]) => ({ id, tokens }));

  it("a token limit indexes only the segments that start below it, and counts only the tokens below it", () => {
    const t = new TenantTree(1, { tokenLimit: 100 });
    t.insert(segs([1, 60], [2, 40], [3, 50]), 0, 0); // segment 3 starts at 100: not below the limit
    expect(t.tree.nodeCount).toBe(2);
    expect(t.sizeTokens[0]).toBe(100);
    const u = new TenantTree(1, { tokenLimit: 90 });
    const leaf = u.insert(segs([1, 60], [2, 40], [3, 50]), 0, 0);
    expect(u.tree.nodeCount).toBe(2);
    expect(u.sizeTokens[0]).toBe(90); // 60 + the 30 tokens of segment 2 below 90
    expect(u.match(segs([1, 60], [2, 40])).tokens).toBe(90);
    expect(u.matchFor(segs([1, 60], [2, 40]), 0).tokens).toBe(90);
    expect(u.evictTenant(0, 0)).toBe(90);
    expect(leaf.attached).toBe(false);
    expect(new TenantTree(1).insert([], 0, 0).isRoot).toBe(true);
  });

  it("insert: the first inserter is the creator; a worker's repeat adds no tokens; its time is the latest", () => {
    const t = new TenantTree(3);
    const a = t.insert(segs([1, 30], [2, 20]), 2, 5);
    t.insert(segs([1, 30], [2, 20]), 0, 6);
    t.insert(segs([1, 30], [2, 20]), 0, 7);
    expect(t.lastTenant(a)).toBe(2);
    expect(t.lastTenant(a.parent as typeof a)).toBe(2);
    expect(Array.from(t.sizeTokens)).toEqual([50, 0, 50]);
    expect(a.refs).toBe(2);
    expect([accessTime(a, 0), accessTime(a, 1), accessTime(a, 2)]).toEqual([7, NaN, 5]);
    expect(t.tenantsOf(a)).toEqual([0, 2]);
    t.checkInvariants();
  });

  it("matchFor stops below the first node the worker is not a tenant of; match follows any tenant", () => {
    const t = new TenantTree(2);
    t.insert(segs([1, 30], [2, 20]), 0, 0);
    t.insert(segs([1, 30]), 1, 0);
    expect(t.match(segs([1, 30], [2, 20], [3, 5])).tokens).toBe(50);
    expect(t.matchFor(segs([1, 30], [2, 20]), 1).tokens).toBe(30);
    expect(t.matchFor(segs([1, 30], [2, 20]), 0).tokens).toBe(50);
    expect(t.matchFor(segs([4, 30]), 0).tokens).toBe(0);
  });

  it("touch refreshes the worker's time on the path where it is a tenant, never making it one", () => {
    const t = new TenantTree(2);
    const a = t.insert(segs([1, 10], [2, 10]), 0, 1);
    const b = t.insert(segs([1, 10], [3, 10]), 1, 1);
    t.touch(a, 0, 5);
    expect([accessTime(a, 0), accessTime(a.parent as typeof a, 0), accessTime(a.parent as typeof a, 1)]).toEqual([5, 5, 1]);
    t.touch(b, 0, 6); // worker 0 holds segment 1 but not 3
    expect(TenantTree.isTenant(b, 0)).toBe(false);
    expect(accessTime(b.parent as typeof b, 0)).toBe(6);
    t.touch(t.tree.root, 0, 7); // the root: nothing to do
    t.checkInvariants();
    // worker 1 holds segment 1 only (a leaf of its own) and is touched through worker 0's node below it: segment 1 is
    // refreshed for worker 1 and stays evictable at its new time
    const u = new TenantTree(2);
    u.insert(segs([1, 10]), 1, 1);
    const below = u.insert(segs([1, 10], [2, 10]), 0, 2);
    u.touch(below, 1, 8);
    expect(accessTime(below.parent as typeof below, 1)).toBe(8);
    expect(u.evictTenant(1, 0)).toBe(10);
    u.checkInvariants();
  });

  it("evicts the least recent leaf by its current time: an entry made stale by a later insert is skipped", () => {
    const t = new TenantTree(1);
    t.insert(segs([1, 50]), 0, 1); // A at 1
    t.insert(segs([2, 50]), 0, 2); // B at 2
    t.insert(segs([1, 50]), 0, 3); // A again at 3: its entry at 1 is stale
    expect(t.evictTenant(0, 50)).toBe(50);
    expect(t.matchFor(segs([1, 50]), 0).tokens).toBe(50);
    expect(t.matchFor(segs([2, 50]), 0).tokens).toBe(0);
    expect([t.evictions, t.evictedTokens]).toEqual([1, 50]);
    // at the cap exactly: nothing more goes
    expect(t.evictTenant(0, 50)).toBe(0);
    expect(t.evictions).toBe(1);
  });

  it("evicts leaves only: a node that has since gained the worker's child waits for it (and then goes, cap permitting)", () => {
    const t = new TenantTree(1);
    t.insert(segs([1, 50]), 0, 1); // an entry (segment 1, time 1) …
    t.insert(segs([1, 50], [2, 50]), 0, 1); // … no longer a leaf at the same time 1
    expect(t.evictTenant(0, 50)).toBe(50); // segment 2 goes, not segment 1
    expect(t.matchFor(segs([1, 50], [2, 50]), 0).tokens).toBe(50);
    t.checkInvariants();
    // a parent older than its child (times are whatever the caller gives): the child still goes first
    const u = new TenantTree(1);
    u.insert(segs([1, 50], [2, 50]), 0, 10);
    u.insert(segs([1, 50]), 0, 1);
    expect(u.evictTenant(0, 50)).toBe(50);
    expect(u.matchFor(segs([1, 50], [2, 50]), 0).tokens).toBe(50);
    u.checkInvariants();
    expect(u.evictTenant(0, 0)).toBe(50); // then the parent, now a leaf
    expect(u.tree.nodeCount).toBe(0);
  });

  it("a node another worker still holds stays in the tree; a node whose children belong to others is a leaf for this worker", () => {
    const t = new TenantTree(2);
    const leaf = t.insert(segs([1, 40], [2, 10]), 0, 1);
    t.insert(segs([1, 40], [2, 10]), 1, 2);
    expect(t.evictTenant(0, 0)).toBe(50);
    expect(t.tree.nodeCount).toBe(2);
    expect(leaf.attached).toBe(true);
    expect(t.tenantsOf(leaf)).toEqual([1]);
    expect(t.matchFor(segs([1, 40], [2, 10]), 1).tokens).toBe(50);
    t.checkInvariants();
    const u = new TenantTree(2);
    u.insert(segs([1, 40], [2, 10]), 1, 1);
    u.insert(segs([1, 40]), 0, 2);
    expect(u.evictTenant(0, 0)).toBe(40); // segment 1 is a leaf for worker 0
    expect(u.tree.nodeCount).toBe(2);
    u.checkInvariants();
    // ten children (past 8 the child list is hash-indexed and a removal leaves a hole): worker 0's child, the first,
    // goes, and segment 1 — its other children all worker 1's — is then a leaf for worker 0 as well
    const v = new TenantTree(2);
    v.insert(segs([1, 40], [2, 10]), 0, 1);
    for (let k = 3; k <= 11; k++) v.insert(segs([1, 40], [k, 10]), 1, k);
    expect(v.evictTenant(0, 0)).toBe(50);
    expect(v.tree.nodeCount).toBe(10);
    v.checkInvariants();
  });

  it("checkInvariants names each broken invariant", () => {
    const fresh = () => {
      const t = new TenantTree(2);
      const leaf = t.insert(segs([1, 40], [2, 10]), 0, 1);
      return { t, leaf, parent: leaf.parent as typeof leaf };
    };
    let k = fresh();
    (k.leaf.payload as Float64Array)[1] = 3; // a tenant of the leaf but not of its parent (and refs off)
    k.leaf.refs++;
    expect(() => k.t.checkInvariants()).toThrow(/not of the parent/);
    k = fresh();
    k.leaf.refs++;
    expect(() => k.t.checkInvariants()).toThrow(/1 tenants but refs 2/);
    k = fresh();
    (k.leaf.payload as Float64Array)[0] = NaN;
    k.leaf.refs = 0;
    expect(() => k.t.checkInvariants()).toThrow(/no tenant/);
    k = fresh();
    k.t.sizeTokens[1] = 5;
    expect(() => k.t.checkInvariants()).toThrow(/worker 1: size 5/);
    k = fresh();
    k.t.sizeTokens[0] = 49;
    expect(() => k.t.checkInvariants()).toThrow(/worker 0: size 49/);
  });
});
