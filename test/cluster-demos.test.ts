// 代码 02 (§2): every demo's verdicts at its default parameters, titles computed from the parameters used, Chinese
// errors naming the parameter, stable row identifiers (notebook 05 reads 02.1's rows), and the mechanisms the
// notebook's prose states (the tie rule behind 02.3's θ = 0.75 on tool calling).
import { describe, expect, it } from "vitest";
import { ParameterError } from "../lib/core/errors";
import { cell, rowsWhere, Table } from "../lib/core/table";
import { runDemo } from "../lib/demos/index";
import { generateWorkload, simulateCluster, thresholdAffinityRouter } from "../lib/cluster/index";

const verdicts = (t: Table) => Object.fromEntries((t.claims ?? []).map((c) => [c.id, c.verdict]));
const claim = (t: Table, id: string) => (t.claims ?? []).find((c) => c.id === id);
const keys = (t: Table) => t.columns.map((c) => c.key);

/** The verdict of every claim at default parameters (what the notebook shows). */
const AT_DEFAULTS: Record<string, Record<string, "holds" | "fails">> = {
  "02.1": { "load-only-hit": "holds", "threshold-hit": "holds", "threshold-latency": "holds", "pure-affinity-collapse": "holds", replication: "holds", "only-landed-cache": "holds" },
  "02.2": { "load-only-flat": "holds", "affinity-grows": "holds", "round-robin-total-cache": "fails", "affinity-more-content": "holds", "only-landed-cache": "holds" },
  "02.3": { plateau: "fails", "plateau-to-half": "holds", "tool-calling-at-three-quarters": "holds", "low-theta-herds": "holds", "high-theta-long-docs": "holds", "high-theta-video": "holds" },
  "02.4": { "affinity-hot-collapse": "holds", "guard-keeps-hit": "holds", "guard-beats-load-only": "holds" },
  "02.5": { "system-prompt-collapses": "holds", "lowest-index-collapses-anyway": "holds", "least-load-spreads": "holds" },
  "02.6": { "prompts-dominate": "holds", "sharing-common": "holds", "key-portion-large": "holds", "programming-decodes-most": "holds", "one-replica-few-documents": "holds", "zipf-top-three": "holds" },
  "02.7": { "prompt-several-times-output": "holds", "gaps-span-orders": "holds", "code-is-bursty": "holds" },
  "02.8": { "round-robin-hot-everywhere": "holds", "affinity-one-home": "holds" },
  "02.9": { "collapse-piles-up": "holds", "spread-stays-level": "holds" },
  "02.10": { "hot-spot-grows": "holds", "guard-keeps-level": "holds" },
};

const DEFAULTS = new Map<string, Table>();
const atDefaults = (id: string): Table => {
  if (!DEFAULTS.has(id)) DEFAULTS.set(id, runDemo(id));
  return DEFAULTS.get(id) as Table;
};

describe("代码 02 at default parameters: every verdict", () => {
  for (const [id, expected] of Object.entries(AT_DEFAULTS)) {
    it(`${id}`, () => {
      const t = atDefaults(id);
      expect(verdicts(t)).toEqual(expected);
      for (const c of t.claims ?? []) expect(c.error, `${id}/${c.id}`).toBeUndefined();
    }, 120_000);
  }

  it("rankings and ratios are judged on 3 seeds and say how many agree", () => {
    for (const [id, c] of [["02.1", "threshold-hit"], ["02.1", "threshold-latency"], ["02.2", "affinity-grows"], ["02.3", "plateau"], ["02.3", "plateau-to-half"], ["02.4", "guard-beats-load-only"], ["02.5", "least-load-spreads"]] as const) {
      const r = claim(atDefaults(id), c);
      expect(r?.seeds?.total, `${id}/${c}`).toBe(3);
      expect(r?.ours, `${id}/${c}`).toMatch(/3 个种子/);
    }
    expect(claim(atDefaults("02.1"), "threshold-latency")?.seeds?.agree).toBe(3);
  }, 120_000);
});

