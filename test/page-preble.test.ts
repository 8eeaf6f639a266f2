// Notebook 03's algorithms on the page (issue 24, part C): the cells tagged `algorithm` in 03-preble.ipynb — E2, the
// load cost L + M + P, the rebalancing redirect, the priority groups — are the code tested here (test/support/
// page-code.ts evaluates them). They must decide exactly as the library's fast implementation on the lecture's §3
// scenarios, give the same L, M, P and the same quota, and an edit of the E2 rule must change the run.
import { describe, expect, it } from "vitest";
import {
  configurationRun,
  decideUnfinished,
  e2StateWith,
  DECISION_KINDS,
  kvCapacityTokens,
  PAGE_SCENARIOS,
  PrebleRouter,
  prebleOnPage,
  priorityGroups,
  quotaOnPage,
  simulateCluster,
  StepModel,
} from "../lib/index";
import type { ClusterRequest, ClusterOptions, PrebleDecision, PrebleState, Segment } from "../lib/index";
import { quotaTaken } from "../lib/demos/preble/index";
import { algorithmCells, loadPageCode } from "./support/page-code";

const NOTEBOOK = "03-preble.ipynb";
const page = loadPageCode(NOTEBOOK);
const RULE = { from: "if (cached > missed) {", to: "if (cached > 2 * missed) {" };

type Log = { kind: number[]; gpu: number[] };

/** A scenario's run (≥ 1,000 decisions) with `routerParts` merged into the router's options, decisions recorded. */
function runScenario(name: string, routerParts: Record<string, unknown> = {}, over: Partial<ClusterOptions> = {}, requestCount = 1200) {
  const s = PAGE_SCENARIOS[name];
  const base = configurationRun({ workload: s.workload, rate: s.rate, replicas: s.replicas, configuration: s.configuration, requestCount, seed: 1 });
  const router = { ...(base.router as { name: string }), ...routerParts, recordDecisions: true };
  const res = simulateCluster({ ...base, ...over, router });
  return { res, log: res.routerStats.decisions as Log };
}

describe("notebook 03's algorithm cells", () => {
  it("declare E2, the load cost, the redirect and the priority groups", () => {
    for (const name of ["e2", "cheapest", "windowLoad", "evictionCost", "loadCost", "redirect", "groupOf", "pagePriorityGroups"]) expect(typeof page[name], name).toBe("function");
  });
  it("are short plain TypeScript: at most ~30 lines a cell, no typed arrays or bit tricks", () => {
    const cells = algorithmCells(NOTEBOOK);
    expect(cells.length).toBeGreaterThanOrEqual(4);
    for (const c of cells) {
      expect(c.source.split("\n").length, c.source.slice(0, 60)).toBeLessThanOrEqual(32);
      expect(c.source).not.toMatch(/Int32Array|Float64Array|Uint\d+Array|<<|>>|Math\.clz32|\bmask\b/);
    }
  });
});

describe("the page's E2 decides as the library's on the lecture's §3 scenarios", () => {
  const seen = new Array(DECISION_KINDS.length).fill(0);
  for (const name of Object.keys(PAGE_SCENARIOS)) {
    it(`${name}: every decision (kind and GPU) and the run's metrics are identical`, () => {
      const n = name === "toolCallingHotSpot" ? 2500 : 1200;
      const lib = runScenario(name, {}, {}, n);
      const mine = runScenario(name, { decide: page.e2, loadCost: page.loadCost, redirect: page.redirect }, {}, n);
      expect(lib.log.kind.length).toBeGreaterThanOrEqual(1000);
      expect(mine.log.kind).toEqual(lib.log.kind);
      expect(mine.log.gpu).toEqual(lib.log.gpu);
      expect(mine.res.metrics).toEqual(lib.res.metrics);
      lib.log.kind.forEach((k) => seen[k]++);
    }, 120_000);
  }
  it("the scenarios between them exercise every decision kind (exploit, explore, rebalance, pairing)", () => {
    DECISION_KINDS.forEach((k, i) => expect(seen[i], k).toBeGreaterThan(0));
  });
});

