// Samples of a cluster run over time (issue 14): what the caches hold across replicas (the replication factor's
// snapshots, `unionOf`) and the timeline — every Δt of simulated time, per replica, the outstanding and queued
// requests, the KV in use, the key portions held fully cached, and, per interval, the requests dispatched there
// and how much of their prompts was cached (at admission, on the chosen replica at dispatch, anywhere at dispatch).
// Memory is bounded by the number of samples, not by the number of events; simulate.ts drives the recorder.
import { checkInteger, checkNumber, ParameterError } from "../core/errors";
import { KeyCounter, keyTester, unionDistinct } from "./bucketing";
import type { RadixNode, RadixTree } from "./radix-tree";
import type { RequestRecord } from "./record";
import type { ClusterRequest } from "./workloads";

/** `ClusterOptions.timeline`: `true` for the defaults, or these options. */
export interface TimelineOptions {
  /** seconds of simulated time between samples (> 0); default: the last arrival's time / 100 */
  interval?: number;
  /** samples at most (the memory bound); default 2,000. The arrivals must fit: interval × maxSamples > the last
   * arrival; sampling the drain after the last arrival stops at the bound (Timeline.truncated) */
  maxSamples?: number;
  /** also record which key portions each replica holds fully cached (walks each cache once a sample); default true */
  keys?: boolean;
}

/** The timeline of one run. Arrays are indexed [replica][sample]. Sample k is taken at times[k] = (k + 1) · interval:
 * the state fields (outstanding … cachedKeys) are the state at that instant; the interval fields (dispatched …
 * oracleHitRate) describe the requests that arrived in [k · interval, (k + 1) · interval). */
export interface Timeline {
  interval: number;
  replicas: number;
  /** KV capacity of one replica (tokens) */
  kvCapacity: number;
  times: number[];
  /** requests dispatched to the replica and not finished */
  outstanding: number[][];
  /** of those, waiting in the replica's queue (not admitted yet) */
  queued: number[][];
  /** KV tokens in use: the cache tree (locked prefixes included) + running requests' reservations; ≤ kvCapacity */
  kvUsed: number[][];
  /** tokens held by the replica's prefix cache */
  cachedTokens: number[][];
  /** key indices (document / tool / video; for keyed workloads the popularity rank, 0 = hottest) whose key
   * segment the replica holds fully cached, ascending; null when recorded with keys: false */
  cachedKeys: number[][][] | null;
  /** requests dispatched to the replica in the interval */
  dispatched: number[][];
  /** prompt tokens of those requests */
  promptTokens: number[][];
  /** their hit rate: cached prompt tokens at admission ÷ prompt tokens (NaN when none arrived) */
  hitRate: number[][];
  /** tokens of their prompts in the chosen replica's cache at dispatch ÷ prompt tokens */
  dispatchHitRate: number[][];
  /** tokens of their prompts in the longest match over ALL replicas' caches at dispatch ÷ prompt tokens (the
   * oracle: what a request could hit if it could read every cache; ≥ dispatchHitRate) */
  oracleHitRate: number[][];
  /** sampling stopped at maxSamples before the run ended (the drain after the last arrival is cut) */
  truncated: boolean;
}

/** What the recorder reads of the simulation at a sample (simulate.ts's view and engines). */
export interface TimelineSource {
  outstanding(replica: number): number;
  queued(replica: number): number;
  kvUsed(replica: number): number;
  cache(replica: number): RadixTree;
}

const DEFAULT_MAX_SAMPLES = 2000;

/** Records the state fields at each sample; the interval fields are binned from the records when the run ends. */
export class TimelineRecorder {
  readonly interval: number;
  readonly maxSamples: number;
  private readonly keys: boolean;
  private readonly keyOfSegment: Int32Array;
  private readonly marks: Uint8Array;
  /** deepest position of a key segment in any prompt (the cache walk stops there) */
  private readonly keyDepth: number;
  private readonly times: number[] = [];
  private readonly outstanding: number[][];
  private readonly queued: number[][];
  private readonly kvUsed: number[][];
  private readonly cachedTokens: number[][];
  private readonly cachedKeys: number[][][];
  private readonly stack: RadixNode[] = [];
  private readonly depths: number[] = [];
  truncated = false;

