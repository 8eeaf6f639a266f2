// Observers of a dispatch run (§1.3), fed by simulateDispatch as it processes jobs in arrival order: arrivals per
// server per interval on a window, queue lengths sampled on a window, and herding statistics over the measured
// jobs. Each keeps a bounded amount of memory (the window's size, or O(servers)), never one entry per job.
import { checkInteger, checkNumber, ParameterError } from "../core/errors";

/** What the samplers read: the completion times of every server's jobs in system, oldest first. */
export interface QueueView {
  readonly servers: number;
  readonly capacity: number;
  readonly ring: Float64Array;
  readonly head: Int32Array;
  readonly count: Int32Array;
}

/** Jobs in system on server s at time τ (arrived at or before τ, completing after it), without changing the view:
 * valid while τ is no earlier than the last time the view dropped s's completed jobs. */
export function lengthAt(view: QueueView, s: number, tau: number): number {
  let n = view.count[s];
  const base = s * view.capacity;
  const mask = view.capacity - 1;
  let h = view.head[s];
  while (n > 0 && view.ring[base + h] <= tau) {
    h = (h + 1) & mask;
    n--;
  }
  return n;
}

/** Intervals [from + k·interval, from + (k+1)·interval) for k = 0 … intervals−1. */
export interface ArrivalWindow {
  from: number;
  interval: number;
  intervals: number;
}

const MAX_CELLS = 4_000_000;

/** Counts arrivals per server per interval on a window. */
export class ArrivalCounter {
  private readonly counts: Int32Array;
  private readonly from: number;
  private readonly interval: number;
  private readonly intervals: number;
  constructor(private readonly servers: number, w: ArrivalWindow) {
    this.from = checkNumber("arrivalWindow.from", w.from, { min: 0 });
    this.interval = checkNumber("arrivalWindow.interval", w.interval, { above: 0 });
    this.intervals = checkInteger("arrivalWindow.intervals", w.intervals, { min: 1 });
    if (this.intervals * servers > MAX_CELLS) throw new ParameterError("arrivalWindow.intervals", `窗口太大：服务器数 × 区间数应 ≤ ${MAX_CELLS.toLocaleString("en-US")}，实际是 ${(this.intervals * servers).toLocaleString("en-US")}`);
    this.counts = new Int32Array(servers * this.intervals);
  }
  arrival(t: number, s: number): void {
    const k = Math.floor((t - this.from) / this.interval);
    if (k >= 0 && k < this.intervals) this.counts[s * this.intervals + k]++;
  }
  result(): { from: number; interval: number; starts: number[]; counts: number[][] } {
    const starts = Array.from({ length: this.intervals }, (_, k) => this.from + k * this.interval);
    const counts = Array.from({ length: this.servers }, (_, s) => Array.from(this.counts.subarray(s * this.intervals, (s + 1) * this.intervals)));
    return { from: this.from, interval: this.interval, starts, counts };
  }
}

/** Sample instants from + k·step on [from, to). */
export interface QueueWindow {
  from: number;
  to: number;
  step: number;
}

/** Every server's queue length (jobs waiting + in service) at sample instants on a window. */
export class QueueSampler {
  private readonly times: number[];
  private readonly lengths: number[][];
  private readonly refreshes: number[] = [];
  private next = 0;
  private readonly from: number;
  private readonly to: number;
  constructor(private readonly servers: number, w: QueueWindow) {
    this.from = checkNumber("queueWindow.from", w.from, { min: 0 });
    this.to = checkNumber("queueWindow.to", w.to, { above: this.from });
    const step = checkNumber("queueWindow.step", w.step, { above: 0 });
    const samples = Math.ceil((this.to - this.from) / step);
    if (samples * servers > MAX_CELLS) throw new ParameterError("queueWindow.step", `采样点太多：服务器数 × 采样点数应 ≤ ${MAX_CELLS.toLocaleString("en-US")}，实际是 ${(samples * servers).toLocaleString("en-US")}`);
    this.times = Array.from({ length: samples }, (_, k) => this.from + k * step);
    this.lengths = Array.from({ length: servers }, () => new Array<number>(samples).fill(0));
  }
  /** Takes every sample earlier than `limit` (all arrivals before `limit` have been dispatched). */
  sampleBefore(limit: number, view: QueueView): void {
    while (this.next < this.times.length && this.times[this.next] < limit) {
      const tau = this.times[this.next];
      for (let s = 0; s < this.servers; s++) this.lengths[s][this.next] = lengthAt(view, s, tau);
      this.next++;
    }
  }
  refreshAt(r: number): void {
    if (r >= this.from && r < this.to) this.refreshes.push(r);
  }
  result(): { times: number[]; lengths: number[][]; refreshTimes: number[] } {
    return { times: this.times, lengths: this.lengths, refreshTimes: this.refreshes };
  }
}

