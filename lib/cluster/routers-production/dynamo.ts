// NVIDIA Dynamo's KV router on our segment-level simulator (§6), as released in ai-dynamo/dynamo (read August 2026):
// the cost of lib/kv-router's DefaultWorkerSelector (overlap_score_weight × prefill blocks + decode blocks, softmax
// over it; formerly lib/llm/src/kv_router/scheduler.rs) and the per-worker active sequences of
// lib/kv-router/src/sequence.rs (formerly lib/llm/src/kv_router/sequence.rs). Its index of who caches what is built from
// the workers' KV events (stored / removed) — the replicas' TRUE cache state, delivered after the run's
// notificationDelay; its load terms come from what the router itself has in flight on each worker.
import { checkInteger, checkNumber, checkKnownKeys, checkOneOf, ParameterError } from "../../core/errors";
import type { Rng } from "../../core/rng";
import { RadixNode, RadixTree, SegmentLike } from "../radix-tree";
import type { RequestRecord } from "../record";
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
  /** count each in-flight request's generated output blocks in the decode term (router_track_output_blocks,
   * default false) */
  trackOutputBlocks: boolean;
  /** "released": the decode term as in sequence.rs; "runningKv" (our first version, kept to compare): the KV the
   * replica's running requests hold, prompt and full output, queued requests and this request left out */
  decodeTerm: "released" | "runningKv";
  /** "released": the prefill the router counts for its in-flight requests (their new tokens at routing, until their
   * first token); "replica" (our first version): the prefill the replica still has to do (running chunks + queue) */
  prefillTerm: "released" | "replica";
}

export const DYNAMO_ROUTER_DEFAULTS: Readonly<DynamoRouterOptions> = {
  overlapWeight: 1.0, // KvRouterConfig overlap_score_weight default
  temperature: 0, // KvRouterConfig router_temperature default: deterministic argmin
  blockSize: 16, // assumed: vLLM's default block size
  trackOutputBlocks: false, // KvRouterConfig router_track_output_blocks default
  decodeTerm: "released",
  prefillTerm: "released",
};

const OPTION_NAMES = Object.keys(DYNAMO_ROUTER_DEFAULTS);

export function dynamoRouterOptions(o: Record<string, unknown> = {}): DynamoRouterOptions {
  checkKnownKeys("路由器 dynamoKvRouter ", o, OPTION_NAMES);
  const d = DYNAMO_ROUTER_DEFAULTS;
  const track = o.trackOutputBlocks ?? d.trackOutputBlocks;
  if (typeof track !== "boolean") throw new ParameterError("trackOutputBlocks", `应为 true 或 false，实际是 ${JSON.stringify(track)}`);
  return {
    overlapWeight: checkNumber("overlapWeight", o.overlapWeight ?? d.overlapWeight, { min: 0 }),
    temperature: checkNumber("temperature", o.temperature ?? d.temperature, { min: 0 }),
    blockSize: checkInteger("blockSize", o.blockSize ?? d.blockSize, { min: 2 }),
    trackOutputBlocks: track as boolean,
    decodeTerm: checkOneOf("decodeTerm", o.decodeTerm ?? d.decodeTerm, ["released", "runningKv"] as const),
    prefillTerm: checkOneOf("prefillTerm", o.prefillTerm ?? d.prefillTerm, ["released", "replica"] as const),
  };
}

/** Dynamo's cost of sending a request to one worker, in KV blocks (lower is better): overlap_weight × prefill
 * blocks + decode blocks, where prefill blocks = (this request's tokens not cached there + the prefill tokens of the
 * worker's in-flight requests not yet past their first token) / block size, and decode blocks = the distinct blocks
 * the worker's in-flight requests hold (`activeBlocks`) + this request's blocks not among them (`newBlocks`). */
export function dynamoCost(args: { promptTokens: number; overlapTokens: number; activePrefillTokens: number; activeBlocks: number; newBlocks: number; blockSize: number; overlapWeight: number }): { prefillBlocks: number; decodeBlocks: number; cost: number } {
  const prefillBlocks = dynamoPrefillBlocks(args.promptTokens, args.overlapTokens, args.activePrefillTokens, args.blockSize);
  const decodeBlocks = args.activeBlocks + args.newBlocks;
  return { prefillBlocks, decodeBlocks, cost: costOfBlocks(args.overlapWeight, prefillBlocks, decodeBlocks) };
}

/** dynamoCost's prefill term (the router's hot path calls it without building the object). */
export function dynamoPrefillBlocks(promptTokens: number, overlapTokens: number, activePrefillTokens: number, blockSize: number): number {
  return (promptTokens - overlapTokens + activePrefillTokens) / blockSize;
}

