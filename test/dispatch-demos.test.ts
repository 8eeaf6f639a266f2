// Demos 01.1–01.4: every verdict at default parameters, titles computed from the parameters used, stable row keys
// (other notebooks read them), claims that say "无法判断" instead of throwing, and Chinese parameter errors.
import { describe, expect, it } from "vitest";
import { ParameterError } from "../lib/core/errors";
import { cell, rowsWhere } from "../lib/core/table";
import type { Table } from "../lib/core/table";
import { herdingTimelines, runDemo } from "../lib/demos/index";
import { getDemo } from "../lib/demos/registry";
import { evaluateClaim } from "../lib/demos/claims";
import { claimsMarkdown } from "../lib/view/claims";
import { bars, lines, seriesLines } from "../lib/view/charts";
import { erlangArrivalsM1, mg1Mean, mm1, mmc, jobSizeMoments } from "../lib/dispatch/index";

const verdicts = (t: Table) => Object.fromEntries((t.claims ?? []).map((c) => [c.id, c.verdict]));
const claim = (t: Table, id: string) => {
  const c = (t.claims ?? []).find((x) => x.id === id);
  if (!c) throw new Error(`no claim ${id}`);
  return c;
};

describe("defaults: the verdicts of 01.1–01.4", () => {
  const tables = Object.fromEntries(["01.1", "01.2", "01.3", "01.4"].map((id) => [id, runDemo(id)]));
  it("01.1 balls into bins", () => {
    expect(verdicts(tables["01.1"])).toEqual({ "two-choice-exponential": "holds", "more-choices-constant": "holds", "formulas-give-the-order": "holds", "lecture-figures": "holds" });
  });
  it("01.2 five policies", () => {
    expect(verdicts(tables["01.2"])).toEqual({
      "load-aware-beats-blind": "holds",
      "exponential-theory": "holds",
      "round-robin-exponential": "holds",
      "jsq-near-shared-queue": "holds",
      "power-of-two-most-gain": "holds",
      // the lecture's "within noise": with 3 long heavy-tail runs round robin's smaller gain stands out of the noise
      "round-robin-fragile": "fails",
      "round-robin-gain-shrinks": "holds",
      "work-beats-count": "holds",
      "heavy-tail-pollaczek-khinchine": "holds",
      "few-giants": "holds",
    });
  });
  it("01.2: the lecture's runs (8 shorter heavy-tail seeds), which round-robin-fragile's reason names, do put the difference within the noise", () => {
    expect(claim(tables["01.2"], "round-robin-fragile").why).toContain("heavyTailJobs: 50000、heavyTailSeeds: 8");
    expect(claim(runDemo("01.2", { heavyTailJobs: 50000, heavyTailSeeds: 8 }), "round-robin-fragile").verdict).toBe("holds");
  });
  it("01.2 round-robin-fragile pairs the seeds: a small difference on every seed is outside the noise, a large one that flips sign is inside", () => {
    const c = (getDemo("01.2").claims ?? []).find((x) => x.id === "round-robin-fragile")!;
    const table = (random: number[], roundRobin: number[]): Table => ({
      ...tables["01.2"],
      claims: undefined,
      rows: [
        { sizes: "boundedPareto", policy: "random", mean: random.reduce((a, b) => a + b) / random.length, meanPerSeed: random.join(" / ") },
        { sizes: "boundedPareto", policy: "roundRobin", mean: roundRobin.reduce((a, b) => a + b) / roundRobin.length, meanPerSeed: roundRobin.join(" / ") },
      ],
    });
    const p = { ...getDemo("01.2").defaults } as never;
    // seeds far apart (sd of random 20) but round robin 2 faster on each: the paired difference has no spread
    expect(evaluateClaim(c, table([60, 100, 80], [58, 98.1, 77.9]), p).verdict).toBe("fails");
    // differences +10, −8, +4: mean 2, standard error ≈ 5.3, within the noise
    expect(evaluateClaim(c, table([60, 100, 80], [50, 108, 76]), p).verdict).toBe("holds");
    expect(evaluateClaim(c, table([60, 100], [58, 98]), p).verdict).toBe("unjudged");
  });
  it("01.3 power-of-two-holds: 'almost unaffected' means at most 20% slower at the longest interval than at the shortest", () => {
    const c = (getDemo("01.3").claims ?? []).find((x) => x.id === "power-of-two-holds")!;
    const table = (at0: number, at4: number): Table => ({
      ...tables["01.3"],
      claims: undefined,
      rows: [
        { refresh: 0, policy: "powerOfTwo", mean: at0, meanPerSeed: `${at0} / ${at0}` },
        { refresh: 4, policy: "powerOfTwo", mean: at4, meanPerSeed: `${at4} / ${at4}` },
      ],
    });
    const p = { ...getDemo("01.3").defaults } as never;
    expect(evaluateClaim(c, table(3, 3.5), p).verdict).toBe("holds");
    expect(evaluateClaim(c, table(3, 3.75), p).verdict).toBe("fails");
    expect(evaluateClaim(c, table(3, 3.75), p).why).toContain("慢 25%");
  });
  it("01.3 stale information", () => {
    expect(verdicts(tables["01.3"])).toEqual({ "jsq-degrades": "holds", "jsq-worse-than-random": "holds", "two-overtakes-jsq": "holds", "power-of-two-holds": "fails", "power-of-two-no-herding": "holds" });
  });
  it("01.4 herding", () => {
    expect(verdicts(tables["01.4"])).toEqual({ "jsq-herds": "holds", "two-choice-spreads": "holds", "herding-unbalances": "holds" });
  });
  it("claims resting on seeds say how many agree, over ≥ 3 seeds", () => {
    for (const [id, t] of Object.entries(tables)) {
      if (id === "01.1") continue;
      for (const c of t.claims ?? []) if (c.seeds) expect(c.seeds.total, `${id}/${c.id}`).toBeGreaterThanOrEqual(3);
    }
    expect(claim(tables["01.3"], "jsq-worse-than-random").seeds).toEqual({ agree: 4, total: 4 });
  });
  it("one random baseline: 01.2 (exponential), 01.3 and 01.4 share seeds, jobs and warm-up, so their shared rows agree", () => {
    const r12 = cell(tables["01.2"], { sizes: "exponential", policy: "random" }, "mean");
    for (const row of rowsWhere(tables["01.3"], { policy: "random" })) expect(row.mean).toBe(r12);
    expect(cell(tables["01.4"], { policy: "random" }, "mean")).toBe(r12);
    expect(cell(tables["01.3"], { refresh: 0, policy: "jsq" }, "mean")).toBe(cell(tables["01.2"], { sizes: "exponential", policy: "jsq" }, "mean"));
    expect(cell(tables["01.4"], { policy: "jsq" }, "mean")).toBe(cell(tables["01.3"], { refresh: 4, policy: "jsq" }, "mean"));
  });
  it("01.2 carries the exact theory beside the simulation", () => {
    const t = tables["01.2"];
    expect(cell(t, { sizes: "exponential", policy: "random" }, "theoryMean")).toBeCloseTo(mm1(0.9).mean, 12);
    expect(cell(t, { sizes: "exponential", policy: "roundRobin" }, "theoryMean")).toBeCloseTo(erlangArrivalsM1(16, 0.9).mean, 12);
    expect(cell(t, { sizes: "exponential", policy: "leastWorkLeft" }, "theoryP99")).toBeCloseTo(mmc(16, 0.9).quantile, 12);
    expect(cell(t, { sizes: "boundedPareto", policy: "random" }, "theoryMean")).toBeCloseTo(mg1Mean(0.9, jobSizeMoments("boundedPareto").secondMoment), 12);
    expect(rowsWhere(t, { sizes: "exponential", policy: "jsq" })[0].theoryMean).toBeNull();
    // the heavy-tailed random mean sits near Pollaczek–Khinchine (the runs are long enough), not 20% below it
    expect(cell(t, { sizes: "boundedPareto", policy: "random" }, "mean") / 92.33).toBeGreaterThan(0.85);
  });
  it("column keys other notebooks read stay stable", () => {
    expect(tables["01.1"].columns.map((c) => c.key)).toEqual(expect.arrayContaining(["n", "random", "twoChoice", "choice3", "choice4", "randomFormula", "twoChoiceFormula"]));
    expect(tables["01.1"].rows.map((r) => r.n)).toEqual([100, 1000, 10000, 100000, 1000000]);
    expect(tables["01.2"].columns.slice(0, 3).map((c) => c.key)).toEqual(["sizes", "policy", "mean"]);
    expect(tables["01.2"].columns.map((c) => c.key)).toContain("p99");
    expect(tables["01.3"].columns.slice(0, 3).map((c) => c.key)).toEqual(["refresh", "policy", "mean"]);
    expect(tables["01.4"].columns.map((c) => c.key)).toEqual(expect.arrayContaining(["policy", "mean", "topServerShare", "queueSpread", "longestQueue"]));
  });
  it("herdingTimelines: arrivals per server per refresh interval from the table's first seed, on one colour scale", () => {
    const [jsq, two] = herdingTimelines(tables["01.4"], { intervals: 12 });
    expect([jsq.policy, two.policy]).toEqual(["jsq", "powerOfTwo"]);
    expect(jsq.z).toHaveLength(16);
    expect(jsq.z[0]).toHaveLength(12);
    expect(jsq.zmax).toBe(two.zmax);
    // a herd: in a typical interval stale JSQ's busiest server gets far more than power of two's
    const busiest = (z: number[][]) => mean(z[0].map((_, k) => Math.max(...z.map((r) => r[k])) / z.reduce((a, r) => a + r[k], 0)));
    expect(busiest(jsq.z)).toBeGreaterThan(2 * busiest(two.z));
    expect(jsq.title).toContain("T = 4");
  });
});

