// Summary statistics shared by every simulator (simple-statistics underneath).
import { quantileSorted } from "simple-statistics";

export function mean(xs: ArrayLike<number>): number {
  if (xs.length === 0) return NaN;
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i];
  return s / xs.length;
}

export function standardDeviation(xs: ArrayLike<number>): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += (xs[i] - m) * (xs[i] - m);
  return Math.sqrt(s / (xs.length - 1));
}

/** Quantile p ∈ [0, 1] of an unsorted sample (copied, not mutated). */
export function quantile(xs: ArrayLike<number>, p: number): number {
  if (xs.length === 0) return NaN;
  const sorted = Float64Array.from(xs as ArrayLike<number>).sort();
  return quantileSorted(Array.from(sorted), p);
}

export interface Summary {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function summarize(xs: ArrayLike<number>): Summary {
  if (xs.length === 0) return { count: 0, mean: NaN, p50: NaN, p90: NaN, p99: NaN, max: NaN };
  const sorted = Array.from(Float64Array.from(xs as ArrayLike<number>).sort());
  return {
    count: sorted.length,
    mean: mean(sorted),
    p50: quantileSorted(sorted, 0.5),
    p90: quantileSorted(sorted, 0.9),
    p99: quantileSorted(sorted, 0.99),
    max: sorted[sorted.length - 1],
  };
}
