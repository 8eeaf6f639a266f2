// The Kubernetes Gateway API Inference Extension's endpoint picker with its default scorers (§6): queue scorer,
// KV-cache-utilization scorer and prefix-cache scorer, weighted 2 : 2 : 3, highest total wins. As released in
// kubernetes-sigs/gateway-api-inference-extension v1.2–v1.5 (v1.5: pkg/epp/framework/plugins/requestcontrol/
// dataproducer/approximateprefix/{indexer,plugin,hashing}.go; the endpoint picker has since moved to llm-d/llm-d-router,
// which also raises the block to at least 64 tokens — not modelled).
// The prefix index is approximate — built from the requests it routed, never from the pods' caches: the prompt is cut
// into 16-token blocks (64 characters), chain-hashed, at most 256 blocks; after each pick the chosen pod's LRU of block
// hashes takes the prompt's blocks in order (head first, so the head is the least recent and is evicted first), with
// a capacity of the pod's KV blocks (autoTune). The match is counted block by block ACROSS pods: walk the prompt's
// blocks until the first one no pod holds, adding 1 to every pod holding each — a pod whose copy lost its head still
// scores the later blocks another pod kept.
import { checkInteger, checkNumber, checkKnownKeys, ParameterError } from "../../core/errors";
import type { Rng } from "../../core/rng";
import type { ClusterView, Router, RouterContext } from "../routers";
import { registerRouter } from "../routers";
import type { ClusterRequest } from "../workloads";
import { RadixNode, RadixTree, SegmentLike } from "../radix-tree";
import { grownToHold } from "../../core/typed-arrays";

export interface GatewayScorerOptions {
  queueWeight: number;
  kvWeight: number;
  prefixWeight: number;
  /** tokens per hashed block (64 characters ≈ vLLM's 16-token block at 4 characters per token) */
  blockTokens: number;
  /** blocks of the prompt that are hashed at most (the rest is ignored) */
  maxPrefixBlocks: number;
  /** LRU capacity of the index per pod, in tokens (default: the replica's KV capacity, like autoTune's
   * CacheNumBlocks); the LRU holds ⌊capacity / block⌋ block hashes */
  capacityTokens: number;
}

export const GATEWAY_SCORER_DEFAULTS: Readonly<Omit<GatewayScorerOptions, "capacityTokens">> = {
  queueWeight: 2, // default scheduling profile: queue-scorer weight 2
  kvWeight: 2, // kv-cache-utilization-scorer weight 2
  prefixWeight: 3, // prefix-cache-scorer weight 3
  blockTokens: 16, // prefix plugin block of 64 characters = vLLM's 16-token block × 4 characters per token
  maxPrefixBlocks: 256, // prefix plugin DefaultMaxPrefixBlocks: longer prompts are matched on their first 256 blocks
};

const OPTION_NAMES = [...Object.keys(GATEWAY_SCORER_DEFAULTS), "capacityTokens"];

export function gatewayScorerOptions(kvCapacity: number, o: Record<string, unknown> = {}): GatewayScorerOptions {
  checkKnownKeys("路由器 gatewayPrefixScorer ", o, OPTION_NAMES);
  const d = GATEWAY_SCORER_DEFAULTS;
  return {
    queueWeight: checkNumber("queueWeight", o.queueWeight ?? d.queueWeight, { min: 0 }),
    kvWeight: checkNumber("kvWeight", o.kvWeight ?? d.kvWeight, { min: 0 }),
    prefixWeight: checkNumber("prefixWeight", o.prefixWeight ?? d.prefixWeight, { min: 0 }),
    blockTokens: checkInteger("blockTokens", o.blockTokens ?? d.blockTokens, { min: 1 }),
    maxPrefixBlocks: checkInteger("maxPrefixBlocks", o.maxPrefixBlocks ?? d.maxPrefixBlocks, { min: 1 }),
    capacityTokens: checkNumber("capacityTokens", o.capacityTokens ?? kvCapacity, { above: 0 }),
  };
}

