// What E2's explore argmin sees (router option recordCandidates, demo 03.12): off by default, bounded, the chosen GPU
// is the argmin of the recorded L + M + P on every explore decision (by hand on three GPUs, and over whole runs under
// both readings), and recording changes nothing in the run.
import { describe, expect, it } from "vitest";
import { ParameterError } from "../lib/core/errors";
import { ClusterRequest, ClusterView, configurationOptions, generateWorkload, PrebleRouter, RequestRecord, simulateCluster } from "../lib/cluster/index";
import type { CandidateRecord } from "../lib/cluster/preble/candidates";
import { runDemo } from "../lib/demos/index";

import { capacity, prefill, request, step, tpot } from "./support/preble-hand";

function view(replicas: number, now = 0): ClusterView & { now: number } {
  return { replicaCount: replicas, now, kvCapacity: capacity, step, outstandingRequests: () => 0, queueLength: () => 0, pendingPrefillTokens: () => 0 } as unknown as ClusterView & { now: number };
}

function router(replicas: number, options: Record<string, unknown> = {}): PrebleRouter {
  return new PrebleRouter({ replicas, step, kvCapacity: capacity }, { rebalance: false, autoscale: false, pairing: false, capacityTokens: 100_000, ...options });
}

/** Routes `req` at `now` and dispatches it where the router chose (as the simulator would). */
function routeAndDispatch(r: PrebleRouter, req: ClusterRequest, replicas: number, now: number): number {
  const v = view(replicas, now);
  const g = r.route(req, v);
  const rec = new RequestRecord(req, now);
  rec.replica = g;
  r.onDispatch(rec, v);
  return g;
}

const candidatesOf = (stats: Record<string, unknown>) => stats.candidates as CandidateRecord;

/** Every recorded decision: the chosen GPU is the lowest L + M + P, ties to the lowest id. */
function expectArgmin(c: CandidateRecord): void {
  const R = c.replicas;
  expect(c.L.length).toBe(c.decision.length * R);
  for (let k = 0; k < c.decision.length; k++) {
    const totals = Array.from({ length: R }, (_, g) => c.L[k * R + g] + c.M[k * R + g] + c.P[k * R + g]);
    const best = totals.reduce((b, x, g) => (x < totals[b] ? g : b), 0);
    expect(c.chosen[k], `decision ${c.decision[k]}`).toBe(best);
  }
}

