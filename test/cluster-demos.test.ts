// The shapes of 代码 02's demos (§2.2–§2.5), at reduced run lengths where the shape still holds.
import { describe, expect, it } from "vitest";
import { cell, rowWhere, rowsWhere, Table } from "../lib/core/table";
import { runDemo } from "../lib/demos/index";
import { LOAD_ONLY_POLICIES } from "../lib/demos/cache-vs-balance";

const COUNTS = [800, 1200, 2400];
const WORKLOADS = ["longDocQA", "videoQA", "toolCalling"];
const keys = (t: Table) => t.columns.map((c) => c.key);

describe("02.1 load-only vs cache-aware routing", () => {
  const t = runDemo("02.1", { requestCounts: COUNTS, policies: ["roundRobin", "leastLoad", "powerOfTwo", "prefixAffinity", "thresholdAffinity"] });

  it("has the issue's columns", () => {
    expect(keys(t)).toEqual(["workload", "policy", "meanLatency", "p99Latency", "hitRate", "replication", "maxShare"]);
  });

  it("load-only policies hit ≈ 0.33 on long documents; threshold affinity much more, with lower latency", () => {
    const loadOnly = ["roundRobin", "leastLoad", "powerOfTwo"];
    for (const p of loadOnly) {
      const hit = cell(t, { workload: "longDocQA", policy: p }, "hitRate");
      expect(hit).toBeGreaterThan(0.25);
      expect(hit).toBeLessThan(0.4);
    }
    const affinityHit = cell(t, { workload: "longDocQA", policy: "thresholdAffinity" }, "hitRate");
    expect(affinityHit).toBeGreaterThan(0.48);
    expect(affinityHit).toBeLessThan(0.68);
    for (const w of WORKLOADS) {
      const bestLoadOnly = Math.min(...loadOnly.map((p) => cell(t, { workload: w, policy: p }, "meanLatency")));
      const ratio = bestLoadOnly / cell(t, { workload: w, policy: "thresholdAffinity" }, "meanLatency");
      // The lecture: 1.4–2.3× across the three workloads (1.8× on long documents).
      expect(ratio, w).toBeGreaterThan(1.25);
      expect(ratio, w).toBeLessThan(3.5);
      expect(cell(t, { workload: w, policy: "thresholdAffinity" }, "hitRate")).toBeGreaterThan(Math.max(...loadOnly.map((p) => cell(t, { workload: w, policy: p }, "hitRate"))) + 0.05);
    }
  });

  it("pure prefix affinity sends everything to one replica and is flagged overloaded", () => {
    for (const w of WORKLOADS) expect(cell(t, { workload: w, policy: "prefixAffinity" }, "maxShare")).toBeGreaterThan(0.99);
    const note = (t.notes ?? []).find((n) => n.startsWith("Overloaded")) ?? "";
    for (const w of WORKLOADS) expect(note).toContain(`${w} / prefixAffinity`);
    expect(note).not.toContain("thresholdAffinity");
  });

  it("round robin replicates content across replicas; affinity keeps one copy", () => {
    expect(cell(t, { workload: "longDocQA", policy: "roundRobin" }, "replication")).toBeGreaterThan(1.15);
    for (const w of WORKLOADS) expect(cell(t, { workload: w, policy: "thresholdAffinity" }, "replication")).toBeLessThan(1.03);
  });

  it("states the rates, the load criterion and the warm-up rule", () => {
    const notes = (t.notes ?? []).join("\n");
    expect(notes).toMatch(/videoQA at 3 req\/s/);
    expect(notes).toMatch(/toolCalling at 36 req\/s/);
    expect(notes).toMatch(/warm-up/);
  });
});

