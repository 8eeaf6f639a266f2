// Preble's scheduler-throughput measurement (paper §5): many requests arrive at once and the global scheduler
// decides them back to back; no replica runs, so only the router's own work is timed.
import { checkInteger } from "../core/errors";
import { kvCapacityTokens, StepModel } from "../hardware/step-model";
import { PrebleRouter } from "./preble";
import { RequestRecord } from "./record";
import type { ClusterView } from "./routers";
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

/** A static view for a burst: nothing runs, every dispatched request is queued. */
class BurstView implements ClusterView {
  now = 0;
  readonly history: RequestRecord[] = [];
  readonly queued: Int32Array;
  readonly tokens: Float64Array;
  constructor(
    readonly replicaCount: number,
    readonly kvCapacity: number,
    readonly step: StepModel,
  ) {
    this.queued = new Int32Array(replicaCount);
    this.tokens = new Float64Array(replicaCount);
  }
  outstandingRequests(i: number): number {
    return this.queued[i];
  }
  outstandingTokens(i: number): number {
    return this.tokens[i];
  }
  dispatchedCount(i: number): number {
    return this.queued[i];
  }
  viewMatch(): number {
    return 0;
  }
  cachedMatch(): number {
    return 0;
  }
  queueLength(i: number): number {
    return this.queued[i];
  }
  pendingPrefillTokens(i: number): number {
    return this.tokens[i];
  }
  activeKvTokens(): number {
    return 0;
  }
  kvUtilization(): number {
    return 0;
  }
}

export interface BurstResult {
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
 * decile of a burst). Repeat a burst and take medians when the machine is shared. */
function nowSeconds(): number {
  return Number(process.hrtime.bigint()) / 1e9;
}

/** Routes `requests` (all at time 0) through a fresh Preble router (all features on, or as `options` say) and times
 * route + onDispatch per decile of the burst (wall-clock). */
export function dispatchBurst(requests: readonly ClusterRequest[], replicas: number, options: Record<string, unknown> = {}): BurstResult {
  const step = new StepModel("MISTRAL_7B", "A6000");
  const capacity = kvCapacityTokens("MISTRAL_7B", "A6000");
  const router = new PrebleRouter({ replicas, step, kvCapacity: capacity }, options);
  const view = new BurstView(replicas, capacity, step);
  const n = requests.length;
  const decile: number[] = [];
  let total = 0;
  for (let d = 0; d < 10; d++) {
    const from = Math.floor((d * n) / 10);
    const to = Math.floor(((d + 1) * n) / 10);
    const t0 = nowSeconds();
    for (let i = from; i < to; i++) {
      const req = requests[i];
      const g = router.route(req, view);
      const rec = new RequestRecord(req, 0);
      rec.replica = g;
      view.queued[g]++;
      view.tokens[g] += req.promptTokens;
      router.onDispatch(rec, view);
    }
    const s = nowSeconds() - t0;
    total += s;
    decile.push(s > 0 ? (to - from) / s : Infinity);
  }
  return { decisions: n, seconds: total, decisionsPerSecond: n / total, decilePerSecond: decile, perReplica: Array.from(view.queued), routerStats: router.stats() };
}
