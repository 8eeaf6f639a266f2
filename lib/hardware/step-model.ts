// The roofline "paper GPU" (lecture 1): time of one engine iteration = Σ over operator groups of
// max(compute time, memory time), with efficiency factors for what real kernels achieve.
//
// Operator groups:
//  - linear layers (QKV/O projections, SwiGLU FFN, LM head for the tokens that need logits):
//    compute 2·params·tokens FLOPs; memory = the weights, read once per iteration;
//  - prefill attention: 4·(heads·headDim)·(attended pairs) FLOPs per layer, causal over the cached prefix plus
//    the new tokens; memory = KV of the cached prefix read + new KV written;
//  - decode attention: memory-bound, reads every running request's KV once per iteration;
//  - tensor parallelism (tp > 1): compute and memory divide by tp; two ring all-reduces per layer of
//    tokens·hidden·2 bytes, each 2·(tp−1)/tp·bytes / link bandwidth + a fixed latency.
// A fixed per-iteration overhead stands for scheduling and kernel launches.
import { checkInteger, checkNumber, ParameterError } from "../core/errors";
import { GpuSpec, kvBytesPerToken, ModelSpec, resolveGpu, resolveModel, weightBytes } from "./specs";

/** Fraction of peak FLOP/s reached by large GEMMs (fitted: Mistral-7B prefill of 2,100 tokens ≈ 0.28 s on an A6000). */
export const LINEAR_COMPUTE_EFFICIENCY = 0.7;
/** Fraction of peak FLOP/s reached by attention kernels (fitted: prefill of 21,000 tokens ≈ 3.77 s). */
export const ATTENTION_COMPUTE_EFFICIENCY = 0.7;
/** Fraction of peak memory bandwidth reached (fitted: a single decode step ≈ 24 ms). */
export const MEMORY_EFFICIENCY = 0.8;
/** Fixed cost of one engine iteration: scheduling, sampling, kernel launches (seconds). */
export const ITERATION_OVERHEAD_SECONDS = 0.0005;
/** Latency of one all-reduce, independent of its size (seconds). */
export const ALLREDUCE_LATENCY_SECONDS = 10e-6;

export interface PrefillChunk {
  /** tokens computed in this iteration */
  tokens: number;
  /** tokens of the same request already in KV (cached prefix, or earlier chunks) */
  cached: number;
}

export interface StepBatch {
  prefillTokens?: PrefillChunk[];
  /** context length (tokens in KV) of every request decoding one token in this iteration */
  decodeContexts?: ArrayLike<number>;
}

export interface StepBreakdown {
  seconds: number;
  linear: number;
  prefillAttention: number;
  decodeAttention: number;
  allReduce: number;
  overhead: number;
}

export interface StepModelOptions {
  /** tensor-parallel degree: divides heads and KV heads; default 1 */
  tp?: number;
}

export class StepModel {
  readonly model: ModelSpec;
  readonly gpu: GpuSpec;
  readonly tp: number;
  /** parameters in matmuls that every token passes through (all but the embeddings and LM head) */
  private readonly layerParams: number;
  private readonly lmHeadParams: number;
  private readonly flops: number;
  private readonly bandwidth: number;
  private readonly kvBytes: number;
  private readonly weightReadSeconds: number;
  // Products mixedSeconds divides or multiplies by, computed once (the same products, so the same quotients): the
  // module constants are property loads of `exports` in the compiled library, which the JIT does not fold.
  private readonly linearRate: number;
  private readonly attentionRate: number;
  private readonly flopsPerPair: number;
  private readonly overhead = ITERATION_OVERHEAD_SECONDS;
  /** the components of the last mixedSeconds call (scratch: read right after the call) */
  readonly parts: Omit<StepBreakdown, "seconds"> = { linear: 0, prefillAttention: 0, decodeAttention: 0, allReduce: 0, overhead: 0 };

  constructor(model: ModelSpec | string, gpu: GpuSpec | string, options: StepModelOptions = {}) {
    this.model = resolveModel(model);
    this.gpu = resolveGpu(gpu);
    const tp = options.tp ?? 1;
    checkInteger("tp", tp, { min: 1 });
    if (this.model.heads % tp !== 0 || this.model.kvHeads % tp !== 0) {
      throw new ParameterError("tp", `应能整除模型的 ${this.model.heads} 个注意力头和 ${this.model.kvHeads} 个 KV 头，实际是 ${tp}`);
    }
    this.tp = tp;
    const m = this.model;
    const attentionParams = m.hidden * m.heads * m.headDim * 2 + m.hidden * m.kvHeads * m.headDim * 2;
    this.layerParams = m.layers * (attentionParams + 3 * m.hidden * m.ffn);
    this.lmHeadParams = m.hidden * m.vocab;
    this.flops = this.gpu.bf16DenseFlops * tp;
    this.bandwidth = this.gpu.memoryBandwidthBytesPerSec * MEMORY_EFFICIENCY * tp;
    this.kvBytes = kvBytesPerToken(m);
    this.weightReadSeconds = weightBytes(m) / this.bandwidth;
    this.linearRate = this.flops * LINEAR_COMPUTE_EFFICIENCY;
    this.attentionRate = this.flops * ATTENTION_COMPUTE_EFFICIENCY;
    this.flopsPerPair = 4 * (m.heads * m.headDim * m.layers);
  }

