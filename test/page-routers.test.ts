// The routers on the page (notebook 02's §2 routers, notebook 06's SGLang rule and arena template) are the routers
// that run: each is read from its notebook's `algorithm` cells (test/support/page-code.ts) and run in lockstep with
// the library's implementation on the lecture's default §2 / §6 scenarios — at every arrival both decide on the same
// view and must agree — and then alone, where the whole run must match the library's. An edited cell (θ, the SGLang
// miss rule) must change the decisions exactly as the matching library option does. Hand-made views pin the rules'
// edges (θ ± 1 token, the guard's two thresholds). The arena's compareRouters and the one-line RouterError close it.
import * as fs from "fs";
import { describe, expect, it } from "vitest";
import { Router, RouterError, RouterFactory, simulateCluster, SglangRouter, thresholdAffinityRouter, createRouter, rng, StepModel, viewWith, promptOf } from "../lib/index";
import { generateWorkload } from "../lib/cluster/workloads";
import { compareRouters, runDemo, SECTION2_WORKLOADS } from "../lib/demos/index";
import { hotSpot } from "../lib/demos/cache-balance/cache-vs-balance";
import { SINCE_THEN_WORKLOADS } from "../lib/demos/since-then/common";
import { RESULT_CACHE_VARIABLE } from "../lib/demos/result-cache";
import { loadPageCode } from "./support/page-code";
import { resultCacheForThisFile } from "./support/result-cache-folder";

resultCacheForThisFile();

const NB02 = "02-cache-vs-balance.ipynb";
const NB06 = "06-since-then.ipynb";
const page02 = loadPageCode(NB02);
const page06 = loadPageCode(NB06);

/** A registered router, made as the simulator makes it. */
function libRouter(name: string, replicas: number, options: Record<string, unknown> = {}): Router {
  return createRouter(name, { replicas, rng: rng(1).fork("router"), step: null as unknown as StepModel, kvCapacity: 0 }, options);
}

/** Runs `page` and `lib` side by side on the same views (the library's answer is the one dispatched) and counts the
 * decisions and the disagreements. */
function lockstep(workload: string, replicas: number, rate: number, requestCount: number, page: Router | RouterFactory, lib: Router | RouterFactory) {
  let decisions = 0;
  let mismatches = 0;
  let first = "";
  const w = generateWorkload(workload, { rate, seed: 1, requestCount });
  const factory: RouterFactory = (ctx, o) => {
    const p = typeof page === "function" ? page(ctx, o) : page;
    const l = typeof lib === "function" ? lib(ctx, o) : lib;
    return {
      name: "lockstep",
      route(request, view) {
        const a = p.route(request, view);
        const b = l.route(request, view);
        decisions++;
        if (a !== b) {
          mismatches++;
          if (!first) first = `request ${request.id}: page ${a}, library ${b}`;
        }
        return b;
      },
      stats: () => (l.stats ? l.stats() : {}),
    };
  };
  const res = simulateCluster({ workload: w, replicas, router: factory, seed: 1, model: "MISTRAL_7B", gpu: "A6000", replicationSamples: 0 });
  return { decisions, mismatches, first, stats: res.routerStats, replicasUsed: new Set(res.records.map((r) => r.replica)).size };
}

/** The whole run with one router alone: per-request replicas and the metrics. */
function runAlone(workload: string, replicas: number, rate: number, requestCount: number, router: Router | RouterFactory | string) {
  const w = generateWorkload(workload, { rate, seed: 1, requestCount });
  const res = simulateCluster({ workload: w, replicas, router, seed: 1, model: "MISTRAL_7B", gpu: "A6000", replicationSamples: 0 });
  return { replicas: res.records.map((r) => r.replica), meanLatency: res.metrics.meanLatency, hitRate: res.metrics.hitRate };
}

// ---- notebook 02: the four §2 routers on 02.1's three workloads (and the guard on 02.4's hot spot) ----