/** Queue scorer: (max − queue) / (max − min) over the pods, 1 for every pod when all queues are equal. */
export function queueScores(queues: ArrayLike<number>): number[] {
  return Array.from(queueScoresInto(queues, new Float64Array(queues.length)));
}

/** queueScores written into `out` (the router's per-decision arrays: no allocation per decision). */
function queueScoresInto(queues: ArrayLike<number>, out: Float64Array): Float64Array {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < queues.length; i++) {
    if (queues[i] < min) min = queues[i];
    if (queues[i] > max) max = queues[i];
  }
  for (let i = 0; i < queues.length; i++) out[i] = max === min ? 1 : (max - queues[i]) / (max - min);
  return out;
}

/** KV-cache-utilization scorer: 1 − utilization. */
export function kvScore(utilization: number): number {
  return 1 - utilization;
}

/** Prefix scorer: matched blocks / blocks of the (truncated) prompt; 0 for a prompt shorter than one block. */
export function prefixScore(matchedTokens: number, promptTokens: number, blockTokens: number, maxBlocks: number): number {
  const total = Math.min(Math.floor(promptTokens / blockTokens), maxBlocks);
  if (total === 0) return 0;
  return Math.min(Math.floor(matchedTokens / blockTokens), total) / total;
}

/** The prefix plugin's indexer (indexer.go): per pod an LRU of block hashes, and hash → the pods holding it. A block
 * hash is chained (hash of the block and of the previous hash), so two prompts share block k exactly when they agree
 * on the first (k + 1) × blockTokens tokens; in our segment model that is a block id given by a prefix tree of the
 * prompts seen (each node numbers the block ends inside its segment) — exact, where a real hash can collide.
 * The LRU is a last-use stamp per (pod, block) plus a queue of (block, stamp) in use order: an entry is current while
 * its stamp is the block's stamp, so the least recent block is the first current entry (the same order as a list that
 * moves a re-added block to the back). */
export class BlockLruIndex {
  private readonly prompts = new RadixTree<number>({ evictable: false, createPayload: (n) => this.reserve(n) });
  private nextBlock = 0;
  private scratch: Int32Array = new Int32Array(256);
  /** per pod, block id → last-use stamp (0: not held) */
  private stamps: Int32Array[] = [];
  /** block id → bit mask of the pods holding it */
  private masks: Int32Array = new Int32Array(1024);
  readonly sizes: number[] = [];
  // per pod, the use queue: entries [head, tail) of two typed arrays (block, stamp), grown by doubling
  private readonly queueBlock: Int32Array[] = [];
  private readonly queueStamp: Int32Array[] = [];
  private readonly head: number[] = [];
  private readonly tail: number[] = [];
  private stamp = 0;
  evictions = 0;

  constructor(readonly podCount: number, readonly capacityBlocks: number, readonly blockTokens = 16, readonly maxBlocks = 256) {
    if (podCount > 31) throw new ParameterError("replicas", `推理网关的前缀索引在这里最多支持 31 个 pod，实际是 ${podCount}`);
    for (let p = 0; p < podCount; p++) {
      this.stamps.push(new Int32Array(1024));
      this.sizes.push(0);
      this.queueBlock.push(new Int32Array(256));
      this.queueStamp.push(new Int32Array(256));
      this.head.push(0);
      this.tail.push(0);
    }
  }

  /** First block id of a new node: one id per block end inside its segment. */
  private reserve(n: RadixNode<number>): number {
    const base = this.nextBlock;
    const b = this.blockTokens;
    this.nextBlock += Math.floor((n.prefixTokens + n.tokens) / b) - Math.floor(n.prefixTokens / b);
    return base;
  }

  /** hashPrompt: the ids of the prompt's first ⌊min(P, maxBlocks × size) / size⌋ whole blocks, head first. */
  blocks(segments: readonly SegmentLike[]): number[] {
    return Array.from(this.promptBlocks(segments));
  }