describe("charts: error bars from the ± columns", () => {
  it("bars, lines and seriesLines take a column of ± values", () => {
    const t = runDemo("01.3", { jobs: 3000, seeds: 3, refreshIntervals: [0, 2] });
    const f = lines(t, { x: "refresh", y: "mean", group: "policy", error: "meanSd", yTitle: "平均响应（个服务时间）" });
    const jsq = f.data[0] as { name: string; error_y: { array: number[] } };
    expect(jsq.name).toBe("最短队列 (JSQ)");
    expect(jsq.error_y.array).toEqual(rowsWhere(t, { policy: "jsq" }).map((r) => r.meanSd));
    expect((f.layout?.legend as { title: { text: string } }).title.text).toBe("策略");
    const b = bars(t, { x: "policy", y: "mean", group: "refresh", error: "meanSd" });
    expect((b.data[1] as { error_y: { array: number[] } }).error_y.array).toHaveLength(3);
    const t1 = runDemo("01.1", { ns: [100, 1000], trials: 3, choices: [1, 2] });
    const s = seriesLines(t1, { x: "n", logX: true, yTitle: "球数", series: [{ y: "random", error: "randomSd" }, { y: "randomFormula", dash: true }] });
    expect(s.data.map((d) => d.name)).toEqual(["随机 (d = 1)", "公式 ln n / ln ln n"]);
    expect(s.layout?.xaxis).toMatchObject({ type: "log", dtick: 1 });
  });
});

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