  /** Seconds for one request's prefill of `newTokens` on top of `cachedTokens` already in KV. */
  prefill(newTokens: number, cachedTokens = 0): number {
    checkInteger("newTokens", newTokens, { min: 0 });
    checkInteger("cachedTokens", cachedTokens, { min: 0 });
    if (newTokens === 0) return 0;
    return this.breakdown({ prefillTokens: [{ tokens: newTokens, cached: cachedTokens }] }).seconds;
  }

  /** Seconds for one decode iteration of `batchSize` requests holding `totalContextTokens` in KV together. */
  decodeStep(batchSize: number, totalContextTokens: number): number {
    checkInteger("batchSize", batchSize, { min: 1 });
    checkInteger("totalContextTokens", totalContextTokens, { min: 0 });
    return this.mixedSeconds(0, 0, 0, batchSize, totalContextTokens);
  }

  /** Seconds for a mixed iteration: chunked prefill of some requests plus one decode token for others. */
  step(batch: StepBatch): number {
    return this.breakdown(batch).seconds;
  }

  breakdown(batch: StepBatch): StepBreakdown {
    let prefillTokens = 0;
    let pairs = 0;
    let cachedRead = 0;
    let prefillRequests = 0;
    for (const chunk of batch.prefillTokens ?? []) {
      const t = chunk.tokens;
      const c = chunk.cached;
      if (!(Number.isInteger(t) && t >= 0)) throw new ParameterError("prefillTokens[].tokens", `应为 ≥ 0 的整数，实际是 ${String(t)}`);
      if (!(Number.isInteger(c) && c >= 0)) throw new ParameterError("prefillTokens[].cached", `应为 ≥ 0 的整数，实际是 ${String(c)}`);
      if (t === 0) continue;
      prefillTokens += t;
      pairs += t * c + (t * (t + 1)) / 2;
      cachedRead += c;
      prefillRequests++;
    }
    const contexts = batch.decodeContexts ?? [];
    let decodeContext = 0;
    for (let i = 0; i < contexts.length; i++) {
      const c = contexts[i];
      if (!(c >= 0)) throw new ParameterError("decodeContexts[]", `应为 ≥ 0 的数，实际是 ${String(c)}`);
      decodeContext += c;
    }
    return this.mixed(prefillTokens, pairs, cachedRead, contexts.length, decodeContext, prefillRequests);
  }

  /** The roofline for aggregated batch quantities, with its components (allocates one object; the simulator's
   * hot path calls mixedSeconds). */
  mixed(prefillTokens: number, attendedPairs: number, cachedTokensRead: number, decodeRequests: number, decodeContextTokens: number, prefillRequests = prefillTokens > 0 ? 1 : 0): StepBreakdown {
    const c = this.parts;
    const seconds = this.mixedSeconds(prefillTokens, attendedPairs, cachedTokensRead, decodeRequests, decodeContextTokens, prefillRequests);
    return { seconds, linear: c.linear, prefillAttention: c.prefillAttention, decodeAttention: c.decodeAttention, allReduce: c.allReduce, overhead: c.overhead };
  }

