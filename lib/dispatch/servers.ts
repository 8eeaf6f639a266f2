// §1.2–§1.3: N first-come-first-served servers behind one dispatcher. Poisson arrivals at utilization ρ, job sizes
// with mean 1 (times are in units of the mean service time), one of five dispatch policies, and optionally a stale
// view of the servers (a snapshot refreshed every T time units, Mitzenmacher 2000's "periodic update" model).
//
// Exact without an event heap: a FCFS server's completions follow the Lindley recursion
// completion = max(arrival, previous completion) + size, and a job's fate depends only on earlier arrivals, so
// jobs can be processed in arrival order. Queue lengths at an arrival (for JSQ) are the jobs still on the server:
// each server keeps its in-system jobs as a FIFO list and drops those whose completion ≤ the current time.
import { checkInteger, checkNumber, checkOneOf } from "../core/errors";
import { rng } from "../core/rng";
import { mean, quantile, standardDeviation } from "../core/stats";
import { JOB_SIZE_DISTRIBUTIONS, JobSizeDistribution, jobSizeSampler } from "./job-sizes";
import { DISPATCH_POLICIES, DispatchPolicy } from "./policies";

export interface DispatchOptions {
  /** number of servers N (default 16) */
  servers?: number;
  /** utilization ρ ∈ (0, 1): arrival rate = ρ·N jobs per mean service time */
  utilization: number;
  /** number of jobs simulated (warm-up included) */
  jobs: number;
  policy: DispatchPolicy;
  /** job-size distribution (default "exponential") */
  sizes?: JobSizeDistribution;
  /** snapshot refresh interval T in mean service times; 0 = live information (default 0) */
  refresh?: number;
  /** share of the first arrivals left out of the statistics (default 0.1) */
  warmupFraction?: number;
  seed: number | string;
}

export interface DispatchRun {
  servers: number;
  utilization: number;
  jobs: number;
  policy: DispatchPolicy;
  sizes: JobSizeDistribution;
  refresh: number;
  seed: number | string;
  /** jobs 0 … warmupJobs−1 (by arrival) are excluded from the statistics */
  warmupJobs: number;
  /** per job, in arrival order */
  arrival: Float64Array;
  size: Float64Array;
  server: Int32Array;
  start: Float64Array;
  completion: Float64Array;
  /** response times (completion − arrival) of the measured jobs, in mean service times */
  responseTimes: Float64Array;
  mean: number;
  p99: number;
  /** the snapshot refresh instants (empty for live information) */
  refreshTimes: number[];
}

/** Checks and fills in defaults; every bad value throws a ParameterError naming it. */
export function resolveDispatchOptions(o: DispatchOptions): Required<DispatchOptions> {
  if (o === null || typeof o !== "object") throw new TypeError("simulateDispatch: options object required");
  return {
    servers: checkInteger("servers", o.servers ?? 16, { min: 1 }),
    utilization: checkNumber("utilization", o.utilization, { above: 0, below: 1 }),
    jobs: checkInteger("jobs", o.jobs, { min: 1 }),
    policy: checkOneOf("policy", o.policy, DISPATCH_POLICIES),
    sizes: checkOneOf("sizes", o.sizes ?? "exponential", JOB_SIZE_DISTRIBUTIONS),
    refresh: checkNumber("refresh", o.refresh ?? 0, { min: 0 }),
    warmupFraction: checkNumber("warmupFraction", o.warmupFraction ?? 0.1, { min: 0, below: 1 }),
    seed: o.seed,
  };
}

