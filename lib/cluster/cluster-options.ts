// The cluster simulation's inputs and outputs: what a caller may set (ClusterOptions), what a run returns
// (ClusterResult), and the checked settings a run starts from (resolveSettings: every option validated, defaults
// filled in, the requests generated or taken as given).
import { checkInteger, checkNumber, ParameterError } from "../core/errors";
import { GpuSpec, ModelSpec, resolveGpu, resolveModel } from "../hardware/specs";
import { kvCapacityTokens } from "../hardware/step-model";
import type { LocalPolicySpec } from "./local/policy";
import type { ClusterMetrics } from "./metrics";
import type { RequestRecord } from "./record";
import type { RouterSpec } from "./routers";
import type { Timeline, TimelineOptions } from "./timeline";
import { ClusterRequest, generateWorkload, Workload } from "./workloads";

export interface ClusterOptions {
  /** a workload name (generated with rate, seed, requestCount | horizon) or a generated Workload */
  workload?: string | Workload;
  /** … or the requests themselves (sorted by arrival) */
  requests?: readonly ClusterRequest[];
  /** parameter overrides for a named workload, e.g. { hotShare: 0.4 } */
  workloadOverrides?: Record<string, number>;
  replicas: number;
  /** requests per second (for a named workload) */
  rate?: number;
  router: RouterSpec;
  /** options merged into the router's (e.g. { threshold: 0.25 }) */
  routerOptions?: Record<string, unknown>;
  seed?: number | string;
  /** default "MISTRAL_7B" */
  model?: string | ModelSpec;
  /** default "A6000" */
  gpu?: string | GpuSpec;
  /** fraction of GPU memory for weights + KV (default 0.9) */
  memFraction?: number;
  requestCount?: number;
  horizon?: number;
  /** fraction of the requests (by arrival) left out of the metrics while caches fill; default 0.2 */
  warmup?: number;
  /** prefill tokens per iteration; default 512, Preble's setting. On an A6000 a 512-token chunk is already
   * compute-bound (≈ 70 ms vs ≈ 24 ms to read the weights), so larger chunks would barely change the GPU's
   * throughput — they would only lengthen the iterations that decoding requests wait through (TPOT). */
  chunkBudget?: number;
  /** running requests per replica at most; default 1024 */
  maxRunning?: number;
  /** local queue policy per replica: "fcfs" or a factory; default "fcfs" */
  localPolicy?: LocalPolicySpec;
  /** seconds before eviction / store notices reach the router; default 0 */
  notificationDelay?: number;
  /** snapshots of all caches for the replication factor, evenly spaced after the warm-up; default 20 */
  replicationSamples?: number;
  /** assert KV ≤ capacity inside the engine and tree invariants (tests); default false */
  check?: boolean;
  /** replica restarts (exercise 8): at `time` the replica's prefix cache is flushed — every cached prefix not
   * locked by a running request is evicted (eviction notices go out as usual); default none */
  restarts?: ReadonlyArray<{ replica: number; time: number }>;
  /** sample the run every Δt of simulated time (lib/cluster/timeline.ts): `true` for the defaults or
   * { interval, maxSamples, keys }; default off (no samples, no cost) */
  timeline?: boolean | TimelineOptions;
  /** also find, at each dispatch, the longest match over every replica's cache (RequestRecord.clusterCachedAtDispatch,
   * ClusterMetrics.oracleHitRate: what a request could hit if it could read any cache); on with the timeline;
   * default off (it costs a cache lookup per replica per request, ≈ 1–4% of a run) */
  oracle?: boolean;
}

export interface ClusterResult {
  records: RequestRecord[];
  metrics: ClusterMetrics;
  replicas: Array<{ requests: number; iterations: number; busySeconds: number; computedPrefillTokens: number; evictedTokens: number; peakKvTokens: number; cachedTokensAtEnd: number }>;
  routerName: string;
  routerStats: Record<string, unknown>;
  workload: { name: string; label: string; rate: number; keySegments: number };
  kvCapacity: number;
  /** simulated seconds until the last request finished */
  makespan: number;
  /** total engine iterations over all replicas */
  iterations: number;
  wallSeconds: number;
  warmupRule: string;
  overloadRule: string;
  /** samples every Δt (ClusterOptions.timeline); null when off */
  timeline: Timeline | null;
}

