// One request's life in a cluster run: the per-request record the simulator returns, which is also the
// engine's state for the request while it runs (one object per request, no per-step allocation).
import type { RadixNode } from "./radix-tree";
import type { ClusterRequest } from "./workloads";

/** Times per record in a shared array: dispatch, start, first token, finish. */
export const TIME_SLOTS = 4;

export class RequestRecord {
  /** replica it was dispatched to */
  replica = -1;
  /** prompt tokens found in the replica's cache at admission (not recomputed) */
  cachedTokens = 0;
  /** prompt tokens computed by prefill (= promptTokens − cachedTokens when done) */
  computedTokens = 0;
  /** tokens the router's view matched on the chosen replica at dispatch */
  viewMatchAtDispatch = 0;
  /** true cache match on the chosen replica at dispatch (for Dynamo-like prefill estimates) */
  cachedAtDispatch = 0;
  /** longest match over every replica's cache at dispatch (what an oracle router could hit), ≥ cachedAtDispatch;
   * 0 unless the run was asked for it (ClusterOptions.oracle or timeline) */
  clusterCachedAtDispatch = 0;
  /** included in the metrics (arrived after the warm-up) */
  measured = true;

  // ---- engine state (cleared when the request finishes) ----
  /** prompt tokens in KV: cached + computed so far */
  prefilled = 0;
  /** output tokens generated */
  generated = 0;
  /** tokens in this iteration's prefill chunk */
  chunk = 0;
  /** private KV reserved at admission: uncached prompt + output */
  reserved = 0;
  /** cache node locked at admission (the matched prefix), then the prompt's node after prefill */
  lockedNode: RadixNode | null = null;
  /** node in the simulator's index of dispatched prompts not computed yet (while the index is built) */
  pendingNode: RadixNode | null = null;

  // The four times live in a Float64Array (a run's records share one, four slots each): a number field is a box of
  // its own in V8, so four time fields made a record five allocations instead of one (a quarter of a run's garbage).
  private times: Float64Array;
  private at: number;

  constructor(
    readonly request: ClusterRequest,
    /** seconds: when the router dispatched it (= arrival) */
    dispatch: number,
    /** where its times go: slots [slot × 4, slot × 4 + 4) of `times` (a run's shared array); its own when absent */
    times?: Float64Array,
    slot = 0,
  ) {
    this.times = times ?? new Float64Array(TIME_SLOTS);
    this.at = times ? slot * TIME_SLOTS : 0;
    this.startTimes(dispatch);
  }

  /** The record's times as a new one has them: dispatched, not started, no token yet, not finished. */
  private startTimes(dispatch: number): void {
    const times = this.times;
    const at = this.at;
    times[at] = dispatch;
    times[at + 1] = NaN;
    times[at + 2] = NaN;
    times[at + 3] = NaN;
  }

  /** Makes a record of a finished run a new one, as the constructor would (see take). */
  private reuse(request: ClusterRequest, dispatch: number, times: Float64Array, slot: number): void {
    (this as { request: ClusterRequest }).request = request;
    this.replica = -1;
    this.cachedTokens = 0;
    this.computedTokens = 0;
    this.viewMatchAtDispatch = 0;
    this.cachedAtDispatch = 0;
    this.clusterCachedAtDispatch = 0;
    this.measured = true;
    this.prefilled = 0;
    this.generated = 0;
    this.chunk = 0;
    this.reserved = 0;
    this.lockedNode = null;
    this.pendingNode = null;
    this.times = times;
    this.at = slot * TIME_SLOTS;
    this.startTimes(dispatch);
  }

  /** A record for a run's request `slot`: a spare one when a sweep gave some back (releaseRecords), else new. */
  static take(request: ClusterRequest, dispatch: number, times: Float64Array, slot: number): RequestRecord {
    const rec = spareRecords.pop();
    if (rec === undefined) return new RequestRecord(request, dispatch, times, slot);
    rec.reuse(request, dispatch, times, slot);
    return rec;
  }

  /** seconds: when the router dispatched it (= arrival) */
  get dispatch(): number {
    return this.times[this.at];
  }
  /** seconds: admitted into the running batch (NaN while waiting) */
  get start(): number {
    return this.times[this.at + 1];
  }
  set start(t: number) {
    this.times[this.at + 1] = t;
  }
  /** seconds: first output token (end of the iteration that finished its prefill) */
  get firstToken(): number {
    return this.times[this.at + 2];
  }
  set firstToken(t: number) {
    this.times[this.at + 2] = t;
  }
  /** seconds: last output token */
  get finish(): number {
    return this.times[this.at + 3];
  }
  set finish(t: number) {
    this.times[this.at + 3] = t;
  }

  get id(): number {
    return this.request.id;
  }
  get arrival(): number {
    return this.request.arrival;
  }
  get promptTokens(): number {
    return this.request.promptTokens;
  }
  get outputTokens(): number {
    return this.request.outputTokens;
  }
  /** seconds from arrival to the last token */
  get latency(): number {
    return this.finish - this.request.arrival;
  }
  /** seconds from arrival to the first token */
  get ttft(): number {
    return this.firstToken - this.request.arrival;
  }
  /** seconds per output token after the first (NaN for one-token outputs) */
  get tpot(): number {
    return this.request.outputTokens > 1 ? (this.finish - this.firstToken) / (this.request.outputTokens - 1) : NaN;
  }
  /** seconds waiting in the replica's queue */
  get queueing(): number {
    return this.start - this.dispatch;
  }
}

// Records of finished runs nobody keeps, reused by the thread's next runs. A sweep keeps only a summary of each run,
// and a run's records were the largest part of what outlived the young generation's collections (every record lives
// to the end of its run: in 03.1, 615,600 of them copied by the scavenger on their way to the old generation).
const spareRecords: RequestRecord[] = [];
const SPARE_RECORDS = 100_000;

/** Gives a finished run's records to the pool (the caller keeps none of them, nor anything that refers to them). */
export function releaseRecords(records: readonly RequestRecord[]): void {
  for (let i = 0; i < records.length && spareRecords.length < SPARE_RECORDS; i++) {
    const r = records[i];
    if (r !== undefined) spareRecords.push(r);
  }
}
