import { describe, expect, it } from "vitest";
import { mixedWorkload } from "../lib/cluster/mix";
import { poissonProcess } from "../lib/core/arrivals";
import { runDemo } from "../lib/demos";
import { cell } from "../lib/core/table";
import { rng } from "../lib/core/rng";
import { atRealisedRate, realisedRate } from "../lib/demos/preble/azure-replay";

describe("mixed workloads", () => {
  it("interleaves the parts in the given shares, keeps their segments apart and takes the process's times", () => {
    const arrivals = poissonProcess(5);
    const w = mixedWorkload({ parts: [{ workload: "toolCalling", share: 3 }, { workload: "videoQA", share: 1 }], requestCount: 400, arrivals, seed: 3 });
    expect(w.requests.length).toBe(400);
    expect(w.requests.map((r) => r.id)).toEqual(Array.from({ length: 400 }, (_, i) => i));
    for (let i = 1; i < 400; i++) expect(w.requests[i].arrival).toBeGreaterThanOrEqual(w.requests[i - 1].arrival);
    const tool = w.requests.filter((r) => r.segments[r.segments.length - 1].id < 100_000_000).length;
    expect(tool).toBe(300);
    // no segment id is shared between a tool-calling and a video request
    const toolIds = new Set<number>();
    const videoIds = new Set<number>();
    for (const r of w.requests) for (const s of r.segments) (s.id < 100_000_000 ? toolIds : videoIds).add(s.id);
    for (const id of videoIds) expect(toolIds.has(id)).toBe(false);
    // same seed, same requests
    const again = mixedWorkload({ parts: [{ workload: "toolCalling", share: 3 }, { workload: "videoQA", share: 1 }], requestCount: 400, arrivals, seed: 3 });
    expect(again.requests.map((r) => [r.arrival, r.keySegment])).toEqual(w.requests.map((r) => [r.arrival, r.keySegment]));
  });
  it("rejects bad parts", () => {
    expect(() => mixedWorkload({ parts: [], requestCount: 10, arrivals: poissonProcess(1) })).toThrow(/parts/);
    expect(() => mixedWorkload({ parts: [{ workload: "toolCalling", share: 0 }], requestCount: 10, arrivals: poissonProcess(1) })).toThrow(/share/);
    expect(() => mixedWorkload({ parts: [{ workload: "nope", share: 1 }], requestCount: 10, arrivals: poissonProcess(1) })).toThrow(/workload/);
  });
});

describe("realised rate", () => {
  it("atRealisedRate makes (n − 1) / span exactly the rate, from 0, keeping the pattern", () => {
    const base = poissonProcess(3);
    const scaled = atRealisedRate(base, 6);
    const a = base.times(rng(2), 500);
    const b = scaled.times(rng(2), 500);
    expect(b[0]).toBe(0);
    expect(realisedRate(b)).toBeCloseTo(6, 12);
    const k = (b[499] - b[0]) / (a[499] - a[0]);
    for (let i = 0; i < 500; i++) expect(b[i]).toBeCloseTo((a[i] - a[0]) * k, 9);
    expect(() => atRealisedRate(base, 0)).toThrow(/rate/);
  });
});

describe("demo 03.6: Azure arrivals vs Poisson at the same realised rate", () => {
  const small = { requestCount: 2000, seeds: 1 };
  it("replays the real trace shipped in data/ by default; both processes realise the same rate", () => {
    const t = runDemo("03.6", small);
    expect(t.notes?.[0]).toMatch(/真实到达时刻：回放 data\/azure-llm-2023\/AzureLLMInferenceTrace_code\.csv\.gz/);
    for (const r of t.rows) expect(r.realisedRate as number).toBeCloseTo(6, 9);
    for (const policy of ["baseline", "preble"]) {
      // bursts hurt: the same load with the trace's timing waits longer than Poisson
      expect(cell(t, { arrivals: "azureCodeArrivals", policy }, "meanLatency")).toBeGreaterThan(cell(t, { arrivals: "poissonArrivals", policy }, "meanLatency"));
      expect(cell(t, { arrivals: "azureCodeArrivals", policy }, "meanTTFT")).toBeGreaterThan(cell(t, { arrivals: "poissonArrivals", policy }, "meanTTFT"));
    }
    // Preble's gain over the baseline holds under bursts (the paper: several-fold on mean, P99, TTFT)
    expect(cell(t, { arrivals: "azureCodeArrivals", policy: "baseline" }, "meanLatency")).toBeGreaterThan(1.5 * cell(t, { arrivals: "azureCodeArrivals", policy: "preble" }, "meanLatency"));
    const same = t.claims?.find((c) => c.id === "same-realised-rate");
    expect(same?.verdict).toBe("holds");
    // with prebleReleased in the table the two Preble claims carry a verdict per reading, the lecture's first
    for (const id of ["preble-several-fold", "guard-behind-preble"]) {
      const c = t.claims?.find((x) => x.id === id);
      expect(c?.readings?.map((r) => r.reading)).toEqual(["讲义的读法", "开源代码的读法"]);
    }
    const lectureOnly = runDemo("03.6", { ...small, configurations: ["baseline", "cacheAwareGuarded", "preble"] });
    expect(lectureOnly.claims?.find((x) => x.id === "preble-several-fold")?.readings).toBeUndefined();
    expect(t.title).toMatch(/实现请求率 6 请求\/秒/);
    expect(t.title).toMatch(/4 个副本，2000 个请求，种子 1/);
  });
  it("the fitted process only when asked for, and then the claim says it is not the real trace", () => {
    const t = runDemo("03.6", { ...small, source: "synthetic", configurations: ["preble"] });
    expect(t.notes?.[0]).toMatch(/拟合的两状态突发过程（按要求使用，不是真实 trace/);
    expect(t.title).toMatch(/拟合过程/);
    const same = t.claims?.find((c) => c.id === "same-realised-rate");
    expect(same?.verdict).toBe("fails");
    expect(same?.ours).toMatch(/拟合/);
  });
  it("conv trace, and seeds averaged (per-seed values kept for the claims)", () => {
    const t = runDemo("03.6", { trace: "conv", requestCount: 500, seeds: 2, configurations: ["baseline", "preble"] });
    expect(t.rows.map((r) => r.arrivals)).toEqual(["poissonArrivals", "poissonArrivals", "azureConvArrivals", "azureConvArrivals"]);
    for (const r of t.rows) expect(r.meanLatency as number).toBeCloseTo(((r["meanLatency@0"] as number) + (r["meanLatency@1"] as number)) / 2, 12);
    expect(t.title).toMatch(/2 个种子（1–2）的平均/);
  });
  it("bad input names the parameter", () => {
    expect(() => runDemo("03.6", { trace: "chat" })).toThrow(/trace/);
    expect(() => runDemo("03.6", { source: "auto" })).toThrow(/source/);
    expect(() => runDemo("03.6", { rate: 0 })).toThrow(/rate/);
    expect(() => runDemo("03.6", { toolShare: 1 })).toThrow(/toolShare/);
    expect(() => runDemo("03.6", { requestCount: 9000 })).toThrow(/requestCount.*8819/);
    expect(() => runDemo("03.6", { configurations: ["nope"] })).toThrow(/configurations\[0\]/);
    expect(() => runDemo("03.6", { seeds: 0 })).toThrow(/seeds/);
  });
});