  constructor(options: true | TimelineOptions, requests: readonly ClusterRequest[], readonly replicas: number, readonly kvCapacity: number) {
    const o: TimelineOptions = options === true ? {} : options;
    const lastArrival = requests[requests.length - 1].arrival;
    this.maxSamples = checkInteger("timeline.maxSamples", o.maxSamples ?? DEFAULT_MAX_SAMPLES, { min: 1, max: 1_000_000 });
    this.interval = checkNumber("timeline.interval", o.interval ?? Math.max(lastArrival, 1e-3) / 100, { above: 0 });
    const needed = Math.floor(lastArrival / this.interval) + 1;
    if (needed > this.maxSamples) throw new ParameterError("timeline.interval", `间隔 ${this.interval} 秒要 ${needed} 个样本才盖得住到达（最后一个在 ${lastArrival.toFixed(1)} 秒），超过 maxSamples = ${this.maxSamples}：加大间隔或 maxSamples`);
    this.keys = o.keys ?? true;
    // segment id → key index (the smallest key whose requests use it as their key portion), −1 for other segments
    let maxSegment = -1;
    let maxKey = -1;
    let depth = 0;
    for (const r of requests) {
      if (r.keySegment > maxSegment) maxSegment = r.keySegment;
      if (r.key > maxKey) maxKey = r.key;
    }
    this.keyOfSegment = new Int32Array(maxSegment + 1).fill(-1);
    for (const r of requests) {
      const s = r.keySegment;
      if (s >= 0 && (this.keyOfSegment[s] < 0 || this.keyOfSegment[s] > r.key)) this.keyOfSegment[s] = r.key;
      for (let i = 0; i < r.segments.length; i++) if (r.segments[i].id === s && i + 1 > depth) depth = i + 1;
    }
    this.marks = new Uint8Array(maxKey + 1);
    this.keyDepth = depth;
    const perReplica = <T>(): T[][] => Array.from({ length: replicas }, () => [] as T[]);
    this.outstanding = perReplica<number>();
    this.queued = perReplica<number>();
    this.kvUsed = perReplica<number>();
    this.cachedTokens = perReplica<number>();
    this.cachedKeys = perReplica<number[]>();
  }

  /** Time of sample k (0-based). */
  timeOf(k: number): number {
    return (k + 1) * this.interval;
  }

  /** Samples taken so far. */
  get count(): number {
    return this.times.length;
  }

  /** The memory bound is reached: no further sample may be taken. */
  get full(): boolean {
    return this.times.length >= this.maxSamples;
  }

  /** Records the state at `time`. */
  sample(time: number, source: TimelineSource): void {
    this.times.push(time);
    for (let i = 0; i < this.replicas; i++) {
      const cache = source.cache(i);
      this.outstanding[i].push(source.outstanding(i));
      this.queued[i].push(source.queued(i));
      this.kvUsed[i].push(source.kvUsed(i));
      this.cachedTokens[i].push(cache.heldTokens);
      if (this.keys) this.cachedKeys[i].push(this.fullyCachedKeys(cache));
    }
  }