describe("the page's L + M + P equals the library's", () => {
  /** A decide that, before deciding like the page's E2 (with the library's cost and redirect), compares every GPU's
   * terms from the page's loadCost with the library's, and the page's redirect with the library's. */
  function comparing() {
    const stats = { decisions: 0, withM: 0, redirects: 0, maxRelative: 0 };
    const rel = (a: number, b: number) => (a === b ? 0 : Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b)));
    const decide = (request: ClusterRequest, s: PrebleState): PrebleDecision => {
      stats.decisions++;
      for (const g of s.gpus) {
        const mine = page.loadCost(request, g, s);
        const lib = s.loadCost(g);
        for (const k of ["L", "M", "P", "total"] as const) stats.maxRelative = Math.max(stats.maxRelative, rel(mine[k], lib[k]));
        expect(mine.M).toBe(lib.M);
        expect(mine.P).toBe(lib.P);
        if (lib.M > 0) stats.withM++;
        const libTarget = s.redirect(g);
        expect(page.redirect(g, s)).toBe(libTarget);
        if (libTarget >= 0) stats.redirects++;
      }
      return page.e2(request, s);
    };
    return { decide, stats };
  }

  it("on every GPU at every decision of long documents with a small KV budget (evictions) and of the hot spot (redirects)", () => {
    const a = comparing();
    runScenario("longDocQA", { decide: a.decide, capacityTokens: 60_000 });
    const b = comparing();
    runScenario("toolCallingHotSpot", { decide: b.decide }, {}, 2500);
    for (const s of [a.stats, b.stats]) {
      expect(s.decisions).toBeGreaterThanOrEqual(1000);
      expect(s.maxRelative).toBeLessThan(1e-12); // L: (Σ prefill + mean × Σ decode) in seconds vs. in nanoseconds ÷ 1e9
    }
    expect(a.stats.withM).toBeGreaterThan(0);
    expect(b.stats.redirects).toBeGreaterThan(0);
  }, 120_000);
});

describe("the page's priority groups", () => {
  it("take the same number from every group as the library's, on 03.5's hand-made queue and others", () => {
    for (const perGroup of [1, 3, 12, 40]) {
      for (const take of [5, 55, 200]) expect(quotaTaken(page.pagePriorityGroups(), perGroup, take)).toEqual(quotaTaken(priorityGroups(), perGroup, take));
    }
    const t = quotaOnPage(page.pagePriorityGroups());
    expect(t.rows.map((r) => r.page)).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(t.claims?.map((c) => c.verdict)).toEqual(["holds", "holds"]);
  });

  it("group a request as the library does, at and around the multiples of 1/10", () => {
    for (const prompt of [100, 37, 1000]) {
      for (let cached = 0; cached <= prompt; cached++) expect(page.groupOf(cached, prompt, 10)).toBe(priorityGroupOf(cached, prompt));
    }
  });

  it("admit as the library's in a video QA run under full Preble (identical decisions and metrics)", () => {
    const lib = runScenario("videoQA");
    const mine = runScenario("videoQA", {}, { localPolicy: () => page.pagePriorityGroups() });
    expect(mine.log).toEqual(lib.log);
    expect(mine.res.metrics).toEqual(lib.res.metrics);
  }, 120_000);
});

/** The library's formula, restated: 0 when nothing is cached, else ⌈10·ratio⌉ − 1 clipped to [0, 9]. */
function priorityGroupOf(cached: number, prompt: number): number {
  return cached <= 0 ? 0 : Math.min(9, Math.max(0, Math.ceil((10 * cached) / prompt) - 1));
}

describe("E2's rule on hand-built cases", () => {
  const sys: Segment = { id: 1, tokens: 13 };
  const doc: Segment = { id: 2, tokens: 3987 };
  /** A 4,000-token prefix dispatched first, then the same prefix with a question of `q` tokens: cached 4,000, missed q. */
  function boundary(q: number, options: Record<string, unknown>) {
    const first: ClusterRequest = { id: 0, arrival: 0, segments: [sys, doc, { id: 3, tokens: 200 }], promptTokens: 4200, outputTokens: 40, outputSegment: { id: 4, tokens: 40 }, key: 0, keySegment: 2 };
    const second: ClusterRequest = { id: 1, arrival: 1, segments: [sys, doc, { id: 5, tokens: q }], promptTokens: 4000 + q, outputTokens: 40, outputSegment: { id: 6, tokens: 40 }, key: 0, keySegment: 2 };
    return decideUnfinished([first, second], 4, { rebalance: false, autoscale: false, pairing: false, ...options })[1];
  }

  it("exploits when cached = missed + 1 and explores when cached = missed or missed − 1, as the library", () => {
    for (const [q, kind] of [[3999, "exploit"], [4000, "explore"], [4001, "explore"]] as const) {
      const lib = boundary(q, {});
      const mine = boundary(q, { decide: page.e2 });
      expect([lib.cached, lib.missed]).toEqual([4000, q]);
      expect(mine).toEqual(lib);
      expect(mine.kind).toBe(kind);
    }
  });

  /** A state with given match and load costs (pairing and rebalancing off), for the page's E2 alone: the helper
   * exercise 12 uses (lib/exercises/coding-preble.ts). */
  const state = (cached: number, missed: number, holders: number[], totals: number[]): PrebleState => e2StateWith({ cached, missed, holders, costs: totals });
  const request = { promptTokens: 100 } as ClusterRequest;

  it("chooses among the holders of the deepest match only when exploiting, among all GPUs when exploring; ties → lowest id", () => {
    // GPU 0 is the cheapest but holds nothing: exploit must stay within the holders {1, 3}.
    expect(page.e2(request, state(60, 40, [1, 3], [0.1, 5, 9, 2]))).toEqual({ gpu: 3, kind: "exploit" });
    expect(page.e2(request, state(40, 60, [1, 3], [0.1, 5, 9, 2]))).toEqual({ gpu: 0, kind: "explore" });
    expect(page.e2(request, state(60, 40, [1, 3], [0.1, 2, 9, 2]))).toEqual({ gpu: 1, kind: "exploit" });
    expect(page.e2(request, state(40, 60, [], [3, 1, 1, 2]))).toEqual({ gpu: 1, kind: "explore" });
    // The library's ties (lowest GPU id, not the position in the candidate list).
    expect(page.e2(request, state(60, 40, [2, 3], [0, 0, 4, 4]))).toEqual({ gpu: 2, kind: "exploit" });
  });
});