export function simulateDispatch(options: DispatchOptions): DispatchRun {
  const o = resolveDispatchOptions(options);
  const N = o.servers;
  const jobs = o.jobs;
  const root = rng(o.seed);
  // Separate streams: every policy sees the same arrivals and sizes for a given seed (common random numbers).
  const arrivalStream = root.fork("arrivals");
  const nextSize = jobSizeSampler(o.sizes, root.fork("sizes"));
  const choice = root.fork("dispatch");
  const meanGap = 1 / (o.utilization * N);

  const arrival = new Float64Array(jobs);
  const size = new Float64Array(jobs);
  const server = new Int32Array(jobs);
  const start = new Float64Array(jobs);
  const completion = new Float64Array(jobs);

  // Per server: the jobs in system as a FIFO linked list (head → … → tail), their count, the last completion.
  const nextOnServer = new Int32Array(jobs).fill(-1);
  const head = new Int32Array(N).fill(-1);
  const tail = new Int32Array(N).fill(-1);
  const count = new Int32Array(N);
  const lastCompletion = new Float64Array(N);
  // The stale view: queue lengths and remaining work as of the last refresh.
  const stale = o.refresh > 0;
  const snapshotCount = new Int32Array(N);
  const snapshotWork = new Float64Array(N);
  let nextRefresh = o.refresh;
  const refreshTimes: number[] = [];
  if (stale) refreshTimes.push(0);

  const departUntil = (s: number, t: number): void => {
    let h = head[s];
    while (h >= 0 && completion[h] <= t) {
      h = nextOnServer[h];
      count[s]--;
    }
    head[s] = h;
    if (h < 0) tail[s] = -1;
  };
  // Index of a minimum of `values`, ties broken uniformly at random (reservoir sampling).
  const argminRandomTie = (values: Int32Array | Float64Array): number => {
    let best = 0;
    let bestValue = values[0];
    let ties = 1;
    for (let s = 1; s < N; s++) {
      const v = values[s];
      if (v < bestValue) {
        best = s;
        bestValue = v;
        ties = 1;
      } else if (v === bestValue) {
        ties++;
        if (choice.uniform() * ties < 1) best = s;
      }
    }
    return best;
  };
  const liveWork = new Float64Array(N);

  let t = 0;
  let roundRobin = 0;
  for (let i = 0; i < jobs; i++) {
    t += arrivalStream.exponential(meanGap);
    const x = nextSize();
    arrival[i] = t;
    size[i] = x;
    if (stale && t >= nextRefresh) {
      // All earlier jobs arrived before the refresh instant r, so the state at r is known exactly.
      const r = Math.floor(t / o.refresh) * o.refresh;
      for (let s = 0; s < N; s++) {
        departUntil(s, r);
        snapshotCount[s] = count[s];
        snapshotWork[s] = Math.max(0, lastCompletion[s] - r);
      }
      refreshTimes.push(r);
      nextRefresh = r + o.refresh;
    }
    let s = 0;
    switch (o.policy) {
      case "random":
        s = choice.int(N);
        break;
      case "roundRobin":
        s = roundRobin;
        roundRobin = (roundRobin + 1) % N;
        break;
      case "jsq":
        if (!stale) for (let k = 0; k < N; k++) departUntil(k, t);
        s = argminRandomTie(stale ? snapshotCount : count);
        break;
      case "powerOfTwo": {
        const a = choice.int(N);
        let b = N > 1 ? choice.int(N - 1) : 0;
        if (N > 1 && b >= a) b++;
        if (!stale) {
          departUntil(a, t);
          departUntil(b, t);
        }
        const view = stale ? snapshotCount : count;
        s = view[a] < view[b] ? a : view[b] < view[a] ? b : choice.uniform() < 0.5 ? a : b;
        break;
      }
      case "leastWorkLeft":
        if (!stale) for (let k = 0; k < N; k++) liveWork[k] = Math.max(0, lastCompletion[k] - t);
        s = argminRandomTie(stale ? snapshotWork : liveWork);
        break;
    }
    const begin = Math.max(t, lastCompletion[s]);
    server[i] = s;
    start[i] = begin;
    completion[i] = begin + x;
    lastCompletion[s] = begin + x;
    if (tail[s] >= 0) nextOnServer[tail[s]] = i;
    else head[s] = i;
    tail[s] = i;
    count[s]++;
  }

  const warmupJobs = Math.min(jobs - 1, Math.floor(o.warmupFraction * jobs));
  const responseTimes = new Float64Array(jobs - warmupJobs);
  for (let i = warmupJobs; i < jobs; i++) responseTimes[i - warmupJobs] = completion[i] - arrival[i];
  return {
    ...o,
    warmupJobs,
    arrival,
    size,
    server,
    start,
    completion,
    responseTimes,
    mean: mean(responseTimes),
    p99: quantile(responseTimes, 0.99),
    refreshTimes,
  };
}

export interface SeedResult {
  seed: number | string;
  mean: number;
  p99: number;
}

export interface DispatchSummary {
  policy: DispatchPolicy;
  sizes: JobSizeDistribution;
  refresh: number;
  /** averages over seeds of each run's mean and P99 response time (mean service times) */
  mean: number;
  p99: number;
  /** standard deviation across seeds (0 for one seed) */
  meanSd: number;
  p99Sd: number;
  perSeed: SeedResult[];
}

/** The seeds used for `count` independent runs derived from `seed`: seed/0, seed/1, … */
export function seedList(seed: number | string, count: number): string[] {
  checkInteger("seeds", count, { min: 1 });
  return Array.from({ length: count }, (_, k) => `${seed}/${k}`);
}