  /** Seconds of the iteration `mixed` describes, without allocating (the cluster simulator's hot path); the
   * components are left in `this.parts` until the next call. */
  mixedSeconds(prefillTokens: number, attendedPairs: number, cachedTokensRead: number, decodeRequests: number, decodeContextTokens: number, prefillRequests = prefillTokens > 0 ? 1 : 0): number {
    // Kept small enough for the JIT to inline into the engine's step (a call that is not inlined returns its number
    // boxed: one allocation per iteration); the rare parts (tensor parallelism, an empty step) are calls.
    const tokens = prefillTokens + decodeRequests;
    if (tokens === 0) return this.emptyStep();
    // Logits are needed for the last prefill token of each request and for every decoding request.
    const logitTokens = prefillRequests + decodeRequests;
    const linear = Math.max((2 * this.layerParams * tokens + 2 * this.lmHeadParams * logitTokens) / this.linearRate, this.weightReadSeconds);
    // 4 × (heads · headDim · layers) × pairs: (4 × width) first, as written before the product was kept
    const prefillAttention = prefillTokens > 0 ? Math.max((this.flopsPerPair * attendedPairs) / this.attentionRate, ((cachedTokensRead + prefillTokens) * this.kvBytes) / this.bandwidth) : 0;
    const attended = decodeContextTokens + decodeRequests;
    const decodeAttention = decodeRequests > 0 ? Math.max((this.flopsPerPair * attended) / this.attentionRate, (attended * this.kvBytes) / this.bandwidth) : 0;
    const allReduce = this.tp > 1 ? this.allReduceSeconds(tokens) : 0;
    const c = this.parts;
    c.linear = linear;
    c.prefillAttention = prefillAttention;
    c.decodeAttention = decodeAttention;
    c.allReduce = allReduce;
    c.overhead = this.overhead;
    return linear + prefillAttention + decodeAttention + allReduce + this.overhead;
  }

  private emptyStep(): number {
    const c = this.parts;
    c.linear = c.prefillAttention = c.decodeAttention = c.allReduce = c.overhead = 0;
    return 0;
  }

  /** Two all-reduces per layer of `tokens` activations (tensor parallelism). */
  private allReduceSeconds(tokens: number): number {
    const m = this.model;
    const bytes = tokens * m.hidden * m.bytesPerParameter;
    const perAllReduce = (2 * (this.tp - 1) * bytes) / this.tp / this.gpu.interconnectBytesPerSec + ALLREDUCE_LATENCY_SECONDS;
    return 2 * m.layers * perAllReduce;
  }

  /** `t` plus the seconds of a lone request's decode steps with contexts promptTokens + 1 … promptTokens +
   * outputTokens − 1, added one step at a time in that order: exactly `t += mixedSeconds(0, 0, 0, 1, promptTokens
   * + k, 0)` for k = 1 … outputTokens − 1 (the same operations on the same numbers), without a call per token
   * (metrics.ts's aloneLatency, once per request and output token). */
  addLoneDecodeSeconds(t: number, promptTokens: number, outputTokens: number): number {
    if (outputTokens <= 1) return t;
    const m = this.model;
    const linearFlops = 2 * this.layerParams * 1 + 2 * this.lmHeadParams * 1;
    const linear = Math.max(linearFlops / this.linearRate, this.weightReadSeconds);
    const flopsPerPair = this.flopsPerPair;
    const attentionRate = this.attentionRate;
    const kvBytes = this.kvBytes;
    const bandwidth = this.bandwidth;
    let allReduce = 0;
    if (this.tp > 1) {
      const bytes = 1 * m.hidden * m.bytesPerParameter;
      const perAllReduce = (2 * (this.tp - 1) * bytes) / this.tp / this.gpu.interconnectBytesPerSec + ALLREDUCE_LATENCY_SECONDS;
      allReduce = 2 * m.layers * perAllReduce;
    }
    const overhead = ITERATION_OVERHEAD_SECONDS;
    for (let k = 1; k < outputTokens; k++) {
      const attended = promptTokens + k + 1;
      const decodeAttention = Math.max((flopsPerPair * attended) / attentionRate, (attended * kvBytes) / bandwidth);
      t += linear + 0 + decodeAttention + allReduce + overhead;
    }
    return t;
  }

  /** Seconds per output token of a request decoding alone with the given context (Preble's decode estimate). */
  singleRequestDecodeSeconds(contextTokens: number): number {
    return this.decodeStep(1, contextTokens);
  }
}

/** Tokens of KV that fit: (memory × fraction − weights) / KV bytes per token, per GPU under tensor parallelism. */
export function kvCapacityTokens(model: ModelSpec | string, gpu: GpuSpec | string, memFraction = 0.9, tp = 1): number {
  const m = resolveModel(model);
  const g = resolveGpu(gpu);
  checkNumber("memFraction", memFraction, { above: 0, max: 1 });
  checkInteger("tp", tp, { min: 1 });
  if (m.heads % tp !== 0 || m.kvHeads % tp !== 0) throw new ParameterError("tp", `应能整除模型的 ${m.heads} 个注意力头和 ${m.kvHeads} 个 KV 头，实际是 ${tp}`);
  const free = g.memoryBytes * memFraction - weightBytes(m) / tp;
  if (free <= 0) throw new ParameterError("gpu", `${m.name} 的权重（每块 GPU ${(weightBytes(m) / tp / 1e9).toFixed(1)} GB）放不进 ${g.name} ${g.memoryBytes / 1e9} GB 显存的 ${memFraction}；试试更大的 tp`);
  return Math.floor(free / (kvBytesPerToken(m) / tp));
}