  /** Key indices whose segment the cache holds whole (walks no deeper than a key segment can sit), ascending. */
  private fullyCachedKeys(cache: RadixTree): number[] {
    const stack = this.stack;
    const depths = this.depths;
    const keyOf = this.keyOfSegment;
    const marks = this.marks;
    let found = 0;
    cache.root.forEachChild(this.pushRootChild);
    while (stack.length > 0) {
      const node = stack.pop() as RadixNode;
      const depth = depths.pop() as number;
      if (node.held !== node.tokens) continue; // a partly evicted segment: neither whole nor with children
      const k = node.segment < keyOf.length ? keyOf[node.segment] : -1;
      if (k >= 0 && marks[k] === 0) {
        marks[k] = 1;
        found++;
      }
      if (depth < this.keyDepth) {
        for (let i = 0; i < node.childSlots; i++) {
          const c = node.childAt(i);
          if (c !== null) {
            stack.push(c);
            depths.push(depth + 1);
          }
        }
      }
    }
    const out = new Array<number>(found);
    let j = 0;
    for (let k = 0; j < found; k++) {
      if (marks[k] === 1) {
        out[j++] = k;
        marks[k] = 0;
      }
    }
    return out;
  }

  private readonly pushRootChild = (c: RadixNode): void => {
    this.stack.push(c);
    this.depths.push(1);
  };

  /** The timeline, with the interval fields binned from the run's records (arrival order). */
  build(records: readonly RequestRecord[]): Timeline {
    const samples = this.times.length;
    const zeros = (): number[][] => Array.from({ length: this.replicas }, () => new Array<number>(samples).fill(0));
    const dispatched = zeros();
    const prompt = zeros();
    const admitted = zeros();
    const atDispatch = zeros();
    const anywhere = zeros();
    for (const r of records) {
      const k = Math.floor(r.arrival / this.interval);
      if (k >= samples) continue; // only when truncated before the last arrival, which the constructor rules out
      const i = r.replica;
      dispatched[i][k]++;
      prompt[i][k] += r.promptTokens;
      admitted[i][k] += r.cachedTokens;
      atDispatch[i][k] += r.cachedAtDispatch;
      anywhere[i][k] += r.clusterCachedAtDispatch;
    }
    const ratio = (a: number[][]): number[][] => a.map((row, i) => row.map((x, k) => (prompt[i][k] > 0 ? x / prompt[i][k] : NaN)));
    return {
      interval: this.interval,
      replicas: this.replicas,
      kvCapacity: this.kvCapacity,
      times: this.times.slice(),
      outstanding: this.outstanding,
      queued: this.queued,
      kvUsed: this.kvUsed,
      cachedTokens: this.cachedTokens,
      cachedKeys: this.keys ? this.cachedKeys : null,
      dispatched,
      promptTokens: prompt,
      hitRate: ratio(admitted),
      dispatchHitRate: ratio(atDispatch),
      oracleHitRate: ratio(anywhere),
      truncated: this.truncated,
    };
  }
}

/** Distinct tokens and fully cached key segments over the union of several caches (walks them together;
 * bucketing.ts). For the replication factor's snapshots. `keyDepth`: no key segment sits deeper in any tree (see
 * keySegmentDepth; the default walks every private subtree to its leaves). */
export function unionOf(trees: RadixTree[], keySegments: Set<number>, keyDepth = Infinity): { distinct: number; keys: number } {
  const keys = new KeyCounter(keySegments);
  let held = 0;
  for (const t of trees) held += t.heldTokens;
  const distinct = unionDistinct(trees.map((t) => t.root), held, keys, keyDepth);
  return { distinct, keys: keys.count };
}

/** The deepest a key segment sits in the requests' prompts and outputs (a node's depth: 1 for a prompt's first
 * segment), 0 when none does: the caches hold only prompts and prompts followed by their outputs. */
export function keySegmentDepth(requests: readonly ClusterRequest[], keySegments: ReadonlySet<number>): number {
  let deepest = 0;
  if (keySegments.size === 0) return 0;
  const isKey = keyTester(keySegments);
  for (let i = 0; i < requests.length; i++) {
    const r = requests[i];
    const segments = r.segments;
    for (let j = deepest; j < segments.length; j++) if (isKey(segments[j].id)) deepest = j + 1;
    if (segments.length + 1 > deepest && isKey(r.outputSegment.id)) deepest = segments.length + 1;
  }
  return deepest;
}
