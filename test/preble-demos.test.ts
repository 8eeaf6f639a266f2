// Demo shapes of 代码 03 (the lecture's conclusions), at reduced sizes where the shape still holds.
import { describe, expect, it } from "vitest";
import { cell, rowWhere, rowsWhere } from "../lib/core/table";
import { hotSpotShareOverTime } from "../lib/cluster/index";
import { runDemo } from "../lib/demos/index";
import { ParameterError } from "../lib/core/errors";

const num = (x: unknown) => x as number;

describe("03.1 Figure 3 on paper", () => {
  const t = runDemo("03.1", { workloads: ["videoQA", "longDocQA"], rates: { videoQA: [4, 8], longDocQA: [1] }, minRequests: 1000, minSeconds: 0 });
  const mean = (workload: string, rate: number, policy: string) => cell(t, { workload, rate, policy }, "meanLatency");

  it("has the issue's columns and one row per workload × rate × configuration", () => {
    for (const key of ["workload", "rate", "policy", "meanLatency", "p99Latency", "overloaded"]) expect(t.columns.map((c) => c.key)).toContain(key);
    expect(t.rows.length).toBe(3 * 4);
  });

  it("video QA gains most: cache-aware configurations ≥ 3× faster than round robin before it overloads", () => {
    expect(rowWhere(t, { workload: "videoQA", rate: 4, policy: "baseline" }).overloaded).toBe(false);
    for (const p of ["cacheAwareGuarded", "e2+rebalance", "preble"]) expect(mean("videoQA", 4, "baseline") / mean("videoQA", 4, p)).toBeGreaterThan(3);
  });

  it("an overloaded baseline is flagged and its ratio is not called a speed-up", () => {
    const rows = rowsWhere(t, { workload: "videoQA", rate: 8 });
    expect(rows.find((r) => r.policy === "baseline")?.overloaded).toBe(true);
    for (const r of rows.filter((x) => x.policy !== "baseline")) expect(r.ratioKind).toBe("baseline overloaded: not a speed-up");
    expect(t.notes?.join(" ")).toMatch(/not a speed-up/);
  });

  it("the lecture's comparisons: cacheAwareGuarded not worse than preble on long documents at 1 req/s; video at 8 req/s e2+rebalance well behind preble", () => {
    expect(mean("longDocQA", 1, "cacheAwareGuarded")).toBeLessThan(mean("longDocQA", 1, "preble"));
    expect(mean("videoQA", 8, "e2+rebalance")).toBeGreaterThan(1.5 * mean("videoQA", 8, "preble"));
    expect(t.notes?.join(" ")).toMatch(/Long documents at 1 req\/s: cacheAwareGuarded .* vs preble/);
  });

  it("rejects a workload without rates and unknown configurations", () => {
    expect(() => runDemo("03.1", { workloads: ["agent"], rates: {} })).toThrow(/rates/);
    expect(() => runDemo("03.1", { configurations: ["sglang"] })).toThrow(ParameterError);
  });
});

describe("03.2 cost terms and pairing", () => {
  it("L dominates M and P by orders of magnitude; M is almost nothing", () => {
    const t = runDemo("03.2", { parts: ["costs"], costRates: { longDocQA: 1, toolCalling: 32 }, minRequests: 800, minSeconds: 100 });
    for (const key of ["workload", "L", "M", "P"]) expect(t.columns.map((c) => c.key)).toContain(key);
    for (const r of t.rows) {
      expect(num(r.LShare)).toBeGreaterThan(0.95);
      expect(num(r.LoverP)).toBeGreaterThan(40);
      expect(num(r.M)).toBeLessThan(0.1 * num(r.P));
    }
    // Tool calling's tiny prefills: L / P in the thousands (lecture: up to ≈ 20,000×).
    expect(cell(t, { part: "costs", workload: "toolCalling" }, "LoverP")).toBeGreaterThan(1000);
  });

  it("pairing hurts long documents' P99 (a long prefill lands on a GPU that is decoding)", () => {
    const t = runDemo("03.2", { parts: ["pairing"], pairingRates: { longDocQA: 1 } });
    for (const key of ["workload", "pairing", "meanLatency", "p99Latency"]) expect(t.columns.map((c) => c.key)).toContain(key);
    const on = cell(t, { part: "pairing", workload: "longDocQA", pairing: true }, "p99Latency");
    const off = cell(t, { part: "pairing", workload: "longDocQA", pairing: false }, "p99Latency");
    expect(on).toBeGreaterThan(off);
    expect(cell(t, { part: "pairing", workload: "longDocQA", pairing: true }, "paired")).toBeGreaterThan(50);
  });
});