describe("titles and notes from the parameters used", () => {
  it("--servers=4 says 4 servers; ρ, T and the policies appear as run", () => {
    const t = runDemo("01.2", { servers: 4, utilization: 0.8, jobs: 3000, heavyTailJobs: 3000, policies: ["random", "jsq"] });
    expect(t.title).toContain("4 台");
    expect(t.title).toContain("ρ = 0.8");
    expect(t.title).not.toContain("16");
    expect(t.notes?.join(" ")).toContain("0.8·4");
    expect(cell(t, { sizes: "exponential", policy: "random" }, "theoryMean")).toBeCloseTo(5, 12);
    const t3 = runDemo("01.3", { servers: 8, jobs: 3000, seeds: 3, refreshIntervals: [1, 2] });
    expect(t3.title).toContain("8 台");
    const t4 = runDemo("01.4", { refresh: 2, jobs: 3000, seeds: 3 });
    expect(t4.title).toContain("每 2 个服务时间");
    expect(t4.notes?.join(" ")).toContain("长 2 的刷新间隔");
    const t1 = runDemo("01.1", { ns: [500, 5000], choices: [1, 3], trials: 3 });
    expect(t1.title).toContain("1、3 个盒子");
    expect(t1.title).toContain("500 … 5,000");
  });
});