/** Runs one configuration over several seeds (the same seeds for every policy) and averages mean and P99. */
export function dispatchAcrossSeeds(options: Omit<DispatchOptions, "seed">, seed: number | string, seeds: number): DispatchSummary {
  const perSeed = seedList(seed, seeds).map((s) => {
    const run = simulateDispatch({ ...options, seed: s });
    return { seed: s, mean: run.mean, p99: run.p99 };
  });
  const means = perSeed.map((r) => r.mean);
  const p99s = perSeed.map((r) => r.p99);
  return {
    policy: options.policy,
    sizes: options.sizes ?? "exponential",
    refresh: options.refresh ?? 0,
    mean: mean(means),
    p99: mean(p99s),
    meanSd: standardDeviation(means),
    p99Sd: standardDeviation(p99s),
    perSeed,
  };
}

export interface QueueLengthTrace {
  /** sample instants (mean service times) */
  times: number[];
  /** lengths[s][k]: jobs in system (waiting + in service) on server s at times[k] */
  lengths: number[][];
  /** snapshot refreshes inside the window */
  refreshTimes: number[];
}

/** Queue lengths of every server sampled every `step` on [from, to), rebuilt from a run's job records. */
export function queueLengthTrace(run: DispatchRun, window: { from: number; to: number; step: number }): QueueLengthTrace {
  const from = checkNumber("from", window.from, { min: 0 });
  const to = checkNumber("to", window.to, { above: from });
  const step = checkNumber("step", window.step, { above: 0 });
  const samples = Math.ceil((to - from) / step);
  const times = Array.from({ length: samples }, (_, k) => from + k * step);
  const lengths = Array.from({ length: run.servers }, () => new Array<number>(samples).fill(0));
  for (let i = 0; i < run.jobs; i++) {
    const a = run.arrival[i];
    const c = run.completion[i];
    if (a >= to || c <= from) continue;
    // the job is counted at sample times τ with a ≤ τ < c
    const first = Math.max(0, Math.ceil((a - from) / step));
    const last = Math.min(samples - 1, Math.ceil((c - from) / step) - 1);
    const row = lengths[run.server[i]];
    for (let k = first; k <= last; k++) row[k]++;
  }
  return { times, lengths, refreshTimes: run.refreshTimes.filter((r) => r >= from && r < to) };
}

export interface HerdingTraceOptions extends Omit<DispatchOptions, "jobs" | "warmupFraction"> {
  /** window start and end (mean service times) and sampling step */
  from: number;
  to: number;
  step?: number;
}

/** Simulates just long enough to cover [from, to) and returns every server's queue length over that window (§1.3). */
export function herdingTrace(options: HerdingTraceOptions): QueueLengthTrace & { run: DispatchRun } {
  const servers = checkInteger("servers", options.servers ?? 16, { min: 1 });
  const utilization = checkNumber("utilization", options.utilization, { above: 0, below: 1 });
  const from = checkNumber("from", options.from, { min: 0 });
  const to = checkNumber("to", options.to, { above: from });
  const step = checkNumber("step", options.step ?? 0.25, { above: 0 });
  // enough arrivals to pass `to` (Poisson count mean + 6 standard deviations)
  const expected = utilization * servers * to;
  const jobs = Math.ceil(expected + 6 * Math.sqrt(expected) + 10);
  const run = simulateDispatch({ ...options, servers, utilization, jobs, warmupFraction: 0 });
  return { ...queueLengthTrace(run, { from, to, step }), run };
}

/** How concentrated dispatching was: per refresh interval of length `interval`, the share of its arrivals that went
 * to the single most-chosen server, averaged over intervals with at least one arrival (1/N would be perfectly even). */
export function topServerShare(run: DispatchRun, interval: number, fromJob = run.warmupJobs): number {
  checkNumber("interval", interval, { above: 0 });
  const perServer = new Int32Array(run.servers);
  let shareSum = 0;
  let intervals = 0;
  let current = -1;
  let total = 0;
  const close = () => {
    if (total > 0) {
      let top = 0;
      for (let s = 0; s < run.servers; s++) top = Math.max(top, perServer[s]);
      shareSum += top / total;
      intervals++;
    }
    perServer.fill(0);
    total = 0;
  };
  for (let i = fromJob; i < run.jobs; i++) {
    const k = Math.floor(run.arrival[i] / interval);
    if (k !== current) {
      close();
      current = k;
    }
    perServer[run.server[i]]++;
    total++;
  }
  close();
  return intervals ? shareSum / intervals : NaN;
}
