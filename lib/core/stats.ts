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

/** Quantile p ∈ [0, 1] of an unsorted sample (copied, not mutated): numpy's linear method (type 7), the value
 * simple-statistics' quantileSorted gives on the sorted sample. The one or two order statistics it needs are
 * found by selection (O(n)) instead of a full sort: the simulators take P50 / P99 of 10⁴–10⁶ latencies. */
export function quantile(xs: ArrayLike<number>, p: number): number {
  if (xs.length === 0) return NaN;
  if (!(p >= 0 && p <= 1)) throw new Error(`quantile: p must be in [0, 1], got ${p}`);
  const a = Float64Array.from(xs as ArrayLike<number>);
  for (let i = 0; i < a.length; i++) if (a[i] !== a[i]) return quantileSorted(Array.from(a.sort()), p); // NaN: sort order
  const idx = (a.length - 1) * p;
  const lower = Math.floor(idx);
  const low = selectKth(a, lower);
  if (p === 1 || p === 0 || idx % 1 === 0) return low;
  // The next order statistic is the smallest value right of the k-th after selection.
  let high = Infinity;
  for (let i = lower + 1; i < a.length; i++) if (a[i] < high) high = a[i];
  return low + (idx - lower) * (high - low);
}

/** Rearranges `a` so that a[k] is its k-th smallest value (0-based), smaller-or-equal values before it and
 * greater-or-equal after; returns a[k]. Quickselect with a median-of-three pivot; a range that keeps failing
 * to shrink is sorted instead, so the worst case stays O(n log n). */
export function selectKth(a: Float64Array, k: number): number {
  let left = 0;
  let right = a.length - 1;
  let budget = 2 * Math.ceil(Math.log2(a.length + 1)) + 8;
  while (right > left) {
    if (budget-- <= 0 || right - left < 16) {
      a.subarray(left, right + 1).sort();
      return a[k];
    }
    const mid = (left + right) >> 1;
    // median of a[left], a[mid], a[right] as the pivot
    const x = a[left];
    const y = a[mid];
    const z = a[right];
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let i = left;
    let j = right;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return a[k];
  }
  return a[k];
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
