// The cluster simulation (§2): arrivals → router → replicas, driven by one event queue (arrivals, replica
// iteration ends, replication samples, timeline samples, delayed cache notices). Returns per-request records,
// metrics (metrics.ts) and, when asked, a timeline (timeline.ts).
// Each call is self-contained (no shared mutable state), so independent runs can go to worker threads.
import { checkInteger, checkNumber, ParameterError } from "../core/errors";
import { EventQueue } from "../core/heap";
import { rng } from "../core/rng";
import { GpuSpec, ModelSpec, resolveGpu, resolveModel } from "../hardware/specs";
import { kvCapacityTokens, StepModel } from "../hardware/step-model";
import { LocalPolicySpec, resolveLocalPolicy } from "./local-policy";
import { RadixNode, RadixTree } from "./radix-tree";
import { ClusterMetrics, computeMetrics, OVERLOAD_RULE as OVERLOAD_RULE_TEXT, warmupDescription } from "./metrics";
import { RequestRecord } from "./record";
import { Replica } from "./replica";
import { ClusterView, createRouter, EvictionNotice, Router, RouterSpec, StoreNotice } from "./routers";
import { Timeline, TimelineOptions, TimelineRecorder, unionOf } from "./timeline";
import { ClusterRequest, generateWorkload, Workload } from "./workloads";

export { aloneLatency, OVERLOAD_RULE, warmupDescription } from "./metrics";
export type { ClusterMetrics } from "./metrics";

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

// Event items: ≥ 0 a replica's iteration ends; SAMPLE a replication snapshot; TIMELINE a timeline sample;
// ≤ NOTICE a delayed notice or a restart, notices[NOTICE − item].
const SAMPLE = -1;
const TIMELINE = -2;
const NOTICE = -3;

class View implements ClusterView {
  now = 0;
  readonly outstandingReq: Int32Array;
  readonly outstandingTok: Float64Array;
  readonly dispatched: Int32Array;
  readonly pending: RadixTree[];
  readonly history: RequestRecord[] = [];
  constructor(
    readonly replicaCount: number,
    readonly kvCapacity: number,
    readonly step: StepModel,
    private readonly engines: Replica[],
  ) {
    this.outstandingReq = new Int32Array(replicaCount);
    this.outstandingTok = new Float64Array(replicaCount);
    this.dispatched = new Int32Array(replicaCount);
    this.pending = engines.map(() => new RadixTree({ evictable: false, recycle: true }));
  }
  outstandingRequests(i: number): number {
    return this.outstandingReq[i];
  }
  outstandingTokens(i: number): number {
    return this.outstandingTok[i];
  }
  dispatchedCount(i: number): number {
    return this.dispatched[i];
  }
  viewMatch(request: ClusterRequest, i: number): number {
    const cached = this.engines[i].cache.matchTokens(request.segments);
    const pending = this.pending[i].matchTokens(request.segments);
    return cached > pending ? cached : pending;
  }
  cachedMatch(request: ClusterRequest, i: number): number {
    return this.engines[i].cache.matchTokens(request.segments);
  }
  queueLength(i: number): number {
    return this.engines[i].waiting.length;
  }
  pendingPrefillTokens(i: number): number {
    return this.engines[i].pendingPrefillTokens;
  }
  activeKvTokens(i: number): number {
    return this.engines[i].activeKvTokens;
  }
  kvUtilization(i: number): number {
    return Math.min(1, this.engines[i].activeKvTokens / this.kvCapacity);
  }
}

