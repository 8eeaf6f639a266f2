// NVIDIA Dynamo's KV router (ai-dynamo/dynamo, kv_router scheduler: DefaultWorkerSelector and softmax_sample),
// on our segment-level simulator (§6). Its index of who caches what is built from the workers' KV events
// (stored / removed), i.e. the replicas' TRUE cache state, delivered after the run's notificationDelay.
import { checkInteger, checkNumber, checkKnownKeys } from "../../core/errors";
import type { Rng } from "../../core/rng";
import { RadixNode, RadixTree } from "../radix-tree";
import type { ClusterView, EvictionNotice, Router, RouterContext, StoreNotice } from "../routers";
import { registerRouter } from "../routers";
import type { ClusterRequest } from "../workloads";

export interface DynamoRouterOptions {
  /** weight of the prefill blocks in the cost (Dynamo's overlap_score_weight, default 1.0) */
  overlapWeight: number;
  /** softmax temperature over normalized costs; 0 → argmin (router_temperature, default 0) */
  temperature: number;
  /** KV block size in tokens (Dynamo takes the engine's; 16 is vLLM's default — assumed here) */
  blockSize: number;
}

export const DYNAMO_ROUTER_DEFAULTS: Readonly<DynamoRouterOptions> = {
  overlapWeight: 1.0, // KvRouterConfig overlap_score_weight default
  temperature: 0, // KvRouterConfig router_temperature default: deterministic argmin
  blockSize: 16, // assumed: vLLM's default block size
};

const OPTION_NAMES = Object.keys(DYNAMO_ROUTER_DEFAULTS);

export function dynamoRouterOptions(o: Record<string, unknown> = {}): DynamoRouterOptions {
  checkKnownKeys("路由器 dynamoKvRouter ", o, OPTION_NAMES);
  const d = DYNAMO_ROUTER_DEFAULTS;
  return {
    overlapWeight: checkNumber("overlapWeight", o.overlapWeight ?? d.overlapWeight, { min: 0 }),
    temperature: checkNumber("temperature", o.temperature ?? d.temperature, { min: 0 }),
    blockSize: checkInteger("blockSize", o.blockSize ?? d.blockSize, { min: 1 }),
  };
}

/** Dynamo's cost of sending a request to one worker, in KV blocks (lower is better). */
export function dynamoCost(args: { promptTokens: number; overlapTokens: number; activePrefillTokens: number; activeKvTokens: number; blockSize: number; overlapWeight: number }): { prefillBlocks: number; decodeBlocks: number; cost: number } {
  // prefill blocks = (tokens of this request not cached there + the worker's prefill still to do) / block size
  const prefillBlocks = (args.promptTokens - args.overlapTokens + args.activePrefillTokens) / args.blockSize;
  // decode blocks = the KV blocks the worker's running requests hold
  const decodeBlocks = args.activeKvTokens / args.blockSize;
  return { prefillBlocks, decodeBlocks, cost: args.overlapWeight * prefillBlocks + decodeBlocks };
}

/** softmax_sample: temperature 0 → a uniformly random argmin; otherwise normalize the costs by their range,
 * negate (lower is better), divide by the temperature and sample from the softmax. */
export function softmaxSample(costs: ArrayLike<number>, temperature: number, r: Rng): number {
  const n = costs.length;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    if (costs[i] < min) min = costs[i];
    if (costs[i] > max) max = costs[i];
  }
  if (temperature === 0) {
    let ties = 0;
    for (let i = 0; i < n; i++) if (costs[i] === min) ties++;
    let k = ties > 1 ? r.int(ties) : 0;
    for (let i = 0; i < n; i++) if (costs[i] === min && k-- === 0) return i;
  }
  if (min === max) return r.int(n);
  const weights = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    // exp(−(c − min)/(range·T)): the offset min cancels in the softmax, as in the released code
    weights[i] = Math.exp(-(costs[i] - min) / ((max - min) * temperature));
    total += weights[i];
  }
  let u = r.uniform() * total;
  for (let i = 0; i < n; i++) {
    u -= weights[i];
    if (u <= 0) return i;
  }
  return n - 1;
}

/** Dynamo's global block index: per node, the tokens of its segment each worker holds (from KV events). */
export class KvEventIndex {
  readonly tree: RadixTree<Int32Array>;
  /** tokens per segment id, learned from routed requests (events carry ids only) */
  private readonly segmentTokens = new Map<number, number>();
  stored = 0;
  removed = 0;
  ignored = 0;

  constructor(readonly workers: number) {
    this.tree = new RadixTree<Int32Array>({ evictable: false, createPayload: () => new Int32Array(workers) });
  }