describe("02.2 the cluster's total cache", () => {
  const t = runDemo("02.2", { requestsPerReplica: 200 });
  it("round robin's hit rate stays flat while affinity's grows with the replicas", () => {
    expect(keys(t)).toEqual(["replicas", "policy", "hitRate", "meanLatency", "distinctCachedDocs"]);
    const rr = [2, 4, 8].map((n) => cell(t, { replicas: n, policy: "roundRobin" }, "hitRate"));
    const aff = [2, 4, 8].map((n) => cell(t, { replicas: n, policy: "thresholdAffinity" }, "hitRate"));
    expect(Math.max(...rr) - Math.min(...rr)).toBeLessThan(0.06);
    for (const h of rr) expect(Math.abs(h - 0.32)).toBeLessThan(0.06);
    expect(aff[1]).toBeGreaterThan(aff[0] + 0.05);
    expect(aff[2]).toBeGreaterThan(aff[1] + 0.05);
    expect(aff[1]).toBeGreaterThan(0.48);
    // Affinity partitions documents: more distinct documents in the cluster, growing with replicas.
    const docs = [2, 4, 8].map((n) => cell(t, { replicas: n, policy: "thresholdAffinity" }, "distinctCachedDocs"));
    expect(docs[2]).toBeGreaterThan(docs[1]);
    expect(docs[1]).toBeGreaterThan(docs[0]);
    expect(docs[2]).toBeGreaterThan(cell(t, { replicas: 8, policy: "roundRobin" }, "distinctCachedDocs"));
  });
});

describe("02.3 threshold sweep", () => {
  const t = runDemo("02.3", { requestCounts: COUNTS, thresholds: [0.1, 0.25, 0.5, 0.75, 0.9] });
  it("flat for θ in 0.25–0.75, herding at 0.1, long documents lose at 0.9", () => {
    expect(keys(t)).toEqual(["workload", "threshold", "meanLatency", "hitRate"]);
    for (const w of WORKLOADS) {
      const mid = [0.25, 0.5, 0.75].map((th) => cell(t, { workload: w, threshold: th }, "meanLatency"));
      expect(Math.max(...mid) / Math.min(...mid), w).toBeLessThan(1.2);
    }
    // θ = 0.1: the shared system prompt of tool calling (≈ 16% of a prompt) triggers affinity → herding.
    expect(cell(t, { workload: "toolCalling", threshold: 0.1 }, "meanLatency")).toBeGreaterThan(5 * cell(t, { workload: "toolCalling", threshold: 0.5 }, "meanLatency"));
    expect((t.notes ?? []).join("\n")).toMatch(/Herding.*toolCalling θ=0\.1/);
    // θ = 0.9: the question (≈ 9% of a long-document prompt) keeps many requests below the threshold.
    expect(cell(t, { workload: "longDocQA", threshold: 0.9 }, "meanLatency")).toBeGreaterThan(1.1 * cell(t, { workload: "longDocQA", threshold: 0.5 }, "meanLatency"));
    expect(cell(t, { workload: "longDocQA", threshold: 0.9 }, "hitRate")).toBeLessThan(cell(t, { workload: "longDocQA", threshold: 0.5 }, "hitRate") - 0.05);
    expect(rowsWhere(t, { workload: "videoQA" }).length).toBe(5);
  });
});

describe("02.4 hot spot", () => {
  const t = runDemo("02.4", { requestCount: 4000, policies: [...LOAD_ONLY_POLICIES.filter((p) => p !== "random"), "thresholdAffinity", "cacheAwareGuarded"] });
  it("threshold affinity collapses onto the hot tool's replica; the load guard keeps the hit rate and beats load-only", () => {
    expect(keys(t)).toEqual(["policy", "meanLatency", "p99Latency", "hitRate", "maxShare"]);
    const ta = rowWhere(t, { policy: "thresholdAffinity" });
    const guarded = rowWhere(t, { policy: "cacheAwareGuarded" });
    expect(ta.maxShare as number).toBeGreaterThan(0.3);
    expect((t.notes ?? []).join("\n")).toMatch(/Overloaded: thresholdAffinity/);
    expect(Math.abs((guarded.hitRate as number) - (ta.hitRate as number))).toBeLessThan(0.03);
    expect(guarded.hitRate as number).toBeGreaterThan(0.78);
    expect(guarded.maxShare as number).toBeLessThan(0.2);
    const loadOnly = ["roundRobin", "leastLoad", "powerOfTwo"].map((p) => rowWhere(t, { policy: p }));
    for (const r of loadOnly) {
      expect(guarded.meanLatency as number).toBeLessThan(r.meanLatency as number);
      expect(guarded.hitRate as number).toBeGreaterThan((r.hitRate as number) + 0.04);
    }
  });
});