export function simulateCluster(options: ClusterOptions): ClusterResult {
  const wallStart = Date.now();
  const replicasCount = checkInteger("replicas", options.replicas, { min: 1 });
  const seed = options.seed ?? 1;
  const model = resolveModel(options.model ?? "MISTRAL_7B");
  const gpu = resolveGpu(options.gpu ?? "A6000");
  const memFraction = options.memFraction ?? 0.9;
  const warmup = checkNumber("warmup", options.warmup ?? 0.2, { min: 0, below: 1 });
  const chunkBudget = checkInteger("chunkBudget", options.chunkBudget ?? 512, { min: 1 });
  const maxRunning = checkInteger("maxRunning", options.maxRunning ?? 1024, { min: 1 });
  const delay = checkNumber("notificationDelay", options.notificationDelay ?? 0, { min: 0 });
  const samples = checkInteger("replicationSamples", options.replicationSamples ?? 20, { min: 0 });
  const check = options.check ?? false;
  const oracle = options.oracle ?? Boolean(options.timeline);

  // Requests: given, or generated from a workload.
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
  const keySegments = workload ? workload.keySegments : new Set(requests.map((r) => r.keySegment));

  const step = new StepModel(model, gpu);
  const capacity = kvCapacityTokens(model, gpu, memFraction);
  for (const r of requests) {
    if (r.promptTokens + r.outputTokens > capacity) throw new ParameterError("requests", `请求 ${r.id} 要 ${r.promptTokens + r.outputTokens} 个 token 的 KV，超过一个副本的容量 ${capacity}`);
    if (r.promptTokens < 1 || r.outputTokens < 1) throw new ParameterError("requests", `请求 ${r.id} 的提示和输出都应至少 1 个 token`);
  }
  const localPolicy = resolveLocalPolicy(options.localPolicy ?? "fcfs");
  const engines: Replica[] = [];
  for (let i = 0; i < replicasCount; i++) engines.push(new Replica(i, step, localPolicy(i), { capacity, chunkBudget, maxRunning, check }));
  const view = new View(replicasCount, capacity, step, engines);
  const router: Router = createRouter(options.router, { replicas: replicasCount, rng: rng(seed).fork("router"), step, kvCapacity: capacity }, options.routerOptions ?? {});

  const events = new EventQueue<number>();
  // Delayed notices live in a side array; their event item is NOTICE − index.
  const notices: Array<{ kind: "evict"; notice: EvictionNotice } | { kind: "store"; notice: StoreNotice } | { kind: "restart"; replica: number }> = [];
  const deliver = (n: (typeof notices)[number]): void => {
    if (n.kind === "evict") router.onEvict?.(n.notice, view);
    else if (n.kind === "store") router.onStore?.(n.notice, view);
    else engines[n.replica].cache.evict(engines[n.replica].cache.heldTokens);
  };
  const post = (n: (typeof notices)[number], time: number): void => {
    if (delay === 0) deliver(n);
    else {
      notices.push(n);
      events.push(time + delay, NOTICE - (notices.length - 1));
    }
  };

  const n = requests.length;
  const warmupCount = Math.min(n - 1, Math.floor(n * warmup));
  const records: RequestRecord[] = new Array(n);
  const outstandingAtArrival = new Float64Array(n);
  let totalOutstanding = 0;
  let lastFinish = 0;

  for (const e of engines) {
    const i = e.index;
    e.onFinish = (rec, now) => {
      view.outstandingReq[i]--;
      view.outstandingTok[i] -= rec.request.promptTokens;
      totalOutstanding--;
      const p = rec.pendingNode as RadixNode;
      view.pending[i].unlock(p);
      view.pending[i].prune(p);
      rec.pendingNode = null;
      if (now > lastFinish) lastFinish = now;
      router.onFinish?.(rec, view);
    };
    if (router.onEvict) {
      e.cache.onEvict = (node, evicted, removed) => {
        post({ kind: "evict", notice: { replica: i, time: view.now, path: e.cache.pathOf(node), segmentTokens: node.tokens, heldTokens: removed ? 0 : node.held, evictedTokens: evicted, removed } }, view.now);
      };
    }
    if (router.onStore) {
      e.onStore = (node, added, now) => post({ kind: "store", notice: { replica: i, time: now, path: e.cache.pathOf(node), addedTokens: added } }, now);
    }
  }

  // Restarts ride on the notice queue (undelayed): the flush happens at exactly their time.
  for (const r of options.restarts ?? []) {
    checkInteger("restarts[].replica", r.replica, { min: 0, max: replicasCount - 1 });
    checkNumber("restarts[].time", r.time, { min: 0 });
    notices.push({ kind: "restart", replica: r.replica });
    events.push(r.time, NOTICE - (notices.length - 1));
  }

  // Replication snapshots, evenly spaced from the first measured arrival to the last arrival.
  const sampleStart = requests[warmupCount].arrival;
  const sampleEnd = requests[n - 1].arrival;
  for (let k = 0; k < samples; k++) events.push(sampleStart + ((sampleEnd - sampleStart) * (k + 0.5)) / samples, SAMPLE);
  let sumHeld = 0;
  let sumDistinct = 0;
  let sumKeys = 0;
  let sampleCount = 0;
  const trees = engines.map((e) => e.cache);

  // The timeline (off by default): its samples ride on the event queue, one scheduled at a time.
  const timeline = options.timeline ? new TimelineRecorder(options.timeline, requests, replicasCount, capacity) : null;
  const timelineSource = {
    outstanding: (i: number) => view.outstandingReq[i],
    queued: (i: number) => engines[i].waiting.length,
    kvUsed: (i: number) => engines[i].kvUsedTokens,
    cache: (i: number) => engines[i].cache,
  };
  if (timeline) events.push(timeline.timeOf(0), TIMELINE);

  let next = 0;
  while (next < n || events.size > 0) {
    const tArrival = next < n ? requests[next].arrival : Infinity;
    if (events.size > 0 && events.peekTime() <= tArrival) {
      const ev = events.pop() as { time: number; item: number };
      const now = ev.time;
      view.now = now;
      const item = ev.item;
      if (item >= 0) {
        const e = engines[item];
        e.end(now);
        const seconds = e.begin(now);
        if (seconds >= 0) events.push(now + seconds, item);
        else e.busy = false;
      } else if (item === SAMPLE) {
        let held = 0;
        for (const t of trees) held += t.heldTokens;
        const u = unionOf(trees, keySegments);
        sumHeld += held;
        sumDistinct += u.distinct;
        sumKeys += u.keys;
        sampleCount++;
      } else if (item === TIMELINE) {
        const tl = timeline as TimelineRecorder;
        tl.sample(now, timelineSource);
        if (next < n || events.size > 0) {
          if (tl.full) tl.truncated = true;
          else events.push(tl.timeOf(tl.count), TIMELINE);
        }
      } else deliver(notices[NOTICE - item]);
      continue;
    }
    // An arrival: route, record, enqueue, wake the replica if idle.
    const req = requests[next];
    const now = req.arrival;
    view.now = now;
    const target = router.route(req, view);
    if (!(Number.isInteger(target) && target >= 0 && target < replicasCount)) throw new Error(`路由器 ${router.name} 给请求 ${req.id} 返回了副本 ${target}；应为 0 到 ${replicasCount - 1} 的整数`);
    const rec = new RequestRecord(req, now);
    rec.replica = target;
    rec.measured = next >= warmupCount;
    rec.viewMatchAtDispatch = view.viewMatch(req, target);
    rec.cachedAtDispatch = Math.min(view.cachedMatch(req, target), req.promptTokens - 1);
    if (oracle) {
      let anywhere = 0;
      for (let i = 0; i < replicasCount; i++) {
        const m = engines[i].cache.matchTokens(req.segments);
        if (m > anywhere) anywhere = m;
      }
      rec.clusterCachedAtDispatch = Math.min(anywhere, req.promptTokens - 1);
    }
    records[next] = rec;
    view.history.push(rec);
    view.outstandingReq[target]++;
    view.outstandingTok[target] += req.promptTokens;
    view.dispatched[target]++;
    const pendingTree = view.pending[target];
    const node = pendingTree.insert(req.segments, req.segments.length, now);
    pendingTree.lock(node);
    rec.pendingNode = node;
    totalOutstanding++;
    outstandingAtArrival[next] = totalOutstanding;
    next++;
    router.onDispatch?.(rec, view);
    const e = engines[target];
    e.enqueue(rec);
    if (!e.busy) {
      const seconds = e.begin(now);
      if (seconds >= 0) {
        e.busy = true;
        events.push(now + seconds, target);
      }
    }
  }

  if (check) {
    for (const e of engines) {
      e.cache.checkInvariants();
      if (e.outstanding !== 0 || e.reservedTokens !== 0) throw new Error(`replica ${e.index}: ${e.outstanding} requests left, ${e.reservedTokens} tokens reserved after the run`);
      if (view.pending[e.index].nodeCount !== 0) throw new Error(`replica ${e.index}: the dispatched-prompt index still holds ${view.pending[e.index].nodeCount} nodes after the run`);
    }
  }

  const metrics = computeMetrics(records, replicasCount, warmupCount, outstandingAtArrival, engines, lastFinish, step, chunkBudget);
  if (!oracle) metrics.oracleHitRate = NaN;
  metrics.replication = sampleCount > 0 && sumDistinct > 0 ? sumHeld / sumDistinct : NaN;
  metrics.distinctCachedTokens = sampleCount > 0 ? sumDistinct / sampleCount : NaN;
  metrics.distinctCachedKeys = sampleCount > 0 ? sumKeys / sampleCount : NaN;
  // Engine state is not part of the result: drop tree references so results stay small and cloneable.
  for (const r of records) {
    r.lockedNode = null;
    r.pendingNode = null;
  }
  let iterations = 0;
  for (const e of engines) iterations += e.iterations;
  return {
    records,
    metrics,
    replicas: engines.map((e) => ({
      requests: view.dispatched[e.index],
      iterations: e.iterations,
      busySeconds: e.busySeconds,
      computedPrefillTokens: e.computedPrefillTokens,
      evictedTokens: e.cache.evictedTokens,
      peakKvTokens: e.peakKvTokens,
      cachedTokensAtEnd: e.cache.heldTokens,
    })),
    routerName: router.name,
    routerStats: router.stats ? router.stats() : {},
    workload: workload ? { name: workload.name, label: workload.label, rate: workload.rate, keySegments: keySegments.size } : { name: "custom", label: "given requests", rate: options.rate ?? NaN, keySegments: keySegments.size },
    kvCapacity: capacity,
    makespan: lastFinish,
    iterations,
    wallSeconds: (Date.now() - wallStart) / 1000,
    warmupRule: `${warmupDescription(warmup, samples)} (here the first ${warmupCount} of ${n})`,
    overloadRule: OVERLOAD_RULE_TEXT,
    timeline: timeline ? timeline.build(records) : null,
  };
}