describe("the figures behind the verdicts", () => {
  it("02.1: rows keyed by (workload, policy) with the columns notebook 05 reads; the oracle column", () => {
    const t = atDefaults("02.1");
    expect(keys(t)).toEqual(["workload", "policy", "meanLatency", "p99Latency", "hitRate", "dispatchHitRate", "oracleHitRate", "replication", "maxShare", "overloaded"]);
    for (const w of ["longDocQA", "videoQA", "toolCalling"]) for (const p of ["leastLoad", "prefixAffinity", "thresholdAffinity"]) expect(rowsWhere(t, { workload: w, policy: p }).length).toBe(1);
    // round robin on long documents: ≈ 0.5 of the prompt cached somewhere, ≈ 0.31 where the request lands
    expect(cell(t, { workload: "longDocQA", policy: "roundRobin" }, "oracleHitRate")).toBeGreaterThan(0.45);
    expect(cell(t, { workload: "longDocQA", policy: "roundRobin" }, "dispatchHitRate")).toBeLessThan(0.36);
    expect(cell(t, { workload: "longDocQA", policy: "roundRobin" }, "replication")).toBeGreaterThan(1.2);
    for (const r of t.rows) expect(r.oracleHitRate as number).toBeGreaterThanOrEqual(r.dispatchHitRate as number);
  });

  it("02.2: round robin holds ≈ 30 documents' worth of distinct content on 4 replicas, affinity ≈ 39", () => {
    const t = atDefaults("02.2");
    const rr = cell(t, { replicas: 4, policy: "roundRobin" }, "distinctDocs");
    const th = cell(t, { replicas: 4, policy: "thresholdAffinity" }, "distinctDocs");
    expect(rr).toBeGreaterThan(25);
    expect(rr).toBeLessThan(35);
    expect(th).toBeGreaterThan(35);
    expect(th).toBeLessThan(45);
  });

  it("02.5: the issue's 2 × 2 — one replica takes everything except without the system prompt under least-load ties", () => {
    const t = atDefaults("02.5");
    expect(cell(t, { prompt: "systemPrompt", ties: "lowestIndex" }, "maxShare")).toBe(1);
    expect(cell(t, { prompt: "systemPrompt", ties: "leastLoad" }, "maxShare")).toBe(1);
    expect(cell(t, { prompt: "noSystemPrompt", ties: "lowestIndex" }, "maxShare")).toBeGreaterThan(0.99);
    const spread = cell(t, { prompt: "noSystemPrompt", ties: "leastLoad" }, "maxShare");
    expect(spread).toBeGreaterThan(0.25);
    expect(spread).toBeLessThan(0.45);
    expect(cell(t, { prompt: "noSystemPrompt", ties: "leastLoad" }, "meanLatency")).toBeLessThan(8);
  });

  it("02.3 with ties: leastLoad (the prose's suggestion): θ = 0.75 no longer hurts tool calling, and the claim says why", () => {
    const t = runDemo("02.3", { workloads: ["toolCalling"], rates: [36], requestCounts: [4000], thresholds: [0.5, 0.75], ties: "leastLoad", seeds: 1 });
    const c = (t.claims ?? []).find((x) => x.id === "tool-calling-at-three-quarters");
    expect(c?.verdict).toBe("fails");
    expect(c?.why).toMatch(/平局取负载最轻/);
    expect(t.notes?.[0]).toMatch(/ties = leastLoad/);
    expect(() => runDemo("02.3", { ties: "leastload" })).toThrow(/^参数 ties：/);
  });

  it("02.5: 'whatever the tie rule' is judged only when both tie rules ran (one rule: cannot be judged, and says why)", () => {
    const one = runDemo("02.5", { requestCount: 200, seeds: 1, ties: ["leastLoad"] });
    const c = (one.claims ?? []).find((x) => x.id === "system-prompt-collapses");
    expect(c?.verdict).toBe("unjudged");
    expect(c?.why).toMatch(/两种平局规则都跑过/);
  });

  it("02.3: θ = 0.75 on tool calling is worse only because of lowest-index ties (the notebook's explanation)", () => {
    const ratio = (ties: "lowestIndex" | "leastLoad", seed: number) => {
      const w = generateWorkload("toolCalling", { rate: 36, seed, requestCount: 4000 });
      const at = (th: number) => simulateCluster({ workload: w, replicas: 4, router: () => thresholdAffinityRouter(th, ties), seed }).metrics.meanLatency;
      return at(0.75) / at(0.5);
    };
    const lowest = [1, 2, 3].map((s) => ratio("lowestIndex", s));
    const least = [1, 2, 3].map((s) => ratio("leastLoad", s));
    expect(lowest.reduce((a, b) => a + b, 0) / 3).toBeGreaterThan(1.1);
    for (const r of least) expect(r).toBeLessThan(1.08);
  }, 60_000);
});