const PAGE_VS_LIB: Array<{ page: string; lib: string; options?: Record<string, unknown> }> = [
  { page: "leastLoad", lib: "leastLoad" },
  { page: "prefixAffinity", lib: "prefixAffinity" },
  { page: "thresholdAffinity", lib: "thresholdAffinity" },
  { page: "guarded", lib: "cacheAwareGuarded" },
];

const pageRouter = (name: string): Router | RouterFactory => (name === "guarded" ? () => page02.makeCacheAwareGuarded() : page02[name]);

describe("notebook 02's routers decide exactly as the library's on 02.1's workloads (4 replicas)", () => {
  for (const { workload, rate, requestCount } of SECTION2_WORKLOADS) {
    for (const { page, lib } of PAGE_VS_LIB) {
      it(`${page} on ${workload}: every one of ${requestCount} decisions`, () => {
        const r = lockstep(workload, 4, rate, requestCount, pageRouter(page), (ctx) => libRouter(lib, ctx.replicas));
        expect(r.decisions).toBeGreaterThanOrEqual(1000);
        expect(r.mismatches, r.first).toBe(0);
      });
    }
  }

  it("alone, each page router's run is the library router's run (same replica for every request, same metrics)", () => {
    for (const { page, lib } of PAGE_VS_LIB) {
      const a = runAlone("videoQA", 4, 3, 1000, pageRouter(page));
      const b = runAlone("videoQA", 4, 3, 1000, lib);
      expect(a, page).toEqual(b);
    }
  });

  it("cache-aware + guard on 02.4's hot spot (8 replicas, 70 req/s): the guard acts and every decision agrees", () => {
    const d = hotSpot.defaults;
    const r = lockstep(d.workload, d.replicas, d.rate, d.requestCount, () => page02.makeCacheAwareGuarded(), (ctx) => libRouter("cacheAwareGuarded", ctx.replicas));
    expect(r.decisions).toBe(d.requestCount);
    expect(r.mismatches, r.first).toBe(0);
    expect(r.stats.guard as number, "the guard redirected some requests").toBeGreaterThan(0);
    expect(r.stats.affinity as number, "and affinity decided others").toBeGreaterThan(0);
  });
});

describe("editing the page changes the run", () => {
  const edited = loadPageCode(NB02, [{ from: "const theta = 0.5;", to: "const theta = 0.9;" }]);

  it("θ = 0.9 in the threshold cell: decisions differ from θ = 0.5 and equal the library's thresholdAffinity(0.9)", () => {
    const { workload, rate } = SECTION2_WORKLOADS[0];
    const vsHalf = lockstep(workload, 4, rate, 1200, edited.thresholdAffinity, thresholdAffinityRouter(0.5));
    expect(vsHalf.mismatches).toBeGreaterThan(0);
    const vsNine = lockstep(workload, 4, rate, 1200, edited.thresholdAffinity, thresholdAffinityRouter(0.9));
    expect(vsNine.mismatches, vsNine.first).toBe(0);
  });

  it("… and 02.1's table with the edited router is another table (never a cached one)", () => {
    const small = { workloads: ["longDocQA"], requestCounts: [400], seeds: 1 };
    const before = runDemo("02.1", { ...small, policies: [page02.thresholdAffinity] });
    const after = runDemo("02.1", { ...small, policies: [edited.thresholdAffinity] });
    expect(before.rows.map((r) => r.policy)).toEqual(["thresholdAffinity"]);
    expect(after.rows[0].meanLatency).not.toBe(before.rows[0].meanLatency);
    expect(after.rows[0].hitRate).not.toBe(before.rows[0].hitRate);
    // the run with the library's router by name is the unedited page's run
    const byName = runDemo("02.1", { ...small, policies: ["thresholdAffinity"] });
    expect(byName.rows[0].meanLatency).toBe(before.rows[0].meanLatency);
    // nothing holding page code was written to the result cache
    const dir = process.env[RESULT_CACHE_VARIABLE] as string;
    const files = fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true } as never) : [];
    expect((files as string[]).filter((f) => String(f).endsWith(".v8")).length).toBe(1); // the by-name run only
  });

  it("02.4 runs the page's guard as a factory and reads its guard count", () => {
    const t = runDemo("02.4", { requestCount: 800, seeds: 1, policies: ["roundRobin", () => page02.makeCacheAwareGuarded()] });
    expect(t.rows.map((r) => r.policy)).toEqual(["roundRobin", "cacheAwareGuarded"]);
    const byName = runDemo("02.4", { requestCount: 800, seeds: 1, policies: ["roundRobin", "cacheAwareGuarded"] });
    expect(t.rows).toEqual(byName.rows);
  });
});

