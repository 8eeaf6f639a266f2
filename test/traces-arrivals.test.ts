import { describe, expect, it } from "vitest";
import {
  fitBurstyProcess,
  mean,
  mmppProcess,
  mmppStatistics,
  poissonProcess,
  quantile,
  rescaledToRate,
  rng,
  standardDeviation,
  timeScaled,
  traceReplay,
} from "../lib/core";
import { azureSummary } from "../lib/traces";

function gapsOf(times: Float64Array, from = 0): Float64Array {
  const g = new Float64Array(times.length - 1);
  for (let i = 1; i < times.length; i++) g[i - 1] = times[i] - times[i - 1];
  return from === 0 ? g : g.subarray(from);
}
const cvOf = (xs: ArrayLike<number>) => standardDeviation(xs) / mean(xs);

/** Var / mean of arrival counts in consecutive complete windows of w seconds. */
function countDispersion(times: Float64Array, w: number): number {
  const windows = Math.floor(times[times.length - 1] / w);
  const counts = new Float64Array(windows);
  for (const t of times) if (Math.floor(t / w) < windows) counts[Math.floor(t / w)]++;
  const sd = standardDeviation(counts);
  return (sd * sd) / mean(counts);
}

const recorded = { name: "toy", arrivalSeconds: Float64Array.from([0, 0.5, 0.5, 2, 7, 7.25, 10]) };

describe("trace replay", () => {
  it("preserves the recorded gaps exactly, starts at 0 and ignores the random stream", () => {
    const p = traceReplay(recorded);
    const t = p.times(rng(1), 7);
    expect(Array.from(t)).toEqual(Array.from(recorded.arrivalSeconds));
    expect(Array.from(p.times(rng(99), 7))).toEqual(Array.from(t));
    expect(p.meanRate).toBeCloseTo(6 / 10, 12);
    expect(p.name).toContain("toy");
  });
  it("time scaling multiplies every gap by the factor and divides the rate by it (Preble's ×0.7)", () => {
    const base = traceReplay(recorded).times(rng(1), 7);
    const scaled = traceReplay(recorded, { timeScale: 0.7 });
    const t = scaled.times(rng(1), 7);
    for (let i = 1; i < 7; i++) expect(t[i] - t[i - 1]).toBeCloseTo(0.7 * (base[i] - base[i - 1]), 12);
    expect(scaled.meanRate).toBeCloseTo(traceReplay(recorded).meanRate / 0.7, 12);
  });
  it("startIndex replays from a later row, relative to it; more than the trace holds throws unless wrap", () => {
    const p = traceReplay(recorded, { startIndex: 3 });
    expect(Array.from(p.times(rng(1), 4))).toEqual([0, 5, 5.25, 8]);
    expect(() => p.times(rng(1), 5)).toThrow(/count.*≤ 4/);
    const w = traceReplay(recorded, { wrap: true });
    const t = w.times(rng(1), 7 * 30);
    // each copy follows the last one after one mean gap, so the long-run rate is the trace's mean rate
    expect(t[7] - t[6]).toBeCloseTo(10 / 6, 12);
    expect(t[8] - t[7]).toBeCloseTo(0.5, 12);
    expect((t.length - 1) / t[t.length - 1]).toBeCloseTo(w.meanRate, 2);
    for (let i = 1; i < t.length; i++) expect(t[i]).toBeGreaterThanOrEqual(t[i - 1]);
  });
  it("rejects bad input, naming the parameter", () => {
    expect(() => traceReplay(recorded, { timeScale: -0.7 })).toThrow(/timeScale/);
    expect(() => traceReplay(recorded, { timeScale: 0 })).toThrow(/timeScale/);
    expect(() => traceReplay(recorded, { startIndex: 7 })).toThrow(/startIndex/);
    expect(() => traceReplay({ arrivalSeconds: [0] })).toThrow(/trace.*at least 2/);
    expect(() => traceReplay({ arrivalSeconds: [0, 2, 1] })).toThrow(/trace.*non-decreasing/);
    expect(() => traceReplay({ arrivalSeconds: [3, 3, 3] })).toThrow(/trace.*positive/);
  });
});

