// One summary per distinct run in a session, shared by the §3 demos.
import { mapParallel, parallelTask } from "../../core/parallel";
import { quantile } from "../../core/stats";
import { ClusterOptions, simulateSummarized } from "../simulate";
import { registrationsKey, registriesChangedHere, RunSummary, simulateMany, summarizeRun } from "../sweep";

// The §3 demos share many runs (03.2's cost runs are cells of 03.1's grid, its pairing runs too): a run is a pure
// function of its options, so a session keeps each summary once and a later demo asking for the same run reuses it.
const memo = new Map<string, RunSummary>();
const MEMO_LIMIT = 2000;

/** simulateMany with the session's memo: runs already simulated (same options, same seed) are not run again. */
export function simulateConfigurations(runs: readonly ClusterOptions[], progress?: (done: number, total: number) => void): RunSummary[] {
  const registered = registrationsKey();
  const keys = runs.map((o) => `${registered}|${JSON.stringify(o)}`);
  const missing: number[] = [];
  keys.forEach((k, i) => {
    if (!memo.has(k) && !missing.some((j) => keys[j] === k)) missing.push(i);
  });
  const done = runs.length - missing.length;
  const fresh = simulateMany(missing.map((i) => runs[i]), progress ? (d) => progress(done + d, runs.length) : undefined);
  if (memo.size + fresh.length > MEMO_LIMIT) memo.clear();
  missing.forEach((i, j) => memo.set(keys[i], fresh[j]));
  return keys.map((k) => memo.get(k) as RunSummary);
}

/** Cached-fraction buckets at admission for the queueing CDF (03.5): almost nothing cached (under 10%: a shared system
 * prompt at most), under half, at least half. */
export const HIT_BUCKETS = [
  { id: "hitNone", test: (f: number) => f < 0.1 },
  { id: "hitLow", test: (f: number) => f >= 0.1 && f < 0.5 },
  { id: "hitHigh", test: (f: number) => f >= 0.5 },
] as const;
export const QUEUEING_QUANTILES = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99];

export interface QueueingSummary extends RunSummary {
  /** per hit bucket: measured requests and their queueing seconds at QUEUEING_QUANTILES */
  queueing: Array<{ bucket: string; count: number; quantiles: number[] }>;
}

/** One run with the queueing distribution of its measured requests by cached fraction at admission. */
export function simulateQueueing(options: ClusterOptions): QueueingSummary {
  return simulateSummarized(options, (res) => {
    const measured = res.records.filter((r) => r.measured);
    const queueing = HIT_BUCKETS.map((b) => {
      const xs = measured.filter((r) => b.test(r.cachedTokens / r.promptTokens)).map((r) => r.queueing);
      return { bucket: b.id, count: xs.length, quantiles: QUEUEING_QUANTILES.map((q) => (xs.length ? quantile(xs, q) : NaN)) };
    });
    return { ...summarizeRun(res), queueing };
  });
}

const QUEUEING_TASK = parallelTask(__filename, "simulateQueueing", simulateQueueing);
const queueingMemo = new Map<string, QueueingSummary>();

/** simulateQueueing over runs (all cores), with the session's memo. */
export function simulateQueueingMany(runs: readonly ClusterOptions[], progress?: (done: number, total: number) => void): QueueingSummary[] {
  const registered = registrationsKey();
  const keys = runs.map((o) => `${registered}|${JSON.stringify(o)}`);
  const missing = keys.map((k, i) => (queueingMemo.has(k) ? -1 : i)).filter((i) => i >= 0);
  const fresh = mapParallel(QUEUEING_TASK, missing.map((i) => [runs[i]] as [ClusterOptions]), { threads: registriesChangedHere() ? 1 : undefined, onResult: progress ? (_, d, total) => progress(d, total) : undefined });
  if (queueingMemo.size + fresh.length > MEMO_LIMIT) queueingMemo.clear();
  missing.forEach((i, j) => queueingMemo.set(keys[i], fresh[j]));
  return keys.map((k) => queueingMemo.get(k) as QueueingSummary);
}
