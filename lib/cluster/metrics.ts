// The metrics of a cluster run (design.md "Metrics"): latency, TTFT, TPOT and queueing over the measured requests,
// the hit rate three ways (at admission; in the chosen replica's cache and in any replica's cache at dispatch),
// requests per replica, utilisation, and the overload rule; plus a request's latency alone on an idle replica.
import { mean, quantile } from "../core/stats";
import type { StepModel } from "../hardware/step-model";
import type { RequestRecord } from "./record";
import type { Replica } from "./replica";

export interface ClusterMetrics {
  /** requests in the metrics (after the warm-up) */
  requests: number;
  meanLatency: number;
  p50Latency: number;
  p99Latency: number;
  meanTTFT: number;
  p99TTFT: number;
  meanTPOT: number;
  meanQueueing: number;
  /** mean latency each request would have alone on an idle replica with the same cached prefix */
  meanAloneLatency: number;
  /** meanLatency / meanAloneLatency: how much queueing and batching stretch requests (a load measure) */
  slowdown: number;
  /** cached prompt tokens / prompt tokens */
  hitRate: number;
  /** prompt tokens in the chosen replica's cache at dispatch / prompt tokens (the router's decision instant) */
  dispatchHitRate: number;
  /** prompt tokens in the longest match over every replica's cache at dispatch / prompt tokens: what requests
   * could hit if they could read any cache (the oracle; ≥ dispatchHitRate); NaN unless ClusterOptions.oracle */
  oracleHitRate: number;
  /** Σ over replicas of cached tokens / distinct cached tokens, time-averaged over the samples */
  replication: number;
  /** distinct tokens cached in the cluster (sample mean) */
  distinctCachedTokens: number;
  /** distinct key portions (documents, tools, videos…) fully cached somewhere (sample mean) */
  distinctCachedKeys: number;
  requestsPerReplica: number[];
  /** largest fraction of the requests on one replica */
  maxShare: number;
  /** busy time / makespan per replica */
  utilization: number[];
  /** mean latency of the last quarter of measured arrivals ÷ the second quarter */
  latencyTrend: number;
  /** outstanding requests averaged over the last 10% of arrivals ÷ over the 40–50% window */
  backlogTrend: number;
  /** queues grew without bound (see overloadRule) */
  overloaded: boolean;
}

/** The warm-up rule in words, for tables' notes. */
export function warmupDescription(warmup = 0.2, samples = 20): string {
  return `warm-up: caches start empty and the first ${Math.round(warmup * 100)}% of requests by arrival are left out of the metrics; replication is sampled ${samples}× evenly from the first measured arrival to the last arrival`;
}

export const OVERLOAD_RULE =
  "overloaded when queues grow (mean latency of the last quarter of measured arrivals > 1.3× the second quarter's, and outstanding requests over the last 10% of arrivals > 1.5× those over the 40–50% window plus one per replica) or when the mean latency exceeds 10× a lone request's (saturated: the numbers then depend on the run's length)";

/** Seconds a request would take alone on an idle replica: chunked prefill of its uncached tokens, then one
 * decode step per further output token. */
export function aloneLatency(step: StepModel, promptTokens: number, cachedTokens: number, outputTokens: number, chunkBudget: number): number {
  let t = 0;
  let done = cachedTokens;
  while (done < promptTokens) {
    const chunk = Math.min(chunkBudget, promptTokens - done);
    t += step.mixedSeconds(chunk, chunk * done + (chunk * (chunk + 1)) / 2, done, 0, 0, done + chunk === promptTokens ? 1 : 0);
    done += chunk;
  }
  return step.addLoneDecodeSeconds(t, promptTokens, outputTokens);
}

export function computeMetrics(records: RequestRecord[], replicas: number, warmupCount: number, outstanding: Float64Array, engines: Replica[], makespan: number, step: StepModel, chunkBudget: number): ClusterMetrics {
  const measured = records.slice(warmupCount);
  const m = measured.length;
  const latency = measured.map((r) => r.latency);
  const alone = mean(measured.map((r) => aloneLatency(step, r.promptTokens, r.cachedTokens, r.outputTokens, chunkBudget)));
  const ttft = measured.map((r) => r.ttft);
  const tpot = measured.map((r) => r.tpot).filter((x) => Number.isFinite(x));
  let prompt = 0;
  let cached = 0;
  let atDispatch = 0;
  let anywhere = 0;
  const perReplica = new Array(replicas).fill(0);
  for (const r of measured) {
    prompt += r.promptTokens;
    cached += r.cachedTokens;
    atDispatch += r.cachedAtDispatch;
    anywhere += r.clusterCachedAtDispatch;
    perReplica[r.replica]++;
  }
  const q = Math.floor(m / 4);
  const q2 = mean(latency.slice(q, 2 * q));
  const q4 = mean(latency.slice(3 * q));
  const n = outstanding.length;
  const midMean = mean(outstanding.subarray(Math.floor(0.4 * n), Math.max(Math.floor(0.5 * n), Math.floor(0.4 * n) + 1)));
  const endMean = mean(outstanding.subarray(Math.floor(0.9 * n)));
  const latencyTrend = q > 0 ? q4 / q2 : NaN;
  const backlogTrend = endMean / Math.max(midMean, 1);
  return {
    requests: m,
    meanLatency: mean(latency),
    p50Latency: quantile(latency, 0.5),
    p99Latency: quantile(latency, 0.99),
    meanTTFT: mean(ttft),
    p99TTFT: quantile(ttft, 0.99),
    meanTPOT: tpot.length ? mean(tpot) : NaN,
    meanQueueing: mean(measured.map((r) => r.queueing)),
    meanAloneLatency: alone,
    slowdown: mean(latency) / alone,
    hitRate: prompt > 0 ? cached / prompt : 0,
    dispatchHitRate: prompt > 0 ? atDispatch / prompt : 0,
    oracleHitRate: prompt > 0 ? anywhere / prompt : 0,
    replication: NaN,
    distinctCachedTokens: NaN,
    distinctCachedKeys: NaN,
    requestsPerReplica: perReplica,
    maxShare: Math.max(...perReplica) / m,
    utilization: engines.map((e) => (makespan > 0 ? e.busySeconds / makespan : 0)),
    latencyTrend,
    backlogTrend,
    overloaded: (latencyTrend > 1.3 && endMean > 1.5 * midMean + replicas) || mean(latency) / alone > 10,
  };
}