  learn(request: ClusterRequest): void {
    for (const s of request.segments) this.segmentTokens.set(s.id, s.tokens);
    this.segmentTokens.set(request.outputSegment.id, request.outputSegment.tokens);
  }

  /** A "KV stored" event: every segment on the path is now held whole by the worker. */
  onStore(worker: number, path: readonly number[]): void {
    let node = this.tree.root;
    for (const id of path) {
      const tokens = this.segmentTokens.get(id);
      if (tokens === undefined) {
        this.ignored++;
        return;
      }
      node = this.tree.extend(node, { id, tokens }, 0);
      (node.payload as Int32Array)[worker] = tokens;
    }
    this.stored++;
  }

  /** A "KV removed" event: the node keeps `heldTokens` of its segment on the worker (0 when removed). */
  onEvict(worker: number, path: readonly number[], heldTokens: number): void {
    const node = this.tree.find(path);
    if (node === null) {
      this.ignored++;
      return;
    }
    (node.payload as Int32Array)[worker] = heldTokens;
    this.removed++;
  }

  /** Tokens of the prompt's prefix the worker holds according to the events. */
  overlapTokens(request: ClusterRequest, worker: number): number {
    let node: RadixNode<Int32Array> = this.tree.root;
    let tokens = 0;
    for (const s of request.segments) {
      const c = node.child(s.id);
      if (c === undefined) break;
      const held = (c.payload as Int32Array)[worker];
      tokens += held;
      if (held < c.tokens) break;
      node = c;
    }
    return tokens;
  }
}

export class DynamoKvRouter implements Router {
  readonly name = "dynamoKvRouter";
  readonly options: DynamoRouterOptions;
  readonly index: KvEventIndex;
  private readonly costs: Float64Array;
  private sumOverlapBlocks = 0;
  private decisions = 0;
  private passedUpHits = 0;
  /** the last decision's per-worker terms, for tests and traces */
  lastCosts: Array<{ prefillBlocks: number; decodeBlocks: number; cost: number; overlapTokens: number }> = [];

  constructor(readonly replicas: number, private readonly r: Rng, o: Record<string, unknown> = {}) {
    this.options = dynamoRouterOptions(o);
    this.index = new KvEventIndex(replicas);
    this.costs = new Float64Array(replicas);
  }

  route(request: ClusterRequest, view: ClusterView): number {
    const o = this.options;
    this.index.learn(request);
    this.lastCosts = [];
    for (let w = 0; w < this.replicas; w++) {
      // overlap counts whole blocks only (the index hashes blocks); the engine always computes the last token
      const overlap = Math.min(Math.floor(this.index.overlapTokens(request, w) / o.blockSize) * o.blockSize, request.promptTokens - 1);
      const c = dynamoCost({ promptTokens: request.promptTokens, overlapTokens: Math.max(0, overlap), activePrefillTokens: view.pendingPrefillTokens(w), activeKvTokens: view.activeKvTokens(w), blockSize: o.blockSize, overlapWeight: o.overlapWeight });
      this.costs[w] = c.cost;
      this.lastCosts.push({ ...c, overlapTokens: Math.max(0, overlap) });
    }
    const w = softmaxSample(this.costs, o.temperature, this.r);
    this.sumOverlapBlocks += this.lastCosts[w].overlapTokens / o.blockSize;
    // Passed up a worker holding at least half the prompt for one holding less (load won over the cache hit).
    const half = request.promptTokens / 2;
    if (this.lastCosts[w].overlapTokens < half && this.lastCosts.some((c) => c.overlapTokens >= half)) this.passedUpHits++;
    this.decisions++;
    return w;
  }

  onStore(notice: StoreNotice): void {
    this.index.onStore(notice.replica, notice.path);
  }

  onEvict(notice: EvictionNotice): void {
    this.index.onEvict(notice.replica, notice.path, notice.removed ? 0 : notice.heldTokens);
  }

  stats(): Record<string, unknown> {
    return { decisions: this.decisions, passedUpHits: this.passedUpHits, meanOverlapBlocks: this.decisions ? this.sumOverlapBlocks / this.decisions : 0, storeEvents: this.index.stored, removeEvents: this.index.removed, ignoredEvents: this.index.ignored, indexNodes: this.index.tree.nodeCount };
  }
}

registerRouter(
  "dynamoKvRouter",
  "NVIDIA Dynamo KV router: cost = 1.0 × prefill blocks (uncached prompt + the worker's pending prefill) + decode blocks (its active KV), argmin (temperature 0); index from the replicas' KV store / remove events",
  (ctx: RouterContext, o) => new DynamoKvRouter(ctx.replicas, ctx.rng, o),
);
