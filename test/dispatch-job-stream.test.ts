// The session's dispatch jobs (lib/dispatch/job-stream.ts): a run reads its seed's arrivals and sizes from there
// instead of drawing them, so they must be exactly what the run's own streams draw — for any seed, distribution,
// gap and length, kept or not.
import { describe, expect, it } from "vitest";
import { rng } from "../lib/core/rng";
import { boundedParetoSize } from "../lib/dispatch/job-sizes";
import { jobStream, keptJobCount } from "../lib/dispatch/job-stream";
import { simulateDispatch } from "../lib/dispatch/servers";

/** The jobs as the lecture's model defines them: gaps from seed/arrivals, one uniform per size from seed/sizes. */
function reference(seed: number | string, sizes: "exponential" | "boundedPareto", meanGap: number, jobs: number) {
  const a = rng(seed).fork("arrivals");
  const s = rng(seed).fork("sizes");
  const arrival: number[] = [];
  const size: number[] = [];
  let t = 0;
  for (let i = 0; i < jobs; i++) {
    t += -meanGap * Math.log(1 - a.uniform());
    arrival.push(t);
    const u = s.uniform();
    size.push(sizes === "boundedPareto" ? boundedParetoSize(u) : -Math.log(1 - u));
  }
  return { arrival, size };
}

describe("jobStream", () => {
  it.each([
    [1, "exponential", 1 / 14.4, 3000],
    ["7/2", "boundedPareto", 1 / 14.4, 3000],
    [3, "exponential", 0.25, 500],
  ] as const)("seed %s, %s, gap %s: the first %s jobs are the seed's own draws", (seed, sizes, gap, n) => {
    const ref = reference(seed, sizes, gap, n);
    for (let k = 0; k < 2; k++) {
      // drawn, then kept
      const js = jobStream(seed, sizes, gap, n);
      expect(Array.from(js.arrival.subarray(0, n))).toEqual(ref.arrival);
      expect(Array.from(js.size.subarray(0, n))).toEqual(ref.size);
    }
  });

  it("a longer request after a shorter one draws the longer stream; a shorter one reads a prefix", () => {
    const short = jobStream(11, "exponential", 0.1, 100);
    const long = jobStream(11, "exponential", 0.1, 400);
    expect(long.arrival.length).toBeGreaterThanOrEqual(400);
    expect(Array.from(long.arrival.subarray(0, 100))).toEqual(Array.from(short.arrival.subarray(0, 100)));
    expect(jobStream(11, "exponential", 0.1, 50)).toBe(long);
    expect(Array.from(long.size.subarray(0, 400))).toEqual(reference(11, "exponential", 0.1, 400).size);
  });

  it("another distribution or gap is another stream", () => {
    const e = jobStream(12, "exponential", 0.1, 100);
    const p = jobStream(12, "boundedPareto", 0.1, 100);
    const g = jobStream(12, "exponential", 0.2, 100);
    expect(p.size[0]).not.toBe(e.size[0]);
    expect(g.arrival[5]).toBeCloseTo(2 * e.arrival[5], 12);
    expect(keptJobCount()).toBeGreaterThan(0);
  });

  it("two policies on one seed see the same jobs, and a run's records are them", () => {
    const o = { servers: 4, utilization: 0.8, jobs: 2000, sizes: "boundedPareto" as const, seed: 5, recordJobs: true };
    const a = simulateDispatch({ ...o, policy: "random" });
    const b = simulateDispatch({ ...o, policy: "jsq" });
    const ref = reference(5, "boundedPareto", 1 / (0.8 * 4), 2000);
    expect(Array.from(a.records!.arrival)).toEqual(ref.arrival);
    expect(Array.from(b.records!.size)).toEqual(ref.size);
  });
});