describe("Poisson, time scaling, rescaling to a rate", () => {
  it("poissonProcess has the asked mean rate and gap CV ≈ 1; rate ≤ 0 throws naming rate", () => {
    const t = poissonProcess(4).times(rng(5), 40000);
    expect((t.length - 1) / (t[t.length - 1] - t[0])).toBeCloseTo(4, 1);
    expect(cvOf(gapsOf(t))).toBeCloseTo(1, 1);
    expect(() => poissonProcess(0)).toThrow(/rate/);
    expect(() => poissonProcess(-1)).toThrow(/rate/);
  });
  it("rescaledToRate keeps the pattern (same draws, gaps scaled) and sets the mean rate", () => {
    const base = traceReplay(recorded);
    const fast = rescaledToRate(base, 3);
    expect(fast.meanRate).toBe(3);
    const factor = base.meanRate / 3;
    const b = base.times(rng(1), 7);
    const f = fast.times(rng(1), 7);
    for (let i = 0; i < 7; i++) expect(f[i]).toBeCloseTo(b[i] * factor, 12);
    const bursty = mmppProcess({ rates: [20, 0.5], switchRates: [0.5, 0.1] });
    const same = rescaledToRate(bursty, 2);
    const x = bursty.times(rng(3), 5000);
    const y = same.times(rng(3), 5000);
    expect(cvOf(gapsOf(y))).toBeCloseTo(cvOf(gapsOf(x)), 10);
    expect(() => rescaledToRate(base, 0)).toThrow(/rate/);
    expect(() => rescaledToRate(base, -2)).toThrow(/rate/);
    expect(() => timeScaled(base, -1)).toThrow(/timeScale/);
    expect(timeScaled(base, 1)).toBe(base);
  });
});

describe("two-state MMPP", () => {
  const params = { rates: [12, 1] as [number, number], switchRates: [0.4, 0.1] as [number, number] };
  it("simulated mean rate, gap CV, median gap and count dispersion agree with the closed forms (seeded)", () => {
    const stats = mmppStatistics(params);
    // long-run rate: 80% of the time quiet at 1/s, 20% in bursts at 12/s
    expect(stats.meanRate).toBeCloseTo(0.2 * 12 + 0.8 * 1, 12);
    const t = mmppProcess(params).times(rng(11), 200000);
    const gaps = gapsOf(t);
    expect(gaps.length / t[t.length - 1]).toBeGreaterThan(stats.meanRate * 0.95);
    expect(gaps.length / t[t.length - 1]).toBeLessThan(stats.meanRate * 1.05);
    expect(cvOf(gaps) / stats.gapCv).toBeGreaterThan(0.95);
    expect(cvOf(gaps) / stats.gapCv).toBeLessThan(1.05);
    expect(quantile(gaps, 0.5) / stats.gapQuantile(0.5)).toBeGreaterThan(0.95);
    expect(quantile(gaps, 0.5) / stats.gapQuantile(0.5)).toBeLessThan(1.05);
    expect(countDispersion(t, 10) / stats.countDispersion(10)).toBeGreaterThan(0.8);
    expect(countDispersion(t, 10) / stats.countDispersion(10)).toBeLessThan(1.2);
    // bursty: gaps more variable than Poisson, counts over-dispersed
    expect(stats.gapCv).toBeGreaterThan(1);
    expect(stats.countDispersion(10)).toBeGreaterThan(2);
  });
  it("equal state rates make it Poisson (CV 1, dispersion 1)", () => {
    const s = mmppStatistics({ rates: [3, 3], switchRates: [1, 2] });
    expect(s.gapCv).toBeCloseTo(1, 10);
    expect(s.countDispersion(5)).toBeCloseTo(1, 10);
    expect(s.gapQuantile(0.5)).toBeCloseTo(Math.LN2 / 3, 10);
  });
  it("rejects bad parameters, naming them", () => {
    expect(() => mmppProcess({ rates: [-1, 2], switchRates: [1, 1] })).toThrow(/rates\[0\]/);
    expect(() => mmppProcess({ rates: [0, 0], switchRates: [1, 1] })).toThrow(/rates/);
    expect(() => mmppProcess({ rates: [1, 2], switchRates: [0, 1] })).toThrow(/switchRates\[0\]/);
    expect(() => mmppProcess({ rates: [1, 2], switchRates: [1, -1] })).toThrow(/switchRates\[1\]/);
    expect(() => mmppProcess({ rates: [1, 2], switchRates: [1, 1] }).times(rng(1), -1)).toThrow(/count/);
  });
});