/** dynamoCost's total from its two terms. */
export function costOfBlocks(overlapWeight: number, prefillBlocks: number, decodeBlocks: number): number {
  return overlapWeight * prefillBlocks + decodeBlocks;
}

/** The full prompt blocks of a request (sequence.rs hashes only whole blocks). */
export function promptBlocks(promptTokens: number, blockSize: number): number {
  return Math.floor(promptTokens / blockSize);
}

/** One worker's active sequences (sequence.rs ActiveSequences): the prompts the router has in flight there, queued
 * or running, as a counting prefix tree. Block k of a prompt is the same block in two prompts exactly when they agree
 * on the first (k + 1) × blockSize tokens (chained block hashes), so the distinct blocks of the set are, per node of
 * the tree, the block ends that fall inside that node's segment. */
export class ActiveSequences {
  readonly tree = new RadixTree({ evictable: false, recycle: true, refsOnPath: true });
  /** distinct prompt blocks held by the in-flight requests (active_blocks) */
  activeBlocks = 0;
  /** prompt tokens still to prefill of the in-flight requests not yet past their first token (active_tokens) */
  activePrefillTokens = 0;
  private readonly prefilling: Array<{ record: RequestRecord; tokens: number }> = [];
  readonly inFlight = new Map<RequestRecord, RadixNode>();

  constructor(readonly blockSize: number) {}

  private nodeBlocks(n: RadixNode): number {
    const b = this.blockSize;
    return Math.floor((n.prefixTokens + n.tokens) / b) - Math.floor(n.prefixTokens / b);
  }

  /** new_blocks: this prompt's whole blocks not among the in-flight ones. */
  newBlocks(segments: readonly SegmentLike[], promptTokens: number): number {
    const matched = this.tree.matchTokens(segments);
    return promptBlocks(promptTokens, this.blockSize) - Math.floor(matched / this.blockSize);
  }

  add(record: RequestRecord, newPrefillTokens: number): void {
    const leaf = this.tree.insert(record.request.segments, record.request.segments.length, 0);
    for (let n: RadixNode | null = leaf; n !== null && n.parent !== null; n = n.parent) if (n.refs === 0) this.activeBlocks += this.nodeBlocks(n);
    this.tree.lock(leaf);
    this.inFlight.set(record, leaf);
    this.activePrefillTokens += newPrefillTokens;
    this.prefilling.push({ record, tokens: newPrefillTokens });
  }

  remove(record: RequestRecord): void {
    const leaf = this.inFlight.get(record);
    if (leaf === undefined) return;
    this.inFlight.delete(record);
    this.tree.unlock(leaf);
    for (let n: RadixNode | null = leaf; n !== null && n.parent !== null; n = n.parent) if (n.refs === 0) this.activeBlocks -= this.nodeBlocks(n);
    this.tree.prune(leaf);
    this.sweepPrefills(record);
  }

  private sweptAt = NaN;

  /** mark_prefill_completed: drop the prefill tokens of requests past their first token (or finished). First tokens
   * only appear as simulated time advances, so one sweep per instant `now` suffices (a burst at one instant, with no
   * first token ever, sweeps once). */
  sweepAt(now: number): void {
    if (now === this.sweptAt) return;
    this.sweptAt = now;
    this.sweepPrefills();
  }

  sweepPrefills(finished: RequestRecord | null = null): void {
    const list = this.prefilling;
    let k = 0;
    for (let i = 0; i < list.length; i++) {
      const e = list[i];
      if (e.record === finished || Number.isFinite(e.record.firstToken)) this.activePrefillTokens -= e.tokens;
      else list[k++] = e;
    }
    list.length = k;
  }

  /** Output blocks generated so far by the in-flight requests (router_track_output_blocks). */
  outputBlocks(): number {
    let blocks = 0;
    for (const r of this.inFlight.keys()) blocks += Math.floor(r.generated / this.blockSize);
    return blocks;
  }
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