describe("recordCandidates: what E2's explore argmin sees", () => {
  const A = { id: 40, tokens: 1000 };
  const B = { id: 41, tokens: 800 };

  it("is off by default: no candidates in stats(); a bad value is a Chinese ParameterError", () => {
    const r = router(3);
    routeAndDispatch(r, request([A, { id: 42, tokens: 200 }]), 3, 0);
    expect("candidates" in r.stats()).toBe(false);
    expect(() => router(3, { recordCandidates: -1 })).toThrow(ParameterError);
    expect(() => router(3, { recordCandidates: 1.5 })).toThrow(/recordCandidates/);
  });

  it("by hand on three GPUs: L, M, P of every GPU at an explore decision; exploit decisions are not recorded", () => {
    const r = router(3, { recordCandidates: 10 });
    // Decision 0 (explore, cold): GPU 0. Decision 1 (explore, a new document): GPU 1 — GPU 0 carries L.
    expect(routeAndDispatch(r, request([A, { id: 42, tokens: 200 }]), 3, 0)).toBe(0);
    expect(routeAndDispatch(r, request([B, { id: 43, tokens: 100 }]), 3, 1)).toBe(1);
    // Decision 2: exploit (A cached on GPU 0, 1000 > 300 missed) — no argmin over every GPU, not recorded.
    expect(routeAndDispatch(r, request([A, { id: 44, tokens: 300 }]), 3, 1.5)).toBe(0);
    // Decision 3: a new 500-token document explores; GPU 2 is idle.
    expect(routeAndDispatch(r, request([{ id: 45, tokens: 500 }]), 3, 2)).toBe(2);
    const s = r.stats();
    const c = candidatesOf(s);
    expect(s).toMatchObject({ explore: 3, exploit: 1 });
    expect(c.explores).toBe(3);
    expect(c.decision).toEqual([0, 1, 3]);
    expect(c.time).toEqual([0, 1, 2]);
    expect(c.chosen).toEqual([0, 1, 2]);
    // Decision 3 by hand: no request finished, so the decode estimate uses the default 45 output tokens.
    const L0 = prefill(1200, 0) + 45 * tpot(1200) + prefill(300, 1000) + 45 * tpot(1300);
    const L1 = prefill(900, 0) + 45 * tpot(900);
    const k = 2 * 3;
    expect(c.L[k + 0]).toBeCloseTo(L0, 9);
    expect(c.L[k + 1]).toBeCloseTo(L1, 9);
    expect(c.L[k + 2]).toBe(0);
    for (let g = 0; g < 3; g++) {
      expect(c.P[k + g]).toBeCloseTo(prefill(500, 0), 9);
      expect(c.M[k + g]).toBe(0);
    }
    // Decision 1 by hand: GPU 0 carries the first request, GPUs 1 and 2 tie at L = 0 → the lowest id.
    expect(c.L.slice(3, 6).map((x) => Number(x.toFixed(9)))).toEqual([Number((prefill(1200, 0) + 45 * tpot(1200)).toFixed(9)), 0, 0]);
    expectArgmin(c);
  });

  it("is bounded by the option: the first N explore decisions are kept, all are counted", () => {
    const r = router(2, { recordCandidates: 2 });
    for (let i = 0; i < 5; i++) routeAndDispatch(r, request([{ id: 500 + i, tokens: 400 }]), 2, i);
    const c = candidatesOf(r.stats());
    expect(c.explores).toBe(5);
    expect(c.decision).toEqual([0, 1]);
    expect([c.L.length, c.M.length, c.P.length, c.time.length, c.chosen.length]).toEqual([4, 4, 4, 2, 2]);
  });

  const readings: Array<[string, Record<string, unknown>]> = [["lecture", {}], ["released", { decodeEstimate: "released", evictionEstimate: "memoryFull" }]];
  for (const [name, reading] of readings) {
    it(`over whole runs (${name} reading): the chosen GPU is the argmin of the recorded L + M + P; the run is unchanged with the record on`, () => {
      for (const [workload, rate, configuration] of [["longDocQA", 1, "e2+rebalance"], ["toolCalling", 16, "preble"]] as const) {
        const w = generateWorkload(workload, { rate, requestCount: 200, seed: 3 });
        const run = (extra: Record<string, unknown>) => simulateCluster({ workload: w, replicas: 3, ...configurationOptions(configuration, { ...reading, ...extra }) });
        const off = run({});
        const on = run({ recordCandidates: 1000 });
        expect(on.metrics).toEqual(off.metrics);
        expect(on.records.map((x) => [x.replica, x.finish])).toEqual(off.records.map((x) => [x.replica, x.finish]));
        const { candidates, ...rest } = on.routerStats as Record<string, unknown>;
        expect(rest).toEqual(off.routerStats);
        const c = candidates as CandidateRecord;
        // Only explore decisions (pairing ones are not an argmin over every GPU), all of them within the bound.
        expect(c.explores).toBe(on.routerStats.explore);
        expect(c.decision.length).toBe(c.explores);
        expect(c.explores).toBeGreaterThan(0);
        expectArgmin(c);
        // the GPU with the fewest requests in the window, recorded per decision, is the router's own count of the
        // explore decisions that chose it ("派得最少"; no pairing in e2+rebalance, so every explore is recorded)
        if (configuration === "e2+rebalance") expect(c.chosen.filter((g, k) => g === c.fewest[k]).length).toBe(on.routerStats.exploreSameAsCount);
        for (const g of c.fewest) expect(g >= 0 && g < 3).toBe(true);
      }
    });
  }
});