/** Herding over the measured jobs: per interval (aligned to multiples of `interval`), the share of its arrivals
 * sent to its most-fed server; queue spread and longest queue sampled every `step` from the first measured arrival. */
export class HerdingMeter {
  private readonly perServer: Int32Array;
  private current = -1;
  private total = 0;
  private shareSum = 0;
  private intervals = 0;
  private start = Infinity;
  private samples = 0;
  private spreadSum = 0;
  private longest = 0;
  /** servers shortest in the current snapshot (1) — stale information only */
  private readonly shortest: Uint8Array;
  /** the snapshot's queue lengths (scratch) */
  private readonly lengths: Int32Array;
  private snapshots = false;
  private toShortest = 0;
  private measured = 0;
  private tiesSum = 0;
  private refreshes = 0;
  constructor(private readonly servers: number, private readonly interval: number, private readonly step: number) {
    this.perServer = new Int32Array(servers);
    this.shortest = new Uint8Array(servers);
    this.lengths = new Int32Array(servers);
  }
  startAt(t: number): void {
    this.start = t;
  }
  /** A snapshot taken at r: which servers it shows shortest (every tie counts); refreshes after the first measured
   * arrival add to the mean number of tied shortest servers. */
  refreshAt(r: number, view: QueueView): void {
    const lengths = this.lengths;
    let lo = Infinity;
    for (let s = 0; s < this.servers; s++) {
      lengths[s] = lengthAt(view, s, r);
      if (lengths[s] < lo) lo = lengths[s];
    }
    let ties = 0;
    for (let s = 0; s < this.servers; s++) {
      const at = lengths[s] === lo ? 1 : 0;
      this.shortest[s] = at;
      ties += at;
    }
    this.snapshots = true;
    if (this.start !== Infinity) {
      this.tiesSum += ties;
      this.refreshes++;
    }
  }
  sampleBefore(limit: number, view: QueueView): void {
    for (;;) {
      const tau = this.start + this.samples * this.step;
      if (!(tau < limit)) return;
      let lo = Infinity;
      let hi = -Infinity;
      for (let s = 0; s < this.servers; s++) {
        const n = lengthAt(view, s, tau);
        if (n < lo) lo = n;
        if (n > hi) hi = n;
      }
      this.spreadSum += hi - lo;
      if (hi > this.longest) this.longest = hi;
      this.samples++;
    }
  }
  arrival(t: number, s: number): void {
    const k = Math.floor(t / this.interval);
    if (k !== this.current) {
      this.close();
      this.current = k;
    }
    this.perServer[s]++;
    this.total++;
    if (this.snapshots) {
      this.measured++;
      this.toShortest += this.shortest[s];
    }
  }
  private close(): void {
    if (this.total > 0) {
      let top = 0;
      for (let s = 0; s < this.servers; s++) if (this.perServer[s] > top) top = this.perServer[s];
      this.shareSum += top / this.total;
      this.intervals++;
    }
    this.perServer.fill(0);
    this.total = 0;
  }
  result(): { topServerShare: number; queueSpread: number; longestQueue: number; snapshotShortestShare: number; shortestTies: number } {
    this.close();
    return {
      topServerShare: this.intervals ? this.shareSum / this.intervals : NaN,
      snapshotShortestShare: this.measured ? this.toShortest / this.measured : NaN,
      shortestTies: this.refreshes ? this.tiesSum / this.refreshes : NaN,
      queueSpread: this.samples ? this.spreadSum / this.samples : NaN,
      longestQueue: this.longest,
    };
  }
}

