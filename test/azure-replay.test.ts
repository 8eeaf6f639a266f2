import { describe, expect, it } from "vitest";
import { mixedWorkload } from "../lib/cluster/mix";
import { poissonProcess } from "../lib/core/arrivals";
import { runDemo } from "../lib/demos";
import { cell } from "../lib/core/table";
import { locateAzureTraces } from "../lib/traces/azure";

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

describe("demo 03.6: Azure arrivals vs Poisson at the same mean rate", () => {
  const shape = (source: string) => {
    const t = runDemo("03.6", { source, requestCount: 2000, configurations: ["baseline", "preble"] });
    for (const policy of ["baseline", "preble"]) {
      // bursts hurt: the same load with the trace's timing waits longer than Poisson
      expect(cell(t, { arrivals: "Azure code", policy }, "meanLatency")).toBeGreaterThan(cell(t, { arrivals: "Poisson", policy }, "meanLatency"));
      expect(cell(t, { arrivals: "Azure code", policy }, "meanTTFT")).toBeGreaterThan(cell(t, { arrivals: "Poisson", policy }, "meanTTFT"));
    }
    // Preble's gain over the baseline holds under bursts (the paper: several-fold on mean, P99, TTFT)
    expect(cell(t, { arrivals: "Azure code", policy: "baseline" }, "meanLatency")).toBeGreaterThan(1.5 * cell(t, { arrivals: "Azure code", policy: "preble" }, "meanLatency"));
    return t;
  };
  it("with the fitted synthetic process (no CSV needed)", () => {
    const t = shape("synthetic");
    expect(t.notes?.[0]).toMatch(/two-state MMPP/);
  });
  it.skipIf(!locateAzureTraces().available)("with the real trace when ../shared/data/azure-llm-2023 is present", () => {
    const t = shape("trace");
    expect(t.notes?.[0]).toMatch(/replay of AzureLLMInferenceTrace_code\.csv/);
  });
  it("bad input names the parameter", () => {
    expect(() => runDemo("03.6", { trace: "chat" })).toThrow(/trace/);
    expect(() => runDemo("03.6", { rate: 0 })).toThrow(/rate/);
    expect(() => runDemo("03.6", { toolShare: 1 })).toThrow(/toolShare/);
  });
});
