// The statistics of a block trace (Mooncake / aiperf format) that bear on prefix caching: how much an infinite
// cache could hit, how far apart reuses are (LRU stack distance, the cache size an LRU cache needs to catch a
// reuse), and what an LRU cache of a given size hits. Computed over blocks in arrival order, blocks of a prompt in
// order; a block counts as a hit when an earlier request used the same id (in the Mooncake trace a reused block's
// whole prefix is always reused too, so block hits form a prefix of each prompt, as in a radix cache).
import { mean, quantile } from "../core/stats";
import { BlockTrace, blockTokensOf } from "./mooncake";

/** Fenwick tree over positions 0 … n−1 (counts), for stack distances in O(log n). */
class Fenwick {
  private readonly tree: Int32Array;
  constructor(private readonly n: number) {
    this.tree = new Int32Array(n + 1);
  }
  add(i: number, delta: number): void {
    for (let k = i + 1; k <= this.n; k += k & -k) this.tree[k] += delta;
  }
  /** sum over positions 0 … i−1 */
  prefix(i: number): number {
    let s = 0;
    for (let k = i; k > 0; k -= k & -k) s += this.tree[k];
    return s;
  }
}

export interface BlockReuse {
  /** block accesses (Σ blocks over requests) */
  accesses: number;
  /** distinct block ids */
  distinctBlocks: number;
  /** per access: LRU stack distance (distinct other blocks used since this block's last use), −1 for a first use */
  stackDistance: Int32Array;
  /** per access: seconds since the block's last use, NaN for a first use */
  reuseSeconds: Float64Array;
  /** per access: its tokens (the last block of a prompt may be partial) */
  tokens: Int32Array;
  /** per access: the request it belongs to */
  request: Int32Array;
}

/** Every block access of requests first … first + count − 1 with its reuse distance (from an empty cache at `first`). */
export function blockReuse(trace: BlockTrace, first = 0, count = trace.inputTokens.length - first): BlockReuse {
  const a = trace.blockStart[first];
  const b = trace.blockStart[first + count];
  const accesses = b - a;
  const stackDistance = new Int32Array(accesses);
  const reuseSeconds = new Float64Array(accesses);
  const tokens = new Int32Array(accesses);
  const request = new Int32Array(accesses);
  const lastUse = new Map<number, number>();
  const lastTime = new Map<number, number>();
  const marks = new Fenwick(accesses);
  let t = 0;
  for (let i = first; i < first + count; i++) {
    const s = trace.blockStart[i];
    const e = trace.blockStart[i + 1];
    const now = trace.arrivalSeconds[i];
    for (let k = s; k < e; k++, t++) {
      const id = trace.blockIds[k];
      tokens[t] = blockTokensOf(trace, i, k - s);
      request[t] = i;
      const prev = lastUse.get(id);
      if (prev === undefined) {
        stackDistance[t] = -1;
        reuseSeconds[t] = NaN;
      } else {
        // distinct blocks whose latest use lies strictly between the previous use and now
        stackDistance[t] = marks.prefix(t) - marks.prefix(prev + 1);
        reuseSeconds[t] = now - (lastTime.get(id) as number);
        marks.add(prev, -1);
      }
      marks.add(t, 1);
      lastUse.set(id, t);
      lastTime.set(id, now);
    }
  }
  return { accesses, distinctBlocks: lastUse.size, stackDistance, reuseSeconds, tokens, request };
}

/** Hit rates an infinite cache reaches on the accesses: by blocks and by tokens. */
export function infiniteCacheHits(reuse: BlockReuse): { blockHitRate: number; tokenHitRate: number } {
  let hits = 0;
  let hitTokens = 0;
  let allTokens = 0;
  for (let t = 0; t < reuse.accesses; t++) {
    allTokens += reuse.tokens[t];
    if (reuse.stackDistance[t] >= 0) {
      hits++;
      hitTokens += reuse.tokens[t];
    }
  }
  return { blockHitRate: hits / reuse.accesses, tokenHitRate: hitTokens / allTokens };
}

/** Token hit rate of one LRU cache holding `capacityBlocks` blocks (a reuse hits when its stack distance is smaller). */
export function lruTokenHitRate(reuse: BlockReuse, capacityBlocks: number): number {
  let hitTokens = 0;
  let allTokens = 0;
  for (let t = 0; t < reuse.accesses; t++) {
    allTokens += reuse.tokens[t];
    const d = reuse.stackDistance[t];
    if (d >= 0 && d < capacityBlocks) hitTokens += reuse.tokens[t];
  }
  return hitTokens / allTokens;
}

/**
 * The hit rate an infinite cache reaches in the simulator's own terms on requests first … first + count − 1,
 * measured after the first `warmupCount` of them (their blocks still fill the cache): cached prompt tokens / prompt
 * tokens, each prompt's cached part capped at prompt − 1 (its last token is always computed, as in the engine).
 */
export function infiniteCacheHitRate(trace: BlockTrace, first: number, count: number, warmupCount: number): number {
  const seen = new Set<number>();
  let cached = 0;
  let prompt = 0;
  for (let i = first; i < first + count; i++) {
    const s = trace.blockStart[i];
    const e = trace.blockStart[i + 1];
    let hit = 0;
    let prefix = true;
    for (let k = s; k < e; k++) {
      const id = trace.blockIds[k];
      if (prefix && seen.has(id)) hit += blockTokensOf(trace, i, k - s);
      else prefix = false;
      seen.add(id);
    }
    if (i - first >= warmupCount) {
      prompt += trace.inputTokens[i];
      cached += Math.min(hit, trace.inputTokens[i] - 1);
    }
  }
  return prompt > 0 ? cached / prompt : 0;
}