// ---- hand-made views: the rules' edges ----

// Hand-made views and a 100-token prompt: the helpers exercise 11 uses (lib/exercises/coding-cases.ts).
const handView = viewWith;
const prompt100 = promptOf(100);

describe("the rules at their edges, on hand-made views", () => {
  it("threshold affinity at θ = 0.5 of a 100-token prompt: 50 matched tokens go to the match, 49 to the least loaded", () => {
    const at = handView({ requests: [3, 2, 1, 2], match: [50, 0, 0, 0] });
    const below = handView({ requests: [3, 2, 1, 2], match: [49, 0, 0, 0] });
    expect(page02.thresholdAffinity.route(prompt100, at)).toBe(0);
    expect(page02.thresholdAffinity.route(prompt100, below)).toBe(2);
    const lib = thresholdAffinityRouter(0.5);
    expect(lib.route(prompt100, at)).toBe(0);
    expect(lib.route(prompt100, below)).toBe(2);
  });

  it("ties: pure affinity takes the lowest index; least load compares tokens, then requests, then index", () => {
    const v = handView({ requests: [5, 1, 2, 1], tokens: [500, 300, 300, 300], match: [0, 0, 0, 0] });
    expect(page02.prefixAffinity.route(prompt100, v)).toBe(0);
    expect(page02.leastLoad.route(prompt100, v)).toBe(1);
    expect(libRouter("leastLoad", 4).route(prompt100, v)).toBe(1);
  });

  it("the guard needs both: max − min > 8 AND max > 1.5 × min", () => {
    const cases: Array<[number[], number]> = [
      [[9, 1, 1, 1], 0], // 9 − 1 = 8, not > 8: affinity (the match is on replica 0)
      [[10, 1, 1, 1], 1], // 9 > 8 and 10 > 1.5: guarded → fewest requests (lowest index among the tied)
      [[30, 20, 20, 20], 0], // 10 > 8 but 30 = 1.5 × 20, not >: affinity
      [[31, 20, 20, 20], 1], // guarded
    ];
    for (const [requests, expected] of cases) {
      const v = handView({ requests, tokens: requests.map(() => 100), match: [100, 0, 0, 0] });
      expect(page02.makeCacheAwareGuarded().route(prompt100, v), requests.join(",")).toBe(expected);
      expect(libRouter("cacheAwareGuarded", 4).route(prompt100, v), requests.join(",")).toBe(expected);
    }
  });
});

// ---- notebook 06: the SGLang rule on 06.1's three workloads ----

