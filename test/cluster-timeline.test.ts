// The cluster simulation's timeline (lib/cluster/timeline.ts, issue 14): off by default and without effect on the
// run; checked against the run's totals (per-interval dispatches add up to the requests per replica, KV in use
// never exceeds capacity, the oracle hit rate is never below the chosen replica's); bounded memory.
import { describe, expect, it } from "vitest";
import { ParameterError } from "../lib/core/errors";
import { generateWorkload, simulateCluster } from "../lib/cluster/index";
import type { ClusterResult, Timeline } from "../lib/cluster/index";

const RUNS: Array<{ workload: string; rate: number; requestCount: number; replicas: number; router: string }> = [
  { workload: "longDocQA", rate: 1, requestCount: 500, replicas: 4, router: "roundRobin" },
  { workload: "longDocQA", rate: 1, requestCount: 500, replicas: 4, router: "thresholdAffinity" },
  { workload: "longDocQA", rate: 1, requestCount: 400, replicas: 4, router: "prefixAffinity" }, // overloaded: a long drain
  { workload: "toolCallingHotSpot", rate: 70, requestCount: 2000, replicas: 8, router: "cacheAwareGuarded" },
  { workload: "videoQA", rate: 3, requestCount: 600, replicas: 3, router: "powerOfTwo" },
];

function run(r: (typeof RUNS)[number], timeline: boolean | Record<string, unknown>, oracle?: boolean): ClusterResult {
  const w = generateWorkload(r.workload, { rate: r.rate, seed: 5, requestCount: r.requestCount });
  return simulateCluster({ workload: w, replicas: r.replicas, router: r.router, seed: 5, timeline, oracle, check: true });
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe("timeline: off by default, and it does not change the run", () => {
  for (const r of RUNS.slice(0, 3)) {
    it(`${r.workload} / ${r.router}: same records and metrics with the timeline on`, () => {
      const off = run(r, false);
      const on = run(r, true);
      expect(off.timeline).toBeNull();
      expect(on.timeline).not.toBeNull();
      // the oracle comes with the timeline (or on its own); nothing else changes
      expect(off.metrics.oracleHitRate).toBeNaN();
      expect(on.metrics).toEqual(run(r, false, true).metrics);
      expect({ ...on.metrics, oracleHitRate: NaN }).toEqual(off.metrics);
      expect(on.records.map((x) => [x.replica, x.finish, x.cachedTokens])).toEqual(off.records.map((x) => [x.replica, x.finish, x.cachedTokens]));
    });
  }
});

describe("timeline against the run's totals", () => {
  for (const r of RUNS) {
    it(`${r.workload} / ${r.router} on ${r.replicas} replicas`, () => {
      const res = run(r, true);
      const tl = res.timeline as Timeline;
      expect(tl.replicas).toBe(r.replicas);
      expect(tl.truncated).toBe(false);
      // samples every Δt from Δt on, until the run is over
      tl.times.forEach((t, k) => expect(t).toBeCloseTo((k + 1) * tl.interval, 9));
      expect(tl.times[tl.times.length - 1]).toBeGreaterThanOrEqual(res.makespan);
      for (let i = 0; i < r.replicas; i++) {
        // per-interval dispatches add up to the requests the replica received
        expect(sum(tl.dispatched[i])).toBe(res.replicas[i].requests);
        expect(sum(tl.promptTokens[i])).toBe(res.records.filter((x) => x.replica === i).reduce((s, x) => s + x.promptTokens, 0));
        for (let k = 0; k < tl.times.length; k++) {
          // KV in use never exceeds capacity; queued ≤ outstanding; the run ends empty
          expect(tl.kvUsed[i][k]).toBeLessThanOrEqual(tl.kvCapacity);
          expect(tl.cachedTokens[i][k]).toBeLessThanOrEqual(tl.kvUsed[i][k]);
          expect(tl.queued[i][k]).toBeLessThanOrEqual(tl.outstanding[i][k]);
          // the oracle (any replica's cache) is never below the chosen replica's, interval by interval
          if (tl.dispatched[i][k] > 0) expect(tl.oracleHitRate[i][k]).toBeGreaterThanOrEqual(tl.dispatchHitRate[i][k]);
          else expect(Number.isNaN(tl.hitRate[i][k])).toBe(true);
        }
        expect(tl.outstanding[i][tl.times.length - 1]).toBe(0);
        expect(Math.max(...tl.kvUsed[i])).toBeLessThanOrEqual(res.replicas[i].peakKvTokens);
      }
      // … and over the run (the metrics count measured requests only)
      expect(res.metrics.oracleHitRate).toBeGreaterThanOrEqual(res.metrics.dispatchHitRate);
    });
  }

  it("the outstanding requests at a sample are the dispatched ones not finished by then", () => {
    const res = run(RUNS[0], { interval: 7 });
    const tl = res.timeline as Timeline;
    for (const k of [3, 10, 25, 40]) {
      const t = tl.times[k];
      for (let i = 0; i < tl.replicas; i++) {
        const expected = res.records.filter((x) => x.replica === i && x.arrival < t && x.finish > t).length;
        expect(tl.outstanding[i][k]).toBe(expected);
      }
    }
  });

  it("key portions fully cached: documents by popularity rank, each within the replica's capacity", () => {
    const res = run(RUNS[1], true);
    const tl = res.timeline as Timeline;
    const keys = tl.cachedKeys as number[][][];
    let seen = 0;
    for (let i = 0; i < tl.replicas; i++) {
      for (const list of keys[i]) {
        expect([...list].sort((a, b) => a - b)).toEqual(list);
        expect(new Set(list).size).toBe(list.length);
        // every document is ≥ 4,000 tokens: a replica holds at most capacity / 4,000 of them
        expect(list.length).toBeLessThanOrEqual(Math.floor(tl.kvCapacity / 4000));
        seen += list.length;
      }
    }
    expect(seen).toBeGreaterThan(0);
    // the hottest document is cached somewhere most of the time after the warm-up
    const late = tl.times.map((t, k) => k).filter((k) => tl.times[k] > 0.3 * tl.times[tl.times.length - 1] && tl.times[k] < 400);
    const hot = late.filter((k) => keys.some((perReplica) => perReplica[k].includes(0))).length;
    expect(hot / late.length).toBeGreaterThan(0.8);
    expect(run(RUNS[1], { keys: false }).timeline?.cachedKeys).toBeNull();
  });
});

describe("timeline: bounded memory and bad options", () => {
  it("sampling stops at maxSamples during the drain and says so", () => {
    const r = RUNS[2];
    const res = run(r, { interval: 5, maxSamples: 100 });
    const tl = res.timeline as Timeline;
    expect(tl.times.length).toBe(100);
    expect(tl.truncated).toBe(true);
    for (let i = 0; i < r.replicas; i++) expect(sum(tl.dispatched[i])).toBe(res.replicas[i].requests);
  });

  it("refuses an interval too small to cover the arrivals within maxSamples, in Chinese", () => {
    expect(() => run(RUNS[0], { interval: 0.01, maxSamples: 50 })).toThrow(ParameterError);
    expect(() => run(RUNS[0], { interval: 0.01, maxSamples: 50 })).toThrow(/timeline\.interval.*maxSamples/);
    expect(() => run(RUNS[0], { interval: 0 })).toThrow(/timeline\.interval/);
    expect(() => run(RUNS[0], { maxSamples: 0 })).toThrow(/timeline\.maxSamples/);
  });
});