describe("editing the E2 cell changes the run", () => {
  it("exploit only when cached > 2 × missed: different decisions, a different table, the claim fails", () => {
    const edited = loadPageCode(NOTEBOOK, [RULE]);
    const options = { scenarios: ["longDocQA", "toolCalling"], requestCount: 1000 };
    const before = prebleOnPage({ decide: page.e2 }, options);
    const after = prebleOnPage({ decide: edited.e2 }, options);
    expect(before.claims?.[0].verdict).toBe("holds");
    expect(after.claims?.[0].verdict).toBe("fails");
    const pageRows = (t: typeof before) => t.rows.filter((r) => r.version === "page");
    expect(pageRows(before).every((r) => r.firstDiff === null)).toBe(true);
    expect(pageRows(after).some((r) => typeof r.firstDiff === "number")).toBe(true);
    expect(pageRows(after).map((r) => r.exploit)).not.toEqual(pageRows(before).map((r) => r.exploit));
    expect(after.rows).not.toEqual(before.rows);
    // The library's rows are the same run both times.
    expect(after.rows.filter((r) => r.version === "library")).toEqual(before.rows.filter((r) => r.version === "library"));
  }, 120_000);

  it("the edited rule explores where cached ≤ 2 × missed (a hand-built boundary)", () => {
    const edited = loadPageCode(NOTEBOOK, [RULE]);
    const s = (cached: number, missed: number) => ({ ...({} as PrebleState), gpus: [0, 1], match: { cached, missed, holders: [1] }, settings: { pairing: false, pairingPrefillTokens: 512, rebalance: false, thBal: 1.5, rebalanceAfter: 0 }, loadCost: (g: number) => ({ L: g, M: 0, P: 0, total: g }), redirect: () => -1 }) as PrebleState;
    const r = { promptTokens: 100 } as ClusterRequest;
    expect(edited.e2(r, s(67, 33))).toEqual({ gpu: 1, kind: "exploit" });
    expect(edited.e2(r, s(66, 33))).toEqual({ gpu: 0, kind: "explore" });
    expect(page.e2(r, s(66, 33))).toEqual({ gpu: 1, kind: "exploit" });
  });
});

describe("the decide option", () => {
  const step = new StepModel("MISTRAL_7B", "A6000");
  const context = { replicas: 4, step, kvCapacity: kvCapacityTokens("MISTRAL_7B", "A6000") };
  const burst = (decide: unknown) => simulateCluster({ workload: "toolCalling", rate: 10, replicas: 4, requestCount: 100, seed: 1, router: { name: "preble", decide } as { name: string } });

  it("a decision that is not a GPU index, or a decide that throws, is one Chinese line naming the request", () => {
    expect(() => burst(() => ({ gpu: -1, kind: "explore" }))).toThrow(/^参数 decide：第 0 个请求（提示 \d+ token）返回了 \{"gpu":-1,"kind":"explore"\}，应为 \{ gpu: 0–3 的整数/);
    expect(() => burst(() => ({ gpu: 1, kind: "guess" }))).toThrow(/返回了 .*guess/);
    expect(() => burst(() => ({ gpu: NaN, kind: "explore" }))).toThrow(/返回了/);
    expect(() => burst(() => undefined)).toThrow(/返回了 undefined/);
    expect(() => burst(() => {
      throw new TypeError("boom");
    })).toThrow(/^参数 decide：第 0 个请求（提示 \d+ token）出错：boom$/);
  });

  it("rejects a non-function, loadCost without decide, and the released pairing rule", () => {
    expect(() => new PrebleRouter(context, { decide: 3 })).toThrow(/参数 decide：应为一个函数/);
    expect(() => new PrebleRouter(context, { loadCost: page.loadCost })).toThrow(/参数 loadCost：只在给了 decide 时才用/);
    expect(() => new PrebleRouter(context, { decide: page.e2, pairingRule: "released" })).toThrow(/参数 decide：/);
  });
});