describe("notebook 06's SGLang rule decides exactly as sglangRouter", () => {
  for (const { workload, replicas, rate, requestCount } of SINCE_THEN_WORKLOADS) {
    it(`${workload} (${replicas} replicas, ${rate} req/s): every one of ${requestCount} decisions`, () => {
      const r = lockstep(workload, replicas, rate, requestCount, page06.sglangOnPage, (ctx) => new SglangRouter(ctx.replicas));
      expect(r.decisions).toBeGreaterThanOrEqual(1000);
      expect(r.mismatches, r.first).toBe(0);
      expect((r.stats.hit as number) > 0 && (r.stats.miss as number) > 0, "both hits and misses occur").toBe(true);
    });
  }

  it("the guard's branch is taken with a small balanceAbs, and still every decision agrees", () => {
    const page: RouterFactory = (ctx) => page06.makeSglangRule(ctx.replicas, 0.3, 2, 1.5);
    const r = lockstep("toolCallingHotSpot", 8, 70, 3000, page, (ctx) => new SglangRouter(ctx.replicas, { balanceAbs: 2 }));
    expect(r.stats.imbalanced as number).toBeGreaterThan(0);
    expect(r.mismatches, r.first).toBe(0);
  });

  it("edited to the rule before December 2025 (miss → smallest tree), it decides as sglangRouter with onMiss smallestTree", () => {
    const edited = loadPageCode(NB06, [{ from: "return tree.send(request, least, view.now); // 未命中", to: "let small = 0; for (let w = 1; w < workers; w++) if (tree.treeTokens(w) < tree.treeTokens(small)) small = w; return tree.send(request, small, view.now);" }]);
    const r = lockstep("longDocQA", 4, 1, 1200, edited.sglangOnPage, (ctx) => new SglangRouter(ctx.replicas, { onMiss: "smallestTree" }));
    expect(r.mismatches, r.first).toBe(0);
    const vsToday = lockstep("longDocQA", 4, 1, 1200, edited.sglangOnPage, (ctx) => new SglangRouter(ctx.replicas));
    expect(vsToday.mismatches).toBeGreaterThan(0);
  });
});

// ---- the arena ----

