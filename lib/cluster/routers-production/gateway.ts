// The Kubernetes Gateway API Inference Extension's endpoint picker with its default scorers (§6): queue
// scorer, KV-cache-utilization scorer and prefix-cache scorer, weighted 2 : 2 : 3, highest total wins
// (kubernetes-sigs/gateway-api-inference-extension, pkg/epp/scheduling/framework/plugins).
// The prefix plugin's index is approximate — built from the requests it routed, an LRU per pod whose capacity
// is the pod's KV blocks — like the SGLang router's tree; we reuse the same tenant tree (segment-level: a block
// matches when the segments it lies in match, which is what chained block hashes give).
import { checkInteger, checkNumber, checkKnownKeys } from "../../core/errors";
import type { Rng } from "../../core/rng";
import type { ClusterView, Router, RouterContext } from "../routers";
import { registerRouter } from "../routers";
import type { ClusterRequest } from "../workloads";
import { TenantTree } from "./tenant-tree";

export interface GatewayScorerOptions {
  queueWeight: number;
  kvWeight: number;
  prefixWeight: number;
  /** tokens per hashed block (64 characters ≈ vLLM's 16-token block at 4 characters per token) */
  blockTokens: number;
  /** blocks of the prompt that are hashed at most (the rest is ignored) */
  maxPrefixBlocks: number;
  /** LRU capacity of the index per pod, in tokens (default: the replica's KV capacity, like autoTune) */
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

export class GatewayPrefixScorer implements Router {
  readonly name = "gatewayPrefixScorer";
  readonly options: GatewayScorerOptions;
  readonly index: TenantTree;
  private readonly queues: Float64Array;
  /** the last decision's per-pod scores, for tests and traces */
  lastScores: Array<{ queue: number; kv: number; prefix: number; total: number }> = [];
  private prefixWins = 0;
  private decisions = 0;

  constructor(readonly replicas: number, private readonly r: Rng, kvCapacity: number, o: Record<string, unknown> = {}) {
    this.options = gatewayScorerOptions(kvCapacity, o);
    this.index = new TenantTree(replicas, { tokenLimit: this.options.blockTokens * this.options.maxPrefixBlocks });
    this.queues = new Float64Array(replicas);
  }

  route(request: ClusterRequest, view: ClusterView): number {
    const o = this.options;
    for (let w = 0; w < this.replicas; w++) this.queues[w] = view.queueLength(w);
    const q = queueScores(this.queues);
    this.lastScores = [];
    let best = -Infinity;
    let ties = 0;
    for (let w = 0; w < this.replicas; w++) {
      const kv = kvScore(view.kvUtilization(w));
      const prefix = prefixScore(this.index.matchFor(request.segments, w).tokens, request.promptTokens, o.blockTokens, o.maxPrefixBlocks);
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
    // PreRequest: the prompt's blocks are recorded for the chosen pod; its LRU drops the oldest beyond capacity
    this.index.insert(request.segments, chosen, view.now);
    this.index.evictTenant(chosen, o.capacityTokens);
    return chosen;
  }

  stats(): Record<string, unknown> {
    return { decisions: this.decisions, toBestPrefix: this.prefixWins, indexEvictions: this.index.evictions, indexTokens: Array.from(this.index.sizeTokens) };
  }
}

registerRouter(
  "gatewayPrefixScorer",
  "Gateway API Inference Extension endpoint picker: 2 × queue score + 2 × KV-utilization score + 3 × prefix score (matched blocks / blocks), highest wins; prefix index from routed requests, LRU per pod",
  (ctx: RouterContext, o) => new GatewayPrefixScorer(ctx.replicas, ctx.rng, ctx.kvCapacity, o),
);