  /** blocks() in a scratch array of the index, valid until the next call (the router's path: a prompt's up to 256
   * block ids were a new array per decision, half of what 06.1's runs allocated). */
  promptBlocks(segments: readonly SegmentLike[]): Int32Array {
    let out = this.scratch;
    let length = 0;
    const b = this.blockTokens;
    let node = this.prompts.root;
    for (const s of segments) {
      if (length >= this.maxBlocks) break;
      node = this.prompts.extend(node, s, 0);
      const first = Math.floor(node.prefixTokens / b);
      const count = Math.min(Math.floor((node.prefixTokens + node.tokens) / b) - first, this.maxBlocks - length);
      if (count <= 0) continue;
      out = this.scratch = grownToHold(out, length + count - 1);
      for (let j = 0; j < count; j++) out[length++] = (node.payload as number) + j;
    }
    return out.subarray(0, length);
  }

  /** Add(hashes, pod): each block becomes the pod's most recent, in order; beyond capacity the least recent goes.
   * (The tables are grown once for the largest id and the counters kept in locals: this loop runs for every block
   * of every routed prompt — up to 256 a request — and was a sixth of 06.1's time.) */
  add(blocks: ArrayLike<number>, pod: number): void {
    let top = -1;
    for (let k = 0; k < blocks.length; k++) if (blocks[k] > top) top = blocks[k];
    if (top >= 0) {
      const st = (this.stamps[pod] = grownToHold(this.stamps[pod], top));
      const masks = (this.masks = grownToHold(this.masks, top));
      let end = this.tail[pod];
      const qb = (this.queueBlock[pod] = grownToHold(this.queueBlock[pod], end + blocks.length - 1));
      const qs = (this.queueStamp[pod] = grownToHold(this.queueStamp[pod], end + blocks.length - 1));
      const bit = 1 << pod;
      const capacity = this.capacityBlocks;
      let size = this.sizes[pod];
      for (let k = 0; k < blocks.length; k++) {
        const id = blocks[k];
        if (st[id] === 0) size++;
        const t = ++this.stamp;
        st[id] = t;
        qb[end] = id;
        qs[end] = t;
        end++;
        masks[id] |= bit;
        if (size > capacity) {
          this.tail[pod] = end;
          this.evictOldest(pod);
          size--;
        }
      }
      this.tail[pod] = end;
      this.sizes[pod] = size;
    }
    if (this.tail[pod] - this.head[pod] > 4 * this.capacityBlocks + 64) this.compact(pod);
  }

  /** Evicts the pod's least recent block (the caller counts the size down). */
  private evictOldest(pod: number): void {
    const st = this.stamps[pod];
    const qb = this.queueBlock[pod];
    const qs = this.queueStamp[pod];
    let i = this.head[pod];
    while (st[qb[i]] !== qs[i]) i++;
    const oldest = qb[i];
    this.head[pod] = i + 1;
    st[oldest] = 0;
    this.masks[oldest] &= ~(1 << pod);
    this.evictions++;
  }

  /** Drops the queue's stale entries (keeping the order of the current ones). */
  private compact(pod: number): void {
    const st = this.stamps[pod];
    const qb = this.queueBlock[pod];
    const qs = this.queueStamp[pod];
    let k = 0;
    for (let i = this.head[pod], end = this.tail[pod]; i < end; i++) {
      if (st[qb[i]] === qs[i]) {
        qb[k] = qb[i];
        qs[k] = qs[i];
        k++;
      }
    }
    this.tail[pod] = k;
    this.head[pod] = 0;
  }

  /** matchLongestPrefix: per pod, the blocks it holds among the prompt's blocks before the first block no pod holds. */
  match(blocks: ArrayLike<number>, out: Float64Array): void {
    out.fill(0);
    for (let k = 0; k < blocks.length; k++) {
      const id = blocks[k];
      const mask = id < this.masks.length ? this.masks[id] : 0;
      if (mask === 0) break;
      for (let p = 0; p < this.podCount; p++) if (mask & (1 << p)) out[p]++;
    }
  }

  holds(pod: number, block: number): boolean {
    return block < this.stamps[pod].length && this.stamps[pod][block] !== 0;
  }
}

