// Prefill/decode pairing in explore (§3.4), two rules. Ours (the lecture's reading): a prefill-heavy request goes to
// a decode-heavy GPU. Released (gsw:329–330; simulator.py:349–364; model_runtime_manager.py:419–424): an explore
// request goes to the GPU with the highest cache-hit ratio over the admissions of the last 30 s, when that ratio is
// at least 0.7 (SGLang's windowed hit trace, rpc:227–238, updated when a batch is scheduled, rpc:893–901).
import type { RequestRecord } from "../record";
import type { ClusterView } from "../routers";

/** Ours: GPU g is decode-heavy when it runs at least one request and fewer than `threshold` prefill tokens remain on
 * it (running prefills + its queue): its next iterations would be mostly decode, memory-bound, compute idle. */
export function isDecodeHeavy(view: ClusterView, g: number, threshold: number): boolean {
  const running = view.outstandingRequests(g) - view.queueLength(g);
  return running >= 1 && view.pendingPrefillTokens(g) < threshold;
}

/** Released: each GPU's hit ratio over the requests admitted within the last `windowSeconds` — cached prompt tokens at
 * admission ÷ prompt tokens. The router sees a request's admission through its record (start, cachedTokens): finished
 * requests are kept in one-second buckets by admission time, outstanding ones are read directly. */
export class AdmissionHitWindow {
  private readonly outstanding: Array<Set<RequestRecord>>;
  private readonly bucketSecond: Float64Array[];
  private readonly bucketHit: Float64Array[];
  private readonly bucketPrompt: Float64Array[];
  private readonly size: number;

  constructor(
    readonly replicas: number,
    readonly windowSeconds: number,
  ) {
    this.size = Math.ceil(windowSeconds) + 2;
    this.outstanding = Array.from({ length: replicas }, () => new Set<RequestRecord>());
    this.bucketSecond = Array.from({ length: replicas }, () => new Float64Array(this.size).fill(-Infinity));
    this.bucketHit = Array.from({ length: replicas }, () => new Float64Array(this.size));
    this.bucketPrompt = Array.from({ length: replicas }, () => new Float64Array(this.size));
  }

  onDispatch(record: RequestRecord): void {
    this.outstanding[record.replica].add(record);
  }

  onFinish(record: RequestRecord): void {
    const g = record.replica;
    this.outstanding[g].delete(record);
    const second = Math.floor(record.start);
    const k = ((second % this.size) + this.size) % this.size;
    if (this.bucketSecond[g][k] !== second) {
      this.bucketSecond[g][k] = second;
      this.bucketHit[g][k] = 0;
      this.bucketPrompt[g][k] = 0;
    }
    this.bucketHit[g][k] += record.cachedTokens;
    this.bucketPrompt[g][k] += record.promptTokens;
  }

  /** Hit ratio of GPU g at `now` (0 when nothing was admitted in the window, as in SGLang). */
  hitRatio(g: number, now: number): number {
    const from = now - this.windowSeconds;
    let hit = 0;
    let prompt = 0;
    const seconds = this.bucketSecond[g];
    for (let k = 0; k < this.size; k++) {
      if (seconds[k] >= Math.floor(from) && seconds[k] <= now) {
        hit += this.bucketHit[g][k];
        prompt += this.bucketPrompt[g][k];
      }
    }
    for (const r of this.outstanding[g]) {
      if (r.start >= from && r.start <= now) {
        hit += r.cachedTokens;
        prompt += r.promptTokens;
      }
    }
    return prompt > 0 ? hit / prompt : 0;
  }

  /** The GPU the released rule pairs an explore request with: the highest hit ratio (lowest index on ties), when it
   * is at least `threshold`; −1 otherwise. */
  target(now: number, threshold: number): number {
    let best = -1;
    let bestRatio = -1;
    for (let g = 0; g < this.replicas; g++) {
      const h = this.hitRatio(g, now);
      if (h > bestRatio) {
        bestRatio = h;
        best = g;
      }
    }
    return bestRatio >= threshold ? best : -1;
  }
}