export interface LengthSummary {
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  min: number;
  max: number;
}

const sig = (x: number, digits = 6) => Number(x.toPrecision(digits));

export function lengthSummary(xs: ArrayLike<number>): LengthSummary {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < xs.length; i++) {
    if (xs[i] < min) min = xs[i];
    if (xs[i] > max) max = xs[i];
  }
  return { mean: sig(mean(xs)), p50: sig(quantile(xs, 0.5)), p90: sig(quantile(xs, 0.9)), p99: sig(quantile(xs, 0.99)), min, max };
}

export interface BlockTraceSummary {
  requests: number;
  /** last arrival − first (s) */
  durationSeconds: number;
  durationMinutes: number;
  /** (requests − 1) / duration */
  meanRate: number;
  /** arrivals per second in each complete minute from the first arrival */
  perMinuteRate: { min: number; median: number; max: number };
  inputTokens: LengthSummary;
  outputTokens: LengthSummary;
  /** mean input / mean output */
  inputOutputRatio: number;
  blockTokens: number;
  blocksPerRequest: LengthSummary;
  totalBlocks: number;
  distinctBlocks: number;
  /** requests whose first block is the most common first block, and that block's id */
  sharedFirstBlock: { id: number; requests: number; share: number };
  /** an infinite cache, from empty, over the whole trace */
  infiniteCache: { blockHitRate: number; tokenHitRate: number; simulatorHitRate: number };
  /** over reused blocks only: LRU stack distance (blocks) and time since the last use (s) */
  reuseDistanceBlocks: { p10: number; p50: number; p90: number; p99: number; mean: number };
  reuseSeconds: { p10: number; p50: number; p90: number; p99: number; mean: number };
  /** token hit rate of one LRU cache of the given number of blocks (from empty, whole trace) */
  lruTokenHitRate: Record<string, number>;
}

/** Cache sizes (blocks) of the LRU curve in the summary. */
export const LRU_CURVE_BLOCKS = [100, 300, 1000, 3000, 10000, 30000, 100000];

export function summarizeBlockTrace(trace: BlockTrace): BlockTraceSummary {
  const n = trace.inputTokens.length;
  const duration = trace.arrivalSeconds[n - 1];
  const minutes = Math.floor(duration / 60);
  const perMinute = new Float64Array(minutes);
  for (let i = 0; i < n; i++) {
    const m = Math.floor(trace.arrivalSeconds[i] / 60);
    if (m < minutes) perMinute[m]++;
  }
  const minuteRates = Array.from(perMinute, (c) => c / 60);
  const blocks = new Int32Array(n);
  const firstCounts = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    blocks[i] = trace.blockStart[i + 1] - trace.blockStart[i];
    const f = trace.blockIds[trace.blockStart[i]];
    firstCounts.set(f, (firstCounts.get(f) ?? 0) + 1);
  }
  let topFirst = -1;
  let topCount = 0;
  for (const [id, c] of firstCounts) if (c > topCount || (c === topCount && id < topFirst)) [topFirst, topCount] = [id, c];
  const reuse = blockReuse(trace);
  const distances: number[] = [];
  const seconds: number[] = [];
  for (let t = 0; t < reuse.accesses; t++) {
    if (reuse.stackDistance[t] >= 0) {
      distances.push(reuse.stackDistance[t]);
      seconds.push(reuse.reuseSeconds[t]);
    }
  }
  const q = (xs: number[]) => ({ p10: sig(quantile(xs, 0.1)), p50: sig(quantile(xs, 0.5)), p90: sig(quantile(xs, 0.9)), p99: sig(quantile(xs, 0.99)), mean: sig(mean(xs)) });
  const inf = infiniteCacheHits(reuse);
  const lru: Record<string, number> = {};
  for (const c of LRU_CURVE_BLOCKS) lru[String(c)] = sig(lruTokenHitRate(reuse, c), 4);
  const inputTokens = lengthSummary(trace.inputTokens);
  const outputTokens = lengthSummary(trace.outputTokens);
  return {
    requests: n,
    durationSeconds: duration,
    durationMinutes: sig(duration / 60, 4),
    meanRate: sig((n - 1) / duration, 4),
    perMinuteRate: { min: sig(Math.min(...minuteRates), 4), median: sig(quantile(minuteRates, 0.5), 4), max: sig(Math.max(...minuteRates), 4) },
    inputTokens,
    outputTokens,
    inputOutputRatio: sig(inputTokens.mean / outputTokens.mean, 4),
    blockTokens: trace.blockTokens,
    blocksPerRequest: lengthSummary(blocks),
    totalBlocks: reuse.accesses,
    distinctBlocks: reuse.distinctBlocks,
    sharedFirstBlock: { id: topFirst, requests: topCount, share: sig(topCount / n, 4) },
    infiniteCache: { blockHitRate: sig(inf.blockHitRate, 4), tokenHitRate: sig(inf.tokenHitRate, 4), simulatorHitRate: sig(infiniteCacheHitRate(trace, 0, n, 0), 4) },
    reuseDistanceBlocks: q(distances),
    reuseSeconds: q(seconds),
    lruTokenHitRate: lru,
  };
}
