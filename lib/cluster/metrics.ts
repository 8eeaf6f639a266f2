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

/** The measured requests' latencies, TTFTs, finite TPOTs, queueing times and lone latencies, in arrival order, in
 * typed arrays filled in one pass (the records' getters' arithmetic, so the same numbers; one array each instead of
 * a map, a filter and a slice per series). */
function measuredSeries(records: RequestRecord[], warmupCount: number, step: StepModel, chunkBudget: number): { latency: Float64Array; ttft: Float64Array; tpot: Float64Array; queueing: Float64Array; alone: Float64Array } {
  const m = records.length - warmupCount;
  const latency = new Float64Array(m);
  const ttft = new Float64Array(m);
  const tpot = new Float64Array(m);
  const queueing = new Float64Array(m);
  const alone = new Float64Array(m);
  let finiteTpot = 0;
  for (let k = 0; k < m; k++) {
    const r = records[warmupCount + k];
    const req = r.request;
    latency[k] = r.finish - req.arrival;
    ttft[k] = r.firstToken - req.arrival;
    const t = req.outputTokens > 1 ? (r.finish - r.firstToken) / (req.outputTokens - 1) : NaN;
    if (Number.isFinite(t)) tpot[finiteTpot++] = t;
    queueing[k] = r.start - r.dispatch;
    alone[k] = aloneLatency(step, req.promptTokens, r.cachedTokens, req.outputTokens, chunkBudget);
  }
  return { latency, ttft, tpot: tpot.subarray(0, finiteTpot), queueing, alone };
}

export function computeMetrics(records: RequestRecord[], replicas: number, warmupCount: number, outstanding: Float64Array, engines: Replica[], makespan: number, step: StepModel, chunkBudget: number): ClusterMetrics {
  const s = measuredSeries(records, warmupCount, step, chunkBudget);
  const m = s.latency.length;
  const latency = s.latency;
  const ttft = s.ttft;
  const tpot = s.tpot;
  const alone = mean(s.alone);
  let prompt = 0;
  let cached = 0;
  let atDispatch = 0;
  let anywhere = 0;
  const perReplica = new Array(replicas).fill(0);
  for (let i = warmupCount; i < records.length; i++) {
    const r = records[i];
    prompt += r.request.promptTokens;
    cached += r.cachedTokens;
    atDispatch += r.cachedAtDispatch;
    anywhere += r.clusterCachedAtDispatch;
    perReplica[r.replica]++;
  }
  const q = Math.floor(m / 4);
  const q2 = mean(latency.subarray(q, 2 * q));
  const q4 = mean(latency.subarray(3 * q));
  const n = outstanding.length;
  const midMean = mean(outstanding.subarray(Math.floor(0.4 * n), Math.max(Math.floor(0.5 * n), Math.floor(0.4 * n) + 1)));
  const endMean = mean(outstanding.subarray(Math.floor(0.9 * n)));
  const latencyTrend = q > 0 ? q4 / q2 : NaN;
  const backlogTrend = endMean / Math.max(midMean, 1);
  const meanLatency = mean(latency);
  return {
    requests: m,
    meanLatency,
    p50Latency: quantile(latency, 0.5),
    p99Latency: quantile(latency, 0.99),
    meanTTFT: mean(ttft),
    p99TTFT: quantile(ttft, 0.99),
    meanTPOT: tpot.length ? mean(tpot) : NaN,
    meanQueueing: mean(s.queueing),
    meanAloneLatency: alone,
    slowdown: meanLatency / alone,
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
    overloaded: (latencyTrend > 1.3 && endMean > 1.5 * midMean + replicas) || meanLatency / alone > 10,
  };
}