describe("a reader's changed parameters: claims say what they need, never throw", () => {
  it("01.3 without T = 0 (the README's example) still judges what it can", () => {
    const t = runDemo("01.3", { refreshIntervals: [1, 2, 4], jobs: 5000, seeds: 3 });
    expect(t.claims?.every((c) => c.error === undefined)).toBe(true);
    expect(claim(t, "jsq-worse-than-random").verdict).not.toBe("unjudged");
    expect(() => claimsMarkdown(t)).not.toThrow();
  });
  it("01.2 without round robin: the round-robin claims are unjudged, naming the missing row", () => {
    const t = runDemo("01.2", { policies: ["random", "jsq", "powerOfTwo", "leastWorkLeft"], jobs: 4000, heavyTailJobs: 4000 });
    const c = claim(t, "round-robin-fragile");
    expect(c.verdict).toBe("unjudged");
    expect(c.reason).toContain("策略 = 轮转");
    expect(claim(t, "load-aware-beats-blind").verdict).not.toBe("unjudged");
  });
  it("01.2 with exponential sizes only, 01.3 without random, 01.4 without JSQ", () => {
    expect(claim(runDemo("01.2", { sizes: ["exponential"], jobs: 3000 }), "work-beats-count").verdict).toBe("unjudged");
    expect(claim(runDemo("01.3", { policies: ["jsq", "powerOfTwo"], jobs: 3000, seeds: 3 }), "power-of-two-no-herding").reason).toContain("随机");
    expect(claim(runDemo("01.4", { policies: ["random", "powerOfTwo"], jobs: 3000, seeds: 3 }), "jsq-herds").verdict).toBe("unjudged");
    expect(claim(runDemo("01.1", { ns: [1000], trials: 3 }), "two-choice-exponential").verdict).toBe("unjudged");
  });
});

describe("bad input: one Chinese line naming the parameter", () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ["01.2", { utilization: 1 }, /^参数 utilization：应为 > 0 且 < 1 的有限数，实际是 1$/],
    ["01.2", { policies: ["random", "fastest"] }, /^参数 policies\[1\]：应为以下之一/],
    ["01.2", { policies: ["random", "random"] }, /^参数 policies\[1\]：重复了/],
    ["01.2", { sizes: ["pareto"] }, /^参数 sizes\[0\]/],
    ["01.2", { jobs: 0 }, /^参数 jobs：/],
    ["01.2", { heavyTailSeeds: 0 }, /^参数 heavyTailSeeds：/],
    ["01.2", { servers: 2.5 }, /^参数 servers：应为 ≥ 1 且 ≤ 1000 的整数/],
    ["01.3", { refreshIntervals: [0, -2] }, /^参数 refreshIntervals\[1\]：应为 ≥ 0/],
    ["01.3", { refreshIntervals: [] }, /^参数 refreshIntervals：应为非空数组/],
    ["01.1", { ns: [0] }, /^参数 ns\[0\]：/],
    ["01.1", { choices: [1, 9] }, /^参数 choices\[1\]：应为 ≥ 1 且 ≤ 8 的整数/],
    ["01.4", { refresh: 0 }, /^参数 refresh：应为 > 0/],
    ["01.4", { policies: ["jsq", 3] }, /^参数 policies\[1\]/],
    ["01.4", { warmupFraction: 1 }, /^参数 warmupFraction：/],
  ];
  for (const [id, params, message] of cases) {
    it(`${id} ${JSON.stringify(params)}`, () => {
      let error: unknown;
      try {
        runDemo(id, params);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ParameterError);
      expect((error as Error).message).toMatch(message);
    });
  }
});