describe("compareRouters (the router arena)", () => {
  it("at its defaults: the template router beside the four built-in ones on four workloads, rows named by router, claims against the guard", () => {
    const t = compareRouters([page06.myRouter]);
    const names = ["我的路由器", "roundRobin", "cacheAwareGuarded", "preble", "sglangRouter"];
    expect([...new Set(t.rows.map((r) => r.policy))]).toEqual(names);
    expect([...new Set(t.rows.map((r) => r.workload))]).toEqual(["longDocQA", "videoQA", "toolCalling", "mooncakeTrace"]);
    expect(t.claims?.map((c) => c.id)).toEqual(["longDocQA", "videoQA", "toolCalling", "mooncakeTrace"].map((w) => `beats-guard:我的路由器:${w}`));
    for (const c of t.claims ?? []) expect(c.verdict).not.toBe("unjudged");
    // the claim's verdict is the table's comparison
    const mine = t.rows.find((r) => r.workload === "longDocQA" && r.policy === "我的路由器") as Record<string, number>;
    const guard = t.rows.find((r) => r.workload === "longDocQA" && r.policy === "cacheAwareGuarded") as Record<string, number>;
    expect(t.claims?.[0].verdict).toBe(mine.meanLatency < guard.meanLatency ? "holds" : "fails");
    // the template is a starting point that only looks at load: the student's task is not solved before they start
    expect(t.claims?.[0].verdict, "the template already beats the guard on long-document QA").toBe("fails");
    expect(mine.hitRate, "the template reads no cache: it should hit no more than the guard").toBeLessThan(guard.hitRate);
  });

  it("is deterministic for a seed, mixes names, objects and factories, and a built-in name runs the built-in router", () => {
    const o = { workloads: ["longDocQA", "videoQA"], requestCounts: { longDocQA: 200, videoQA: 300 }, baselines: ["cacheAwareGuarded"] };
    const routers = [page02.thresholdAffinity, "leastLoad", () => page02.makeCacheAwareGuarded(0.5, 8, 1.5)];
    expect(() => compareRouters(routers, o)).toThrow(/有两个路由器都叫 "cacheAwareGuarded"/);
    const ok = [page02.thresholdAffinity, "leastLoad", () => ({ ...page02.makeCacheAwareGuarded(), name: "页上的保护" })];
    const a = compareRouters(ok, { ...o, seed: 3 });
    const b = compareRouters(ok, { ...o, seed: 3 });
    expect(a.rows).toEqual(b.rows);
    expect([...new Set(a.rows.map((r) => r.policy))]).toEqual(["thresholdAffinity", "leastLoad", "页上的保护", "cacheAwareGuarded"]);
    for (const w of o.workloads) {
      const row = (p: string) => a.rows.find((r) => r.workload === w && r.policy === p) as Record<string, unknown>;
      expect(row("页上的保护").meanLatency, "the page's guard = the library's").toBe(row("cacheAwareGuarded").meanLatency);
    }
  });

  const bad = (route: Router["route"]): Router => ({ name: "坏路由器", route });
  const small = { workloads: ["longDocQA"], requestCounts: { longDocQA: 60 }, baselines: [] as string[] };
  const firstLong = generateWorkload("longDocQA", { rate: 1, seed: 1, requestCount: 60 }).requests.find((r) => r.promptTokens > 10000) as { id: number; promptTokens: number };

  it.each([
    ["−1", -1, "-1"],
    ["NaN", NaN, "NaN"],
    ["2.5", 2.5, "2.5"],
    ["N", 4, "4"],
    ["a string", "1", '"1"'],
  ])("a router returning %s stops everything with one line naming the request, its prompt length and the value", (_label, value, shown) => {
    let error: unknown;
    try {
      compareRouters([bad((request) => (request.promptTokens > 10000 ? (value as number) : 0))], small);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RouterError);
    const message = (error as Error).message;
    expect(message).not.toContain("\n");
    expect(message).toContain(`第 ${firstLong.id} 个请求`);
    expect(message).toContain(`提示 ${firstLong.promptTokens.toLocaleString("en-US")} 个 token`);
    expect(message).toContain(`返回了 ${shown}；应为副本编号，0 到 3 的整数`);
  });

  it("a router that throws: one line with what it threw, no stack", () => {
    expect(() => compareRouters([bad((request, view) => (view.history.length === 7 ? (null as unknown as { x: number }).x : 0))], small)).toThrow(/^路由器 坏路由器 在第 7 个请求（按到达顺序从 0 数；提示 [\d,]+ 个 token）上抛出错误：TypeError: [^\n]+$/);
  });

  it("a router past its time budget: one line naming the request where the budget ran out", () => {
    const slow = bad(() => {
      const until = Date.now() + 3;
      while (Date.now() < until) {
        // busy: 3 ms a decision
      }
      return 0;
    });
    expect(() => compareRouters([slow], { ...small, timeBudgetSeconds: 0.01 })).toThrow(/^路由器 坏路由器 超出了时间预算：到第 \d+ 个请求（按到达顺序从 0 数；提示 [\d,]+ 个 token）为止，\d+ 次决定共用了 [\d.]+ 秒，预算是每次运行 0.01 秒$/);
  });

  it("a router that never returns: the watchdog stops it with one line naming the request", () => {
    const looping = bad((request, view) => {
      if (view.history.length === 5) for (;;) {
        // an endless loop a student might write
      }
      return 0;
    });
    expect(() => compareRouters([looping], { ...small, timeBudgetSeconds: 0.1 })).toThrow(/^路由器 坏路由器 在第 5 个请求（按到达顺序从 0 数；提示 [\d,]+ 个 token）上超过了时间上限 10.2 秒（是不是死循环？）$/);
  }, 30_000);

  it("bad arguments are ParameterErrors naming the parameter", () => {
    expect(() => compareRouters([{ name: "x" } as never], small)).toThrow(/参数 routers\[0\]/);
    expect(() => compareRouters(["fastest"], small)).toThrow(/参数 routers\[0\]/);
    expect(() => compareRouters([page02.leastLoad], { workloads: ["chat"] })).toThrow(/参数 workloads\[0\]/);
    expect(() => compareRouters([page02.leastLoad], { seeds: 2 } as never)).toThrow(/参数 seeds/);
  });
});
