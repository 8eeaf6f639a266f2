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
import type { SegmentLike } from "../radix-tree";

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
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < queues.length; i++) {
    if (queues[i] < min) min = queues[i];
    if (queues[i] > max) max = queues[i];
  }
  return Array.from(queues, (q) => (max === min ? 1 : (max - q) / (max - min)));
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

/** 52-bit chained hash of a block: the segment ids up to the block's last segment and the block's end position
 * (segments are atomic, so two prompts have the same block exactly when they agree up to its end). */
function mix(h: number, x: number): number {
  let a = Math.imul(h ^ x, 0x9e3779b1);
  a ^= a >>> 15;
  a = Math.imul(a, 0x85ebca77);
  a ^= a >>> 13;
  return a >>> 0;
}

/** The block hashes of a prompt's first ⌊min(P, blocks × size) / size⌋ whole blocks, head first (hashPrompt). */
export function blockHashes(segments: readonly SegmentLike[], blockTokens: number, maxBlocks: number): number[] {
  const out: number[] = [];
  let h1 = 0x12345;
  let h2 = 0x6789a;
  let start = 0;
  for (const s of segments) {
    h1 = mix(h1, s.id);
    h2 = mix(h2 ^ 0x5bd1e995, s.id + 0x3c6ef372);
    const end = start + s.tokens;
    // blocks whose last token lies in this segment: ends e = (k + 1) × blockTokens in (start, end]
    for (let e = (Math.floor(start / blockTokens) + 1) * blockTokens; e <= end; e += blockTokens) {
      if (out.length >= maxBlocks) return out;
      out.push(mix(h1, e) * 0x100000 + (mix(h2, e) >>> 12));
    }
    start = end;
  }
  return out;
}

/** The prefix plugin's indexer: per pod an LRU of block hashes (a Map in insertion order: the first key is the least
 * recent), and hash → the pods holding it (a bit mask). */
export class BlockLruIndex {
  readonly lru: Array<Map<number, true>> = [];
  readonly pods = new Map<number, number>();
  evictions = 0;

  constructor(readonly podCount: number, readonly capacityBlocks: number) {
    if (podCount > 31) throw new ParameterError("replicas", `推理网关的前缀索引在这里最多支持 31 个 pod，实际是 ${podCount}`);
    for (let p = 0; p < podCount; p++) this.lru.push(new Map());
  }

  /** Add(hashes, pod): each hash becomes the pod's most recent, in order; beyond capacity the least recent goes. */
  add(hashes: readonly number[], pod: number): void {
    const lru = this.lru[pod];
    const bit = 1 << pod;
    for (const h of hashes) {
      if (lru.has(h)) lru.delete(h);
      lru.set(h, true);
      this.pods.set(h, (this.pods.get(h) ?? 0) | bit);
      if (lru.size > this.capacityBlocks) {
        const oldest = lru.keys().next().value as number;
        lru.delete(oldest);
        const mask = (this.pods.get(oldest) ?? 0) & ~bit;
        if (mask === 0) this.pods.delete(oldest);
        else this.pods.set(oldest, mask);
        this.evictions++;
      }
    }
  }

  /** matchLongestPrefix: per pod, the blocks it holds among the prompt's blocks before the first block no pod holds. */
  match(hashes: readonly number[], out: Float64Array): void {
    out.fill(0);
    for (const h of hashes) {
      const mask = this.pods.get(h);
      if (mask === undefined) break;
      for (let p = 0; p < this.podCount; p++) if (mask & (1 << p)) out[p]++;
    }
  }

  holds(pod: number, hash: number): boolean {
    return this.lru[pod].has(hash);
  }
}

export class GatewayPrefixScorer implements Router {
  readonly name = "gatewayPrefixScorer";
  readonly options: GatewayScorerOptions;
  readonly index: BlockLruIndex;
  private readonly queues: Float64Array;
  private readonly matched: Float64Array;
  /** the last decision's per-pod scores, for tests and traces */
  lastScores: Array<{ queue: number; kv: number; prefix: number; total: number }> = [];
  private prefixWins = 0;
  private decisions = 0;

  constructor(readonly replicas: number, private readonly r: Rng, kvCapacity: number, o: Record<string, unknown> = {}) {
    this.options = gatewayScorerOptions(kvCapacity, o);
    this.index = new BlockLruIndex(replicas, Math.max(1, Math.floor(this.options.capacityTokens / this.options.blockTokens)));
    this.queues = new Float64Array(replicas);
    this.matched = new Float64Array(replicas);
  }

  route(request: ClusterRequest, view: ClusterView): number {
    const o = this.options;
    for (let w = 0; w < this.replicas; w++) this.queues[w] = view.queueLength(w);
    const q = queueScores(this.queues);
    const hashes = blockHashes(request.segments, o.blockTokens, o.maxPrefixBlocks);
    this.index.match(hashes, this.matched);
    this.lastScores = [];
    let best = -Infinity;
    let ties = 0;
    for (let w = 0; w < this.replicas; w++) {
      const kv = kvScore(view.kvUtilization(w));
      const prefix = hashes.length === 0 ? 0 : this.matched[w] / hashes.length;
      const total = o.queueWeight * q[w] + o.kvWeight * kv + o.prefixWeight * prefix;
      this.lastScores.push({ queue: q[w], kv, prefix, total });
      if (total > best) {
        best = total;
        ties = 1;
      } else if (total === best) ties++;
    }
    // max-score picker: the highest weighted sum; ties broken at random (the picker shuffles the pods)
    let k = ties > 1 ? this.r.int(ties) : 0;
    let chosen = 0;
    for (let w = 0; w < this.replicas; w++) {
      if (this.lastScores[w].total === best && k-- === 0) {
        chosen = w;
        break;
      }
    }
    let bestPrefix = 0;
    for (const s of this.lastScores) if (s.prefix > bestPrefix) bestPrefix = s.prefix;
    if (bestPrefix > 0 && this.lastScores[chosen].prefix === bestPrefix) this.prefixWins++;
    this.decisions++;
    // PreRequest: the prompt's blocks are added to the chosen pod's LRU, head first
    this.index.add(hashes, chosen);
    return chosen;
  }

  stats(): Record<string, unknown> {
    return { decisions: this.decisions, toBestPrefix: this.prefixWins, indexEvictions: this.index.evictions, indexBlocks: this.index.lru.map((m) => m.size) };
  }
}

registerRouter(
  "gatewayPrefixScorer",
  "Gateway API Inference Extension endpoint picker (v1.2–v1.5): 2 × queue score + 2 × KV-utilization score + 3 × prefix score (blocks matched across pods / blocks), highest wins; prefix index from routed requests, an LRU of block hashes per pod",
  (ctx: RouterContext, o) => new GatewayPrefixScorer(ctx.replicas, ctx.rng, ctx.kvCapacity, o),
);