export class GatewayPrefixScorer implements Router {
  readonly name = "gatewayPrefixScorer";
  readonly options: GatewayScorerOptions;
  readonly index: BlockLruIndex;
  private readonly queues: Float64Array;
  private readonly matched: Float64Array;
  // the last decision's per-pod scores (typed arrays: objects per pod per decision were garbage on every route)
  private readonly queueScore: Float64Array;
  private readonly kvScores: Float64Array;
  private readonly prefixScores: Float64Array;
  private readonly totals: Float64Array;
  private scored = false;
  private prefixWins = 0;
  private decisions = 0;

  constructor(readonly replicas: number, private readonly r: Rng, kvCapacity: number, o: Record<string, unknown> = {}) {
    this.options = gatewayScorerOptions(kvCapacity, o);
    this.index = new BlockLruIndex(replicas, Math.max(1, Math.floor(this.options.capacityTokens / this.options.blockTokens)), this.options.blockTokens, this.options.maxPrefixBlocks);
    this.queues = new Float64Array(replicas);
    this.matched = new Float64Array(replicas);
    this.queueScore = new Float64Array(replicas);
    this.kvScores = new Float64Array(replicas);
    this.prefixScores = new Float64Array(replicas);
    this.totals = new Float64Array(replicas);
  }

  /** The last decision's per-pod scores (none before the first), for tests and traces. */
  get lastScores(): Array<{ queue: number; kv: number; prefix: number; total: number }> {
    if (!this.scored) return [];
    return Array.from({ length: this.replicas }, (_, w) => ({ queue: this.queueScore[w], kv: this.kvScores[w], prefix: this.prefixScores[w], total: this.totals[w] }));
  }

  route(request: ClusterRequest, view: ClusterView): number {
    const o = this.options;
    for (let w = 0; w < this.replicas; w++) this.queues[w] = view.queueLength(w);
    const q = queueScoresInto(this.queues, this.queueScore);
    const hashes = this.index.promptBlocks(request.segments);
    this.index.match(hashes, this.matched);
    const totals = this.totals;
    this.scored = true;
    let best = -Infinity;
    let ties = 0;
    for (let w = 0; w < this.replicas; w++) {
      const kv = kvScore(view.kvUtilization(w));
      const prefix = hashes.length === 0 ? 0 : this.matched[w] / hashes.length;
      const total = o.queueWeight * q[w] + o.kvWeight * kv + o.prefixWeight * prefix;
      this.kvScores[w] = kv;
      this.prefixScores[w] = prefix;
      totals[w] = total;
      if (total > best) {
        best = total;
        ties = 1;
      } else if (total === best) ties++;
    }
    // max-score picker: the highest weighted sum; ties broken at random (the picker shuffles the pods)
    let k = ties > 1 ? this.r.int(ties) : 0;
    let chosen = 0;
    for (let w = 0; w < this.replicas; w++) {
      if (totals[w] === best && k-- === 0) {
        chosen = w;
        break;
      }
    }
    let bestPrefix = 0;
    for (let w = 0; w < this.replicas; w++) if (this.prefixScores[w] > bestPrefix) bestPrefix = this.prefixScores[w];
    if (bestPrefix > 0 && this.prefixScores[chosen] === bestPrefix) this.prefixWins++;
    this.decisions++;
    // PreRequest: the prompt's blocks are added to the chosen pod's LRU, head first
    this.index.add(hashes, chosen);
    return chosen;
  }

  stats(): Record<string, unknown> {
    return { decisions: this.decisions, toBestPrefix: this.prefixWins, indexEvictions: this.index.evictions, indexBlocks: this.index.sizes.slice() };
  }
}

registerRouter(
  "gatewayPrefixScorer",
  "Gateway API Inference Extension endpoint picker (v1.2–v1.5): 2 × queue score + 2 × KV-utilization score + 3 × prefix score (blocks matched across pods / blocks), highest wins; prefix index from routed requests, an LRU of block hashes per pod",
  (ctx: RouterContext, o) => new GatewayPrefixScorer(ctx.replicas, ctx.rng, ctx.kvCapacity, o),
);
