// Scheduler throughput by Preble's method (paper §5): many requests arrive at once and a router decides them back to
// back; no replica runs, so only the router's work — and the view bookkeeping every dispatch does in simulateCluster —
// is timed. One loop serves every router: Preble's E2 (bench e2-burst, notebook 03) and all registered routers
// (bench router-burst).
import { checkInteger } from "../core/errors";
import { rng } from "../core/rng";
import { kvCapacityTokens, StepModel } from "../hardware/step-model";
import { RadixTree } from "./radix-tree";
import { RequestRecord } from "./record";
import { ClusterView, createRouter, RouterSpec } from "./routers";
import { ClusterRequest, generateWorkload } from "./workloads";

/** The bench's tool-calling tree: 200 tool prefixes of 1.5–2.5k tokens, Zipf 1.1, a unique ~100-token question. */
export const BURST_TOOL_OVERRIDES: Readonly<Record<string, number>> = {
  systemPromptTokens: 0,
  items: 200,
  itemTokensMean: 2000,
  itemTokensCv: 0.15,
  itemTokensMin: 1500,
  itemTokensMax: 2500,
  popularityZipf: 1.1,
  questionTokensMean: 100,
  questionTokensCv: 0.3,
};

/** `count` requests of a workload, all arriving at time 0. */
export function burstRequests(workload: "toolCalling" | "videoQA", count: number, seed: number | string = 1): ClusterRequest[] {
  checkInteger("count", count, { min: 1 });
  const w = generateWorkload(workload, { rate: 1000, requestCount: count, seed, overrides: workload === "toolCalling" ? { ...BURST_TOOL_OVERRIDES } : {} });
  return w.requests.map((r) => ({ ...r, arrival: 0 }));
}

/** The view during a burst: the simulator's at arrival time with nothing finished — outstanding requests and tokens
 * grow with every dispatch, `viewMatch` reads the index of prompts dispatched so far, the caches are empty. */
class BurstView implements ClusterView {
  now = 0;
  readonly history: RequestRecord[] = [];
  readonly outstandingReq: Int32Array;
  readonly outstandingTok: Float64Array;
  readonly pending: RadixTree[] = [];
  constructor(
    readonly replicaCount: number,
    readonly kvCapacity: number,
    readonly step: StepModel,
    /** keep the dispatched-prompt index that viewMatch reads (routers that keep no tree of their own need it) */
    readonly dispatchedIndex: boolean,
  ) {
    this.outstandingReq = new Int32Array(replicaCount);
    this.outstandingTok = new Float64Array(replicaCount);
    if (dispatchedIndex) for (let i = 0; i < replicaCount; i++) this.pending.push(new RadixTree({ evictable: false }));
  }
  outstandingRequests(i: number): number {
    return this.outstandingReq[i];
  }
  outstandingTokens(i: number): number {
    return this.outstandingTok[i];
  }
  dispatchedCount(i: number): number {
    return this.outstandingReq[i];
  }
  viewMatch(request: ClusterRequest, i: number): number {
    return this.dispatchedIndex ? this.pending[i].matchTokens(request.segments) : 0;
  }
  cachedMatch(): number {
    return 0;
  }
  queueLength(i: number): number {
    return this.outstandingReq[i];
  }
  pendingPrefillTokens(i: number): number {
    return this.outstandingTok[i];
  }
  activeKvTokens(): number {
    return 0;
  }
  kvUtilization(): number {
    return 0;
  }
  /** The bookkeeping simulateCluster does when it dispatches a request. */
  dispatch(request: ClusterRequest, replica: number): RequestRecord {
    const record = new RequestRecord(request, 0);
    record.replica = replica;
    this.history.push(record);
    this.outstandingReq[replica]++;
    this.outstandingTok[replica] += request.promptTokens;
    if (this.dispatchedIndex) {
      const tree = this.pending[replica];
      tree.lock(tree.insert(request.segments, request.segments.length, 0));
    }
    return record;
  }
}

export interface BurstResult {
  router: string;
  decisions: number;
  seconds: number;
  decisionsPerSecond: number;
  /** decisions per second within each tenth of the burst (per-decision cost must stay flat) */
  decilePerSecond: number[];
  /** requests per replica at the end */
  perReplica: number[];
  routerStats: Record<string, unknown>;
}

/** Wall-clock seconds (high resolution; process.cpuUsage only ticks every few milliseconds, too coarse for a
 * tenth of a burst). Repeat a burst and take the best or the median when the machine is shared. */
function nowSeconds(): number {
  return Number(process.hrtime.bigint()) / 1e9;
}

export interface BurstOptions {
  seed?: number | string;
  /** maintain the view's index of dispatched prompts (default true). In a burst nothing finishes, so the index only
   * grows — unlike in a simulation; Preble's E2 keeps its own global tree and never reads it, so its measurement
   * (the paper's) leaves it out. */
  dispatchedIndex?: boolean;
  /** the clock that times the tenths, in seconds (default: the machine's wall clock; tests inject their own) */
  clock?: () => number;
}

/** Routes `requests` (all at time 0) through a fresh router — a registry name, `{ name, ...options }` or a factory —
 * timing route + the view's bookkeeping + onDispatch per tenth of the burst. */
export function routerBurst(spec: RouterSpec, requests: readonly ClusterRequest[], replicas: number, options: BurstOptions = {}): BurstResult {
  checkInteger("replicas", replicas, { min: 1 });
  const step = new StepModel("MISTRAL_7B", "A6000");
  const capacity = kvCapacityTokens("MISTRAL_7B", "A6000");
  const router = createRouter(spec, { replicas, rng: rng(options.seed ?? 1).fork("router"), step, kvCapacity: capacity });
  const view = new BurstView(replicas, capacity, step, options.dispatchedIndex ?? true);
  const n = requests.length;
  const clock = options.clock ?? nowSeconds;
  const decilePerSecond: number[] = [];
  let total = 0;
  for (let d = 0; d < 10; d++) {
    const from = Math.floor((d * n) / 10);
    const to = Math.floor(((d + 1) * n) / 10);
    const t0 = clock();
    for (let i = from; i < to; i++) {
      const request = requests[i];
      const record = view.dispatch(request, router.route(request, view));
      router.onDispatch?.(record, view);
    }
    const s = clock() - t0;
    total += s;
    decilePerSecond.push(s > 0 ? (to - from) / s : Infinity);
  }
  return { router: router.name, decisions: n, seconds: total, decisionsPerSecond: n / total, decilePerSecond, perReplica: Array.from(view.outstandingReq), routerStats: router.stats?.() ?? {} };
}

/** Preble's scheduler (all features on, or as `options` say) on a burst: the measurement of the paper's §5. */
export function dispatchBurst(requests: readonly ClusterRequest[], replicas: number, options: Record<string, unknown> = {}, clock?: () => number): BurstResult {
  return routerBurst({ name: "preble", ...options }, requests, replicas, { dispatchedIndex: false, clock });
}
