// The cluster simulator: conservation, KV capacity (checked inside the engine), determinism, the router's
// view, delayed notices, router rules on hand-made views, workloads, and bad input.
import { describe, expect, it } from "vitest";
import { ParameterError } from "../lib/core/errors";
import { Zipf } from "../lib/core/rng";
import {
  ClusterRequest,
  ClusterView,
  createRouter,
  describeWorkload,
  EvictionNotice,
  generateWorkload,
  Router,
  routerNames,
  simulateCluster,
  WORKLOAD_NAMES,
  workloadDefinition,
} from "../lib/cluster/index";

const LOAD_ONLY = ["random", "roundRobin", "leastLoad", "powerOfTwo"];

describe("workloads", () => {
  it("every parameter says whether it is from the paper or assumed", () => {
    for (const name of WORKLOAD_NAMES) {
      for (const [k, p] of Object.entries(workloadDefinition(name).params)) {
        expect(p.source, `${name}.${k}`).toMatch(/^(paper|assumed|unused)/);
      }
    }
  });

  it("long-document QA is shaped as in the lecture: ≈21,000-token documents, 13-token system prompt, ≈9% question", () => {
    const w = generateWorkload("longDocQA", { rate: 1, seed: 3, requestCount: 3000 });
    const d = describeWorkload(w);
    for (const r of w.requests) expect(r.segments[0].tokens).toBe(13);
    const docs = new Map<number, number>();
    for (const r of w.requests) docs.set(r.segments[1].id, r.segments[1].tokens);
    const meanDoc = [...docs.values()].reduce((a, b) => a + b, 0) / docs.size;
    expect(meanDoc).toBeGreaterThan(19000);
    expect(meanDoc).toBeLessThan(23000);
    const questionShare = w.requests.reduce((s, r) => s + r.segments[2].tokens, 0) / w.requests.reduce((s, r) => s + r.promptTokens, 0);
    expect(questionShare).toBeGreaterThan(0.08);
    expect(questionShare).toBeLessThan(0.1);
    expect(d.meanOutputTokens).toBeGreaterThan(40);
    expect(d.meanOutputTokens).toBeLessThan(50);
    // Zipf 1.1 popularity: the hottest document's share matches the distribution's.
    const top = w.requests.filter((r) => r.key === 0).length / w.requests.length;
    expect(Math.abs(top - new Zipf(300, 1.1).topShare(1))).toBeLessThan(0.03);
  });

  it("the hot-spot variant sends ≈40% of tool calls to one tool; arrivals are sorted and ids are positions", () => {
    const w = generateWorkload("toolCallingHotSpot", { rate: 50, seed: 2, requestCount: 5000 });
    const hot = w.requests.filter((r) => r.key === 0).length / w.requests.length;
    expect(Math.abs(hot - 0.4)).toBeLessThan(0.02);
    w.requests.forEach((r, i) => {
      expect(r.id).toBe(i);
      if (i > 0) expect(r.arrival).toBeGreaterThanOrEqual(w.requests[i - 1].arrival);
    });
  });

  it("agent turns extend the previous turn's prompt and output; programming samples share a problem", () => {
    const w = generateWorkload("agent", { rate: 5, seed: 1, requestCount: 600 });
    const byEpisode = new Map<number, ClusterRequest[]>();
    for (const r of w.requests) {
      const e = r.tags?.episode as number;
      if (!byEpisode.has(e)) byEpisode.set(e, []);
      (byEpisode.get(e) as ClusterRequest[]).push(r);
    }
    let checked = 0;
    for (const turns of byEpisode.values()) {
      turns.sort((a, b) => (a.tags?.turn as number) - (b.tags?.turn as number));
      for (let t = 1; t < turns.length; t++) {
        const prev = turns[t - 1];
        const cur = turns[t];
        const ids = cur.segments.map((s) => s.id);
        expect(ids.slice(0, prev.segments.length)).toEqual(prev.segments.map((s) => s.id));
        expect(ids[prev.segments.length]).toBe(prev.outputSegment.id);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
    const p = generateWorkload("programming", { rate: 4, seed: 1, requestCount: 400 });
    const groups = new Map<number, number>();
    for (const r of p.requests) groups.set(r.segments[1].id, (groups.get(r.segments[1].id) ?? 0) + 1);
    expect(Math.max(...groups.values())).toBeGreaterThanOrEqual(8);
  });

  it("same seed → same workload; another seed → another", () => {
    const a = generateWorkload("videoQA", { rate: 2, seed: 5, requestCount: 200 });
    const b = generateWorkload("videoQA", { rate: 2, seed: 5, requestCount: 200 });
    const c = generateWorkload("videoQA", { rate: 2, seed: 6, requestCount: 200 });
    expect(b.requests).toEqual(a.requests);
    expect(c.requests.map((r) => r.arrival)).not.toEqual(a.requests.map((r) => r.arrival));
  });
});

describe("simulateCluster: conservation and capacity", () => {
  // A small capacity (memFraction 0.36 → ≈ 31,000 tokens) forces constant eviction on tool calling.
  const cases: Array<[string, number, number, number]> = [
    ["toolCalling", 12, 3, 0.36],
    ["videoQA", 1.5, 3, 0.9],
    ["agent", 6, 2, 0.34],
    ["programming", 2, 2, 0.9],
  ];
  // Mistral-7B on an A6000 by hand: ⌊(48e9 B × memFraction − 7,241,732,096 parameters × 2 B) / KV per token⌋,
  // KV per token = 2 (K, V) × 32 layers × 8 KV heads × 128 × 2 B = 131,072 B.
  const KV_TOKENS: Record<number, number> = { 0.9: 219089, 0.36: 21335, 0.34: 14011 };
  for (const [workload, rate, replicas, memFraction] of cases) {
    it(`${workload}: every request completes once, prefill = prompt − cached, KV ≤ capacity (engine check mode)`, () => {
      for (const router of ["roundRobin", "thresholdAffinity", "cacheAwareGuarded"]) {
        const res = simulateCluster({ workload, rate, replicas, router, seed: 4, requestCount: 300, memFraction, check: true, chunkBudget: 1024 });
        const capacity = KV_TOKENS[memFraction];
        expect(res.kvCapacity).toBe(capacity);
        expect(res.records.length).toBe(300);
        expect(new Set(res.records.map((r) => r.id)).size).toBe(300);
        let finished = 0;
        for (const r of res.records) {
          expect(Number.isFinite(r.finish)).toBe(true);
          expect(r.computedTokens).toBe(r.promptTokens - r.cachedTokens);
          expect(r.cachedTokens).toBeLessThan(r.promptTokens);
          expect(r.dispatch).toBe(r.arrival); // each record's own four times (record.ts keeps them in the run's array)
          expect(r.start).toBeGreaterThanOrEqual(r.arrival);
          expect(r.firstToken).toBeGreaterThan(r.start);
          expect(r.finish).toBeGreaterThanOrEqual(r.firstToken);
          finished++;
        }
        expect(finished).toBe(300);
        expect(res.replicas.reduce((s, x) => s + x.requests, 0)).toBe(300);
        for (const rep of res.replicas) expect(rep.peakKvTokens).toBeLessThanOrEqual(capacity);
        const computed = res.records.reduce((s, r) => s + r.computedTokens, 0);
        expect(res.replicas.reduce((s, x) => s + x.computedPrefillTokens, 0)).toBe(computed);
        if (memFraction < 0.5) expect(res.replicas.some((x) => x.evictedTokens > 0)).toBe(true);
      }
    });
  }

  it("same seed → same records; another seed → different ones", () => {
    const run = (seed: number) => simulateCluster({ workload: "toolCalling", rate: 20, replicas: 4, router: "powerOfTwo", seed, requestCount: 300 });
    const fields = (res: ReturnType<typeof run>) => res.records.map((r) => [r.replica, r.start, r.firstToken, r.finish, r.cachedTokens]);
    expect(fields(run(7))).toEqual(fields(run(7)));
    expect(fields(run(8))).not.toEqual(fields(run(7)));
  });

  it("metrics: hit rate = cached / prompt tokens of measured requests; shares add up; warm-up rule stated", () => {
    const res = simulateCluster({ workload: "videoQA", rate: 2, replicas: 4, router: "leastLoad", seed: 1, requestCount: 400, warmup: 0.25 });
    const measured = res.records.filter((r) => r.measured);
    expect(measured.length).toBe(300);
    expect(res.records.slice(0, 100).every((r) => !r.measured)).toBe(true);
    const hit = measured.reduce((s, r) => s + r.cachedTokens, 0) / measured.reduce((s, r) => s + r.promptTokens, 0);
    expect(res.metrics.hitRate).toBeCloseTo(hit, 12);
    expect(res.metrics.requestsPerReplica.reduce((a, b) => a + b, 0)).toBe(300);
    expect(res.metrics.maxShare).toBeCloseTo(Math.max(...res.metrics.requestsPerReplica) / 300, 12);
    expect(res.metrics.meanLatency).toBeCloseTo(measured.reduce((s, r) => s + r.latency, 0) / 300, 9);
    expect(res.metrics.replication).toBeGreaterThanOrEqual(1);
    expect(res.warmupRule).toMatch(/first 25% of requests.*first 100 of 400/);
  });
});

describe("the router's view (§3.1)", () => {
  const docRequest = (id: number, arrival: number, doc: number): ClusterRequest => ({
    id,
    arrival,
    segments: [
      { id: 0, tokens: 13 },
      { id: 1 + doc, tokens: 20000 },
      { id: 1000 + id, tokens: 2000 },
    ],
    promptTokens: 22013,
    outputTokens: 10,
    outputSegment: { id: 5000 + id, tokens: 10 },
    key: doc,
    keySegment: 1 + doc,
  });

  it("counts segments dispatched but not yet computed, then the cache", () => {
    const seen: number[][] = [];
    const spy: Router = {
      name: "spy",
      route(req, view) {
        seen.push([0, 1, 2].map((i) => view.viewMatch(req, i)).concat([0, 1, 2].map((i) => view.cachedMatch(req, i))));
        return req.id === 0 ? 1 : req.id === 1 ? 1 : 2;
      },
    };
    // Request 1 arrives 1 ms after request 0 (which is still prefilling on replica 1); request 2 arrives later.
    simulateCluster({ requests: [docRequest(0, 0, 7), docRequest(1, 0.001, 7), docRequest(2, 100, 7)], replicas: 3, router: spy, warmup: 0 });
    expect(seen[0]).toEqual([0, 0, 0, 0, 0, 0]);
    // Dispatched to replica 1, not computed: the view sees system prompt + document; the cache nothing.
    expect(seen[1]).toEqual([0, 20013, 0, 0, 0, 0]);
    // Later both are finished: the view and the cache agree.
    expect(seen[2]).toEqual([0, 20013, 0, 0, 20013, 0]);
  });

  it("a decision's matches (walked once, without the trailing segments no dispatched request had) equal full walks", () => {
    for (const [workload, rate] of [["agent", 4], ["toolCallingHotSpot", 70], ["programming", 8]] as const) {
      let compared = 0;
      let mismatches = 0;
      let nonZero = 0;
      const checker: Router = {
        name: "checker",
        route(req, view) {
          // A copy is not the request being decided: the view walks the whole prompt for it.
          const copy = { ...req };
          let best = 0;
          for (let i = 0; i < view.replicaCount; i++) {
            const m = view.viewMatch(req, i);
            if (m !== view.viewMatch(copy, i) || view.cachedMatch(req, i) !== view.cachedMatch(copy, i)) mismatches++;
            if (m > 0) nonZero++;
            if (m > view.viewMatch(req, best)) best = i;
            compared++;
          }
          return req.id % 5 === 0 ? req.id % view.replicaCount : best;
        },
      };
      const w = generateWorkload(workload, { rate, seed: 3, requestCount: 600 });
      simulateCluster({ workload: w, replicas: 4, router: checker, seed: 3, memFraction: 0.4 });
      expect(compared).toBe(600 * 4);
      expect(nonZero).toBeGreaterThan(100);
      expect(mismatches).toBe(0);
    }
  });

  it("eviction notices reach the router after the configured delay", () => {
    const got: Array<{ notice: EvictionNotice; at: number }> = [];
    const listener: Router = {
      name: "listener",
      route: (req) => req.id % 2,
      onEvict(notice, view) {
        got.push({ notice, at: view.now });
      },
    };
    const w = generateWorkload("longDocQA", { rate: 0.5, seed: 1, requestCount: 60 });
    simulateCluster({ workload: w, replicas: 2, router: listener, notificationDelay: 2.5, memFraction: 0.5 });
    expect(got.length).toBeGreaterThan(0);
    for (const g of got) {
      expect(g.at - g.notice.time).toBeCloseTo(2.5, 9);
      expect(g.notice.path.length).toBeGreaterThan(0);
      expect(g.notice.evictedTokens).toBeGreaterThan(0);
    }
  });
});

describe("routers on hand-made views", () => {
  const ctx = { replicas: 3, rng: { int: () => 0 } as never, step: null as never, kvCapacity: 1000 };
  const req: ClusterRequest = { id: 0, arrival: 0, segments: [{ id: 1, tokens: 100 }], promptTokens: 100, outputTokens: 1, outputSegment: { id: 2, tokens: 1 }, key: 0, keySegment: 1 };
  const view = (match: number[], requests: number[], tokens: number[]): ClusterView =>
    ({
      replicaCount: match.length,
      viewMatch: (_r: ClusterRequest, i: number) => match[i],
      outstandingRequests: (i: number) => requests[i],
      outstandingTokens: (i: number) => tokens[i],
    }) as unknown as ClusterView;

  it("thresholdAffinity: affinity exactly when match / prompt ≥ θ, else least load", () => {
    const r = createRouter("thresholdAffinity", ctx, { threshold: 0.5 });
    expect(r.route(req, view([0, 50, 0], [0, 5, 1], [0, 500, 100]))).toBe(1);
    expect(r.route(req, view([0, 49, 0], [0, 5, 1], [0, 500, 100]))).toBe(0);
    expect(r.stats?.()).toEqual({ affinity: 1, load: 1 });
  });

  it("prefixAffinity follows any match, however short; ties go to the lowest index", () => {
    const r = createRouter("prefixAffinity", ctx);
    expect(r.route(req, view([0, 1, 0], [0, 50, 0], [0, 5000, 0]))).toBe(1);
    expect(r.route(req, view([0, 3, 3], [9, 9, 2], [900, 900, 200]))).toBe(1);
  });

  it("cacheAwareGuarded: guard fires iff max − min > 8 and max > 1.5 × min", () => {
    const r = createRouter("cacheAwareGuarded", ctx);
    // Imbalanced (12 − 3 > 8, 12 > 4.5): fewest requests, despite the match.
    expect(r.route(req, view([100, 0, 0], [12, 3, 4], [0, 0, 0]))).toBe(1);
    // max − min = 8: not imbalanced → affinity.
    expect(r.route(req, view([100, 0, 0], [11, 3, 4], [0, 0, 0]))).toBe(0);
    // Large gap but max ≤ 1.5 × min: not imbalanced.
    expect(r.route(req, view([100, 0, 0], [30, 20, 21], [0, 0, 0]))).toBe(0);
  });

  it("leastLoad counts tokens, not requests", () => {
    const r = createRouter("leastLoad", ctx);
    expect(r.route(req, view([0, 0, 0], [1, 5, 3], [9000, 800, 900]))).toBe(1);
  });
});

describe("bad input throws a clear error", () => {
  const base = { workload: "longDocQA", rate: 1, replicas: 2, router: "roundRobin", requestCount: 10 };
  it.each([
    [{ rate: 0 }, /rate/],
    [{ rate: -1 }, /rate/],
    [{ replicas: 0 }, /replicas/],
    [{ replicas: 1.5 }, /replicas/],
    [{ workload: "chat" }, /workload.*longDocQA/],
    [{ router: "best" }, /router.*roundRobin/],
    [{ router: "thresholdAffinity", routerOptions: { threshold: 1.2 } }, /threshold/],
    [{ router: "thresholdAffinity", routerOptions: { threshold: -0.1 } }, /threshold/],
    [{ router: "roundRobin", routerOptions: { threshold: 0.5 } }, /参数 threshold：不是路由器 roundRobin 的选项/],
    [{ warmup: 1 }, /warmup/],
  ])("%o", (override, message) => {
    expect(() => simulateCluster({ ...base, ...override } as never)).toThrow(ParameterError);
    expect(() => simulateCluster({ ...base, ...override } as never)).toThrow(message);
  });

  it("a router returning a bad replica index is reported", () => {
    const bad: Router = { name: "bad", route: () => 7 };
    expect(() => simulateCluster({ ...base, router: bad })).toThrow(/路由器 bad 给第 0 个请求（按到达顺序从 0 数；提示 [\d,]+ 个 token）返回了 7；应为副本编号/);
  });

  it("a prompt larger than a replica's KV capacity is rejected up front", () => {
    expect(() => simulateCluster({ ...base, memFraction: 0.4 })).toThrow(/超过一个副本的容量/);
  });

  it("the registry knows every router of the lecture", () => {
    for (const name of [...LOAD_ONLY, "prefixAffinity", "thresholdAffinity", "cacheAwareGuarded"]) expect(routerNames()).toContain(name);
  });
});

describe("workload request counts", () => {
  it("every generator returns exactly the requested count, multi-turn agents included", () => {
    for (const name of ["longDocQA", "videoQA", "toolCalling", "programming", "agent"]) {
      for (const n of [1, 37, 250, 1000]) {
        const w = generateWorkload(name, { rate: 5, seed: 2, requestCount: n });
        expect(w.requests.length, `${name} × ${n}`).toBe(n);
        expect(w.requests.map((r) => r.id)).toEqual(Array.from({ length: n }, (_, i) => i));
      }
    }
  });
});