describe("fitting the bursty process", () => {
  it("recovers a known interrupted Poisson process from its mean rate, gap CV and a gap quantile (closed form)", () => {
    for (const [truth, p] of [
      [{ rates: [8, 0], switchRates: [0.2, 0.05] }, 0.5],
      [{ rates: [30, 0], switchRates: [1, 0.02] }, 0.99],
    ] as const) {
      const params = { rates: [truth.rates[0], truth.rates[1]] as [number, number], switchRates: [truth.switchRates[0], truth.switchRates[1]] as [number, number] };
      const s = mmppStatistics(params);
      const targets = { meanRate: s.meanRate, gapCv: s.gapCv, gapQuantile: { p, seconds: s.gapQuantile(p) } };
      const fit = fitBurstyProcess(targets);
      expect(fit.exact).toBe(true);
      expect(fit.achieved.meanRate).toBeCloseTo(targets.meanRate, 9);
      expect(fit.achieved.gapCv).toBeCloseTo(targets.gapCv, 9);
      expect(fit.achieved.gapQuantileSeconds / targets.gapQuantile.seconds).toBeCloseTo(1, 9);
      expect(fit.params.rates[1]).toBe(0);
      expect(fit.params.rates[0] / truth.rates[0]).toBeCloseTo(1, 6);
      expect(fit.params.switchRates[0] / truth.switchRates[0]).toBeCloseTo(1, 6);
      expect(fit.params.switchRates[1] / truth.switchRates[1]).toBeCloseTo(1, 6);
      // the hyperexponential view and the MMPP view describe the same gaps
      const { shortShare: q, shortMean: m1, longMean: m2 } = fit.gaps;
      expect(q * m1 + (1 - q) * m2).toBeCloseTo(1 / targets.meanRate, 12);
      expect(fit.meanBurstSeconds).toBeCloseTo(1 / truth.switchRates[0], 6);
    }
  });
  it("the committed fit of each Azure trace reproduces its mean rate and gap CV when simulated (seeded)", () => {
    const summary = azureSummary();
    for (const kind of ["conv", "code"] as const) {
      const s = summary.traces[kind];
      const b = s.bursty;
      const process = mmppProcess({ rates: [b.rates.burst, b.rates.quiet], switchRates: [b.switchRates.burstToQuiet, b.switchRates.quietToBurst] });
      expect(process.meanRate / s.meanRate).toBeCloseTo(1, 4);
      const t = process.times(rng(`fit-${kind}`), 200000);
      const gaps = gapsOf(t);
      const rate = gaps.length / (t[t.length - 1] - t[0]);
      expect(Math.abs(rate / s.meanRate - 1)).toBeLessThan(0.05);
      expect(Math.abs(cvOf(gaps) / s.gapSeconds.cv - 1)).toBeLessThan(0.1);
      expect(Math.abs(quantile(gaps, 0.5) / s.gapSeconds.median - 1)).toBeLessThan(0.05);
    }
  });
  it("an unreachable quantile gives the closest fit, still exact in rate and CV, flagged exact: false", () => {
    // with mean gap 0.1 s and CV 3, a median of 1 s (10× the mean) is impossible for these gap mixtures
    const fit = fitBurstyProcess({ meanRate: 10, gapCv: 3, gapQuantile: { p: 0.5, seconds: 1 } });
    expect(fit.exact).toBe(false);
    expect(fit.achieved.meanRate).toBeCloseTo(10, 9);
    expect(fit.achieved.gapCv).toBeCloseTo(3, 6);
    expect(fit.achieved.gapQuantileSeconds).toBeLessThan(1);
  });
  it("rejects targets it cannot fit, naming them", () => {
    expect(() => fitBurstyProcess({ meanRate: 0, gapCv: 2, gapQuantile: { p: 0.5, seconds: 1 } })).toThrow(/meanRate/);
    expect(() => fitBurstyProcess({ meanRate: 1, gapCv: 0.8, gapQuantile: { p: 0.5, seconds: 1 } })).toThrow(/gapCv/);
    expect(() => fitBurstyProcess({ meanRate: 1, gapCv: 2, gapQuantile: { p: 1, seconds: 1 } })).toThrow(/gapQuantile\.p/);
    expect(() => fitBurstyProcess({ meanRate: 1, gapCv: 2, gapQuantile: { p: 0.5, seconds: -1 } })).toThrow(/gapQuantile\.seconds/);
  });
});