/** Times from `from` up to (not including) `to` on which every queue change is recorded. */
export interface QueueTraceWindow {
  from: number;
  to: number;
}

/** Most jobs a trace window may hold (arrival rate × window length): the trace keeps two events a job. */
const MAX_TRACE_JOBS = 500_000;

/** The exact queue length of every server on a window (§1.3's sawtooth): it changes by +1 at each arrival and −1 at
 * each completion, so the trace is the jobs in system at the window's start plus every arrival and completion in
 * the window — memory proportional to the window's jobs, nothing outside it. */
export class QueueTracer {
  private readonly from: number;
  private readonly to: number;
  private started = false;
  private readonly initial: number[];
  /** (time, server, ±1) of every change inside the window, in the order seen */
  private readonly eventTime: number[] = [];
  private readonly eventServer: number[] = [];
  private readonly eventDelta: number[] = [];
  private readonly refreshes: number[] = [];
  constructor(private readonly servers: number, w: QueueTraceWindow, arrivalRate: number) {
    this.from = checkNumber("queueTrace.from", w.from, { min: 0 });
    this.to = checkNumber("queueTrace.to", w.to, { above: this.from });
    const expected = (this.to - this.from) * arrivalRate;
    if (expected > MAX_TRACE_JOBS) throw new ParameterError("queueTrace.to", `窗口太长：约 ${Math.round(expected).toLocaleString("en-US")} 个请求落在里面，应 ≤ ${MAX_TRACE_JOBS.toLocaleString("en-US")}（缩短 to − from）`);
    this.initial = new Array<number>(servers).fill(0);
  }
  /** Called with each arrival time before anything of that arrival happens (the view still holds every job in system
   * at the previous arrival): the first call at or after `from` takes the queues at `from` and their completions. */
  beforeArrival(t: number, view: QueueView): void {
    if (this.started || t < this.from) return;
    this.started = true;
    const mask = view.capacity - 1;
    for (let s = 0; s < this.servers; s++) {
      const base = s * view.capacity;
      for (let k = 0, h = view.head[s]; k < view.count[s]; k++, h = (h + 1) & mask) {
        const done = view.ring[base + h];
        if (done <= this.from) continue;
        this.initial[s]++;
        if (done < this.to) this.push(done, s, -1);
      }
    }
  }
  /** A job arrived at t on server s and completes at `done`. */
  arrival(t: number, s: number, done: number): void {
    if (t < this.from || t >= this.to) return;
    this.push(t, s, 1);
    if (done < this.to) this.push(done, s, -1);
  }
  refreshAt(r: number): void {
    if (r >= this.from && r < this.to) this.refreshes.push(r);
  }
  /** After the last arrival: a window that starts later still begins with the queues left at `from`. */
  end(view: QueueView): void {
    if (!this.started) this.beforeArrival(this.from, view);
  }
  private push(t: number, s: number, delta: number): void {
    this.eventTime.push(t);
    this.eventServer.push(s);
    this.eventDelta.push(delta);
  }
  /** times: `from`, every distinct change time, then `to`; lengths[s][i]: server s's queue from times[i] on. */
  result(): { times: number[]; lengths: number[][]; refreshTimes: number[] } {
    const order = this.eventTime.map((_, i) => i).sort((a, b) => this.eventTime[a] - this.eventTime[b] || this.eventDelta[a] - this.eventDelta[b]);
    const current = this.initial.slice();
    const times = [this.from];
    const lengths = current.map((n) => [n]);
    for (const i of order) {
      const t = this.eventTime[i];
      current[this.eventServer[i]] += this.eventDelta[i];
      if (t !== times[times.length - 1]) {
        times.push(t);
        for (let s = 0; s < this.servers; s++) lengths[s].push(current[s]);
      } else {
        for (let s = 0; s < this.servers; s++) lengths[s][times.length - 1] = current[s];
      }
    }
    times.push(this.to);
    for (let s = 0; s < this.servers; s++) lengths[s].push(current[s]);
    return { times, lengths, refreshTimes: this.refreshes.slice() };
  }
}