describe("demo 03.12", () => {
  it("the table's chosen rows are the argmin of L + M + P and the summary agrees with the candidate rows", () => {
    const t = runDemo("03.12", { requestCount: 200, decisions: 10 });
    for (const reading of ["argminLecture", "argminReleased"]) {
      const rows = t.rows.filter((r) => r.part === "argminCandidates" && r.reading === reading);
      expect(rows.length).toBe(10 * 4);
      for (let k = 0; k < 10; k++) {
        const mine = rows.filter((r) => r.explore === k);
        const chosen = mine.filter((r) => r.chosen === true);
        expect(chosen.length).toBe(1);
        expect(Math.min(...mine.map((r) => r.total as number))).toBe(chosen[0].total);
      }
      const summary = t.rows.find((r) => r.part === "argminSummary" && r.reading === reading);
      expect(summary).toMatchObject({ explores: 10, chosenIsArgmin: 1 });
    }
    expect(t.claims?.find((c) => c.id === "chosen-is-argmin")?.verdict).toBe("holds");
  });

  it("its chart as notebook 03 §3.3 draws it: the legend names each GPU, L, M + P and the chosen GPU; the dotted M + P lines lie over the crosses", async () => {
    const { facetLines, figureProblems, lectureReading, partOf, readableFigure } = await import("../lib/view");
    const c = partOf(lectureReading(runDemo("03.12", { requestCount: 200, decisions: 10 })), "argminCandidates");
    // the options of notebook 03's cell (code 03, demo 12)
    const f = facetLines(c, { facet: "reading", x: "explore", y: "Lgap", dashed: "MPgap", dashedName: "M + P", group: "gpu", legendTitle: "GPU（实线 L，点线 M + P）", markWhen: "chosen", columns: 1, height: 420, title: "每块 GPU 比最低的那块多出的 L 与 M + P（叉号 = 被选中的 GPU）", xTitle: "探索决定序号（热身之后）", yTitle: "L 比最低的多（秒）", dashedTitle: "M + P 比最低的多（秒）" });
    // before: "0", "0 · M + P" … "3 · M + P", "选中" (nine entries, the last scrolled out of a 420 px chart)
    expect(f.data.filter((d) => d.showlegend === true).map((d) => d.name)).toEqual(["GPU 0", "GPU 1", "GPU 2", "GPU 3", "L（窗口负载）", "M + P（淘汰代价 + 本请求的 prefill）", "被选中的 GPU（L + M + P 最小）"]);
    const dash = (d: Record<string, unknown>) => (d.line as { dash?: string } | undefined)?.dash;
    const drawn = f.data.map((d, i) => ({ d, i })).filter(({ d }) => Array.isArray(d.x) && d.x.some((v) => v !== null));
    const cross = drawn.filter(({ d }) => d.mode === "markers");
    const dotted = drawn.filter(({ d }) => dash(d) === "dot");
    expect(cross.length).toBe(1);
    expect(dotted.map(({ d }) => d.name)).toEqual(["GPU 0 · M + P", "GPU 1 · M + P", "GPU 2 · M + P", "GPU 3 · M + P"]);
    // before: each GPU's dotted line came right after its solid one, under the next GPU's line and under every cross
    expect(dotted.every(({ i }) => i > cross[0].i)).toBe(true);
    expect(drawn.filter(({ d }) => d.mode === "lines+markers").every(({ i }) => i < cross[0].i)).toBe(true);
    expect(dotted.every(({ d }) => Number((d.line as { width?: number }).width) >= 2.5)).toBe(true);
    const layout = f.layout as Record<string, { title?: unknown }>;
    expect(layout.xaxis.title).toBe("探索决定序号（热身之后）");
    expect(layout.yaxis.title).toMatch(/（秒）$/);
    // M + P (a hundredth of L) on an axis of its own at the right: the dotted lines on it, L's lines and the cross on L's
    expect(layout.yaxis2).toMatchObject({ title: "M + P 比最低的多（秒）", overlaying: "y", side: "right" });
    expect(dotted.every(({ d }) => d.yaxis === "y2")).toBe(true);
    expect(drawn.filter(({ d }) => dash(d) !== "dot").every(({ d }) => d.yaxis === "y")).toBe(true);
    expect(figureProblems(readableFigure(f))).toEqual([]);
  });
});