/** ClusterOptions checked, with every default filled in. */
export interface ClusterSettings {
  options: ClusterOptions;
  replicas: number;
  seed: number | string;
  model: ModelSpec;
  gpu: GpuSpec;
  warmup: number;
  chunkBudget: number;
  maxRunning: number;
  notificationDelay: number;
  replicationSamples: number;
  check: boolean;
  oracle: boolean;
  /** the generated workload, or null when the requests were given */
  workload: Workload | null;
  requests: readonly ClusterRequest[];
  keySegments: Set<number>;
  kvCapacity: number;
}

export function resolveSettings(options: ClusterOptions): ClusterSettings {
  const replicas = checkInteger("replicas", options.replicas, { min: 1 });
  const seed = options.seed ?? 1;
  const model = resolveModel(options.model ?? "MISTRAL_7B");
  const gpu = resolveGpu(options.gpu ?? "A6000");
  const memFraction = options.memFraction ?? 0.9;
  const warmup = checkNumber("warmup", options.warmup ?? 0.2, { min: 0, below: 1 });
  const chunkBudget = checkInteger("chunkBudget", options.chunkBudget ?? 512, { min: 1 });
  const maxRunning = checkInteger("maxRunning", options.maxRunning ?? 1024, { min: 1 });
  const notificationDelay = checkNumber("notificationDelay", options.notificationDelay ?? 0, { min: 0 });
  const replicationSamples = checkInteger("replicationSamples", options.replicationSamples ?? 20, { min: 0 });
  const check = options.check ?? false;
  const oracle = options.oracle ?? Boolean(options.timeline);
  const { workload, requests } = requestsOf(options, seed);
  const keySegments: Set<number> = workload ? workload.keySegments : new Set(requests.map((r) => r.keySegment));
  const kvCapacity = kvCapacityTokens(model, gpu, memFraction);
  for (const r of requests) {
    if (r.promptTokens + r.outputTokens > kvCapacity) throw new ParameterError("requests", `请求 ${r.id} 要 ${r.promptTokens + r.outputTokens} 个 token 的 KV，超过一个副本的容量 ${kvCapacity}`);
    if (r.promptTokens < 1 || r.outputTokens < 1) throw new ParameterError("requests", `请求 ${r.id} 的提示和输出都应至少 1 个 token`);
  }
  return { options, replicas, seed, model, gpu, warmup, chunkBudget, maxRunning, notificationDelay, replicationSamples, check, oracle, workload, requests, keySegments, kvCapacity };
}

/** The requests: given, or generated from a named workload (rate, seed, requestCount | horizon). */
function requestsOf(options: ClusterOptions, seed: number | string): { workload: Workload | null; requests: readonly ClusterRequest[] } {
  let workload: Workload | null = null;
  let requests: readonly ClusterRequest[];
  if (options.requests) {
    requests = options.requests;
    if (options.rate !== undefined) checkNumber("rate", options.rate, { above: 0 });
  } else {
    if (options.workload === undefined) throw new ParameterError("workload", "应给出负载的名字、一个 Workload，或者 requests");
    if (typeof options.workload === "string") {
      if (options.rate === undefined) throw new ParameterError("rate", "给负载名字时必须给出请求率（请求/秒，> 0）");
      checkNumber("rate", options.rate, { above: 0 });
      workload = generateWorkload(options.workload, { rate: options.rate, seed, requestCount: options.requestCount ?? (options.horizon === undefined ? 1000 : undefined), horizon: options.horizon, overrides: options.workloadOverrides });
    } else workload = options.workload;
    requests = workload.requests;
  }
  if (requests.length === 0) throw new ParameterError("requests", "不能为空");
  return { workload, requests };
}