describe("03.3 hot spot", () => {
  const t = runDemo("03.3");
  const rows = (policy: string) => rowsWhere(t, { policy });

  it("E2 without rebalancing collapses like threshold affinity: the hot tool's replica takes ≈ 40% and queues grow", () => {
    for (const p of ["e2", "thresholdAffinity"]) {
      const r = rows(p)[0];
      expect(num(r.maxShare)).toBeGreaterThan(0.35);
      expect(r.overloaded).toBe(true);
    }
  });

  it("rebalancing removes the collapse at every Th_bal, and Th_bal barely matters", () => {
    const e2 = num(rows("e2")[0].meanLatency);
    const reb = rows("e2+rebalance");
    expect(reb.length).toBe(4);
    for (const r of reb) {
      expect(r.overloaded).toBe(false);
      expect(num(r.maxShare)).toBeLessThan(0.3);
      expect(num(r.meanLatency)).toBeLessThan(e2 / 3);
    }
    const means = reb.map((r) => num(r.meanLatency));
    expect(Math.max(...means) / Math.min(...means)).toBeLessThan(1.3);
  });

  it("the hot tool's requests stay on one replica under E2 and spread under E2 + rebalancing", () => {
    const busiestShare = (configuration: string) => {
      const s = hotSpotShareOverTime({ configuration, requestCount: 2500, binSeconds: 10 });
      const late = s.rows.filter((r) => num(r.time) > 15);
      const bins = new Map<number, number>();
      for (const r of late) bins.set(num(r.time), Math.max(bins.get(num(r.time)) ?? 0, num(r.share)));
      return [...bins.values()].reduce((a, b) => a + b, 0) / bins.size;
    };
    expect(busiestShare("e2")).toBeGreaterThan(0.95);
    expect(busiestShare("e2+rebalance")).toBeLessThan(0.8);
  });
});

describe("03.4 autoscaling and window H", () => {
  it("autoscaling alone relieves E2's hot spot (slowly); with rebalancing there is nothing left to scale", () => {
    const t = runDemo("03.4", { experiments: ["autoscale"], hotSpotRequestCount: 14000 });
    const get = (setting: string) => rowsWhere(t, { experiment: "autoscale", setting })[0];
    expect(get("e2").overloaded).toBe(true);
    expect(num(get("e2 + autoscale").autoscaled)).toBeGreaterThan(0);
    // The first replication needs both halves of the 180 s window: it comes after ≈ 90 s.
    expect(num(get("e2 + autoscale").firstAutoscale)).toBeGreaterThan(90);
    expect(num(get("e2 + autoscale").meanLatency)).toBeLessThan(num(get("e2").meanLatency) / 2);
    expect(get("e2 + rebalance").overloaded).toBe(false);
  });

  it("the window length changes long-document latency by far less than an order of magnitude", () => {
    const t = runDemo("03.4", { experiments: ["window"], windows: [30, 600], longDocRequestCount: 1200 });
    for (const key of ["experiment", "setting", "meanLatency", "p99Latency"]) expect(t.columns.map((c) => c.key)).toContain(key);
    const means = t.rows.map((r) => num(r.meanLatency));
    expect(means.length).toBe(2);
    expect(Math.max(...means) / Math.min(...means)).toBeLessThan(2);
  });
});

describe("03.5 local policies", () => {
  const t = runDemo("03.5");
  const get = (policy: string, key: string) => cell(t, { policy }, key);

  it("priority groups ≈ longest-prefix-first, both well below FCFS on mean latency", () => {
    expect(get("fcfs", "meanLatency")).toBeGreaterThan(1.3 * get("priority", "meanLatency"));
    expect(get("fcfs", "meanLatency")).toBeGreaterThan(1.3 * get("lpf", "meanLatency"));
    expect(Math.abs(get("priority", "meanLatency") - get("lpf", "meanLatency")) / get("lpf", "meanLatency")).toBeLessThan(0.2);
  });

  it("low-hit requests are not starved: their P99 under priority groups is no worse than under FCFS", () => {
    expect(get("priority", "p99LowHit")).toBeLessThanOrEqual(1.1 * get("fcfs", "p99LowHit"));
    expect(get("priority", "lowHitShare")).toBeGreaterThan(0.05);
  });
});