describe("titles and notes are computed from the parameters used", () => {
  it("02.4 --replicas=4 says 4 replicas", () => {
    const t = runDemo("02.4", { replicas: 4, requestCount: 600, seeds: 1, policies: ["roundRobin", "cacheAwareGuarded"] });
    expect(t.title).toContain("4 个副本");
    expect(t.title).not.toContain("8 个副本");
    expect(t.title).toContain("种子 1");
    expect((t.notes ?? []).join("")).toContain("平均每个副本只该分到 25.0%");
  });
  it("02.1, 02.2, 02.3, 02.5: replicas, rates and seeds in the titles", () => {
    expect(runDemo("02.1", { replicas: 2, workloads: ["videoQA"], seeds: 1, policies: ["roundRobin"] }).title).toMatch(/2 个副本.*种子 1/);
    expect(runDemo("02.2", { replicas: [2], ratePerReplica: 0.5, requestsPerReplica: 40, seeds: 2, policies: ["roundRobin"] }).title).toMatch(/每个副本 0\.5 请求\/秒，2 个种子（1–2）的均值/);
    expect(runDemo("02.3", { replicas: 3, workloads: ["longDocQA"], thresholds: [0.5], requestCounts: [200], rates: [1], seeds: 1 }).title).toContain("3 个副本");
    expect(runDemo("02.5", { replicas: 6, rate: 1.5, requestCount: 200, seeds: 1, systemPrompt: ["noSystemPrompt"], ties: ["leastLoad"] }).title).toMatch(/6 个副本，1\.5 请求\/秒/);
    expect(runDemo("02.8", { replicas: 3, requestCount: 200, topRanks: 5 }).title).toContain("3 个副本");
    expect(runDemo("02.6", { workloads: ["agent"], requestCount: 100 }).title).toContain("100 个请求");
  }, 30_000);
  it("changing workloads alone keeps each workload's rate and run length", () => {
    const t = runDemo("02.1", { workloads: ["videoQA"], seeds: 1, policies: ["leastLoad"] });
    expect((t.notes ?? [])[0]).toContain("视频问答 3 请求/秒（2000 个请求）");
  });
});

describe("bad parameters: one Chinese line naming the parameter", () => {
  const refuses = (id: string, params: Record<string, unknown>, pattern: RegExp) => {
    let error: unknown;
    try {
      runDemo(id, params);
    } catch (e) {
      error = e;
    }
    expect(error, `${id} ${JSON.stringify(params)}`).toBeInstanceOf(ParameterError);
    expect((error as Error).message).toMatch(pattern);
  };
  it("an unknown workload is named before any length cross-check", () => {
    refuses("02.1", { workloads: ["chat"] }, /^参数 workloads\[0\]：应为以下之一.*实际是 "chat"/);
    refuses("02.3", { workloads: ["longDocQA", "chat"], rates: [1] }, /^参数 workloads\[1\]/);
  });
  it("lengths, ranges, names", () => {
    refuses("02.1", { rates: [1, 2] }, /^参数 rates：应与 workloads 一一对应（workloads 有 3 项/);
    refuses("02.1", { workloads: ["agent"] }, /^参数 rates：负载 agent 没有默认的请求率/);
    refuses("02.1", { rates: [1, 0, 36] }, /^参数 rates\[1\]：应为 > 0/);
    refuses("02.1", { policies: ["roundRobin", "fastest"] }, /^参数 policies\[1\]/);
    refuses("02.1", { seeds: 0 }, /^参数 seeds：应为 ≥ 1 且 ≤ 10 的整数/);
    refuses("02.2", { replicas: [2, 0] }, /^参数 replicas\[1\]：应为 ≥ 1 且 ≤ 64 的整数/);
    refuses("02.3", { thresholds: [0.5, 1.5] }, /^参数 thresholds\[1\]：应为 ≥ 0 且 ≤ 1/);
    refuses("02.4", { rate: -1 }, /^参数 rate：/);
    refuses("02.5", { ties: ["random"] }, /^参数 ties\[0\]：应为以下之一："lowestIndex"、"leastLoad"/);
    refuses("02.5", { systemPrompt: ["yes"] }, /^参数 systemPrompt\[0\]/);
    refuses("02.9", { scenarios: ["hotSpotGuarded"] }, /^参数 scenarios\[0\]：应为以下之一："affinityCollapse"/);
    refuses("02.8", { topRanks: 0 }, /^参数 topRanks/);
  });
});