  /** overlapTokens for every worker at once, into `out` (one walk of the index instead of one per worker: a worker
   * drops out of the walk where it holds less than the whole segment, exactly where its own walk would stop). */
  overlapAll(request: ClusterRequest, out: Float64Array, matching: Uint8Array): void {
    const workers = this.workers;
    out.fill(0);
    matching.fill(1);
    let left = workers;
    let node: RadixNode<Int32Array> = this.tree.root;
    for (const s of request.segments) {
      const c = node.child(s.id);
      if (c === undefined) break;
      const held = c.payload as Int32Array;
      for (let w = 0; w < workers; w++) {
        if (matching[w] === 0) continue;
        out[w] += held[w];
        if (held[w] < c.tokens) {
          matching[w] = 0;
          left--;
        }
      }
      if (left === 0) break;
      node = c;
    }
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
  readonly active: ActiveSequences[] = [];
  private readonly costs: Float64Array;
  /** prefill tokens this request would add on each worker (set by route, used by onDispatch) */
  private readonly newPrefill: Float64Array;
  /** the last decision's terms per worker (route fills them; lastCosts reads them) */
  private readonly prefillBlocks: Float64Array;
  private readonly decodeBlocks: Float64Array;
  private readonly overlaps: Float64Array;
  private readonly matching: Uint8Array;
  private sumOverlapBlocks = 0;
  private decisions = 0;
  private passedUpHits = 0;

  constructor(readonly replicas: number, private readonly r: Rng, o: Record<string, unknown> = {}) {
    this.options = dynamoRouterOptions(o);
    this.index = new KvEventIndex(replicas);
    this.costs = new Float64Array(replicas);
    this.newPrefill = new Float64Array(replicas);
    this.prefillBlocks = new Float64Array(replicas);
    this.decodeBlocks = new Float64Array(replicas);
    this.overlaps = new Float64Array(replicas);
    this.matching = new Uint8Array(replicas);
    for (let w = 0; w < replicas; w++) this.active.push(new ActiveSequences(this.options.blockSize));
  }

  /** The last decision's per-worker terms, for tests and traces (empty before the first decision). */
  get lastCosts(): Array<{ prefillBlocks: number; decodeBlocks: number; cost: number; overlapTokens: number }> {
    if (this.decisions === 0) return [];
    return Array.from({ length: this.replicas }, (_, w) => ({ prefillBlocks: this.prefillBlocks[w], decodeBlocks: this.decodeBlocks[w], cost: this.costs[w], overlapTokens: this.overlaps[w] }));
  }

  route(request: ClusterRequest, view: ClusterView): number {
    const o = this.options;
    const bs = o.blockSize;
    this.index.learn(request);
    const overlaps = this.overlaps;
    this.index.overlapAll(request, overlaps, this.matching);
    const half = request.promptTokens / 2;
    let someHalf = false;
    for (let w = 0; w < this.replicas; w++) {
      // overlap counts whole blocks only (the index hashes blocks); the engine always computes the last token
      const overlap = Math.max(0, Math.min(Math.floor(overlaps[w] / bs) * bs, request.promptTokens - 1));
      overlaps[w] = overlap;
      if (overlap >= half) someHalf = true;
      const a = this.active[w];
      a.sweepAt(view.now);
      const activePrefill = o.prefillTerm === "released" ? a.activePrefillTokens : view.pendingPrefillTokens(w);
      // released: distinct prompt blocks in flight (+ generated output blocks with the flag) + this request's new ones;
      // runningKv (our first version): the KV of the replica's running requests, prompt and full output
      const active = o.decodeTerm === "released" ? a.activeBlocks + (o.trackOutputBlocks ? a.outputBlocks() : 0) : view.activeKvTokens(w) / bs;
      const fresh = o.decodeTerm === "released" ? a.newBlocks(request.segments, request.promptTokens) : 0;
      // dynamoCost's terms (the same functions, without an object per worker)
      const prefillBlocks = dynamoPrefillBlocks(request.promptTokens, overlap, activePrefill, bs);
      const decodeBlocks = active + fresh;
      this.prefillBlocks[w] = prefillBlocks;
      this.decodeBlocks[w] = decodeBlocks;
      this.costs[w] = costOfBlocks(o.overlapWeight, prefillBlocks, decodeBlocks);
      this.newPrefill[w] = request.promptTokens - overlap;
    }
    const w = softmaxSample(this.costs, o.temperature, this.r);
    this.sumOverlapBlocks += overlaps[w] / bs;
    // Passed up a worker holding at least half the prompt for one holding less (load won over the cache hit).
    if (overlaps[w] < half && someHalf) this.passedUpHits++;
    this.decisions++;
    return w;
  }

  /** add_request on the chosen worker: its prompt blocks join the worker's active set, its new tokens the prefill. */
  onDispatch(record: RequestRecord): void {
    this.active[record.replica].add(record, this.newPrefill[record.replica]);
  }

  /** free: the request's blocks leave the active set (a block shared with another in-flight request stays). */
  onFinish(record: RequestRecord): void {
    this.active[record.replica].remove(record);
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
  "NVIDIA Dynamo KV router (as released, August 2026): cost = 1.0 × prefill blocks (uncached prompt + the prefill of the worker's in-flight requests) + decode blocks (distinct prompt blocks of its in-flight requests, queued included, + this request's blocks not among them), argmin (temperature 0); index from the replicas' KV store / remove events",
  (ctx: RouterContext, o) => new DynamoKvRouter(ctx.replicas, ctx.rng, o),
);
