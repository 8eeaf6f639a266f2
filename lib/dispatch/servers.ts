// §1.2–§1.3: N first-come-first-served servers behind one dispatcher. Poisson arrivals at utilization ρ, job sizes
// with mean 1 (times are in units of the mean service time), one of five dispatch policies, and optionally a stale
// view of the servers (a snapshot refreshed every T time units, Mitzenmacher 2000's "periodic update" model).
//
// Exact without an event heap: a FCFS server's completions follow the Lindley recursion
// completion = max(arrival, previous completion) + size, and a job's fate depends only on earlier arrivals, so
// jobs are processed in arrival order. Queue lengths (for JSQ, power of two and the samplers) are the jobs still on
// a server: each server keeps the completion times of its jobs in system in a ring buffer (FIFO, increasing) and
// drops those ≤ the current time. Memory is O(servers) plus the measured response times, unless the caller asks
// for per-job records; the observers (arrivals per interval, queue-length samples) keep bounded windows.
import { checkInteger, checkNumber, checkOneOf } from "../core/errors";
import { rng } from "../core/rng";
import { mean, quantile, standardDeviation } from "../core/stats";
import { JOB_SIZE_DISTRIBUTIONS, JobSizeDistribution } from "./job-sizes";
import { jobStream } from "./job-stream";
import { DISPATCH_POLICIES, DispatchPolicy } from "./policies";
import { DispatchPolicyInput, isUserPolicy, resolveUserPolicy, RunWatch, UserPolicy, UserPolicyRunner, withTimeLimit } from "./user-policy";
import { ArrivalCounter, ArrivalWindow, HerdingMeter, QueueSampler, QueueTraceWindow, QueueTracer, QueueWindow } from "./observers";
import { ServerState } from "./server-state";

export interface DispatchOptions {
  /** number of servers N (default 16) */
  servers?: number;
  /** utilization ρ ∈ (0, 1): arrival rate = ρ·N jobs per mean service time */
  utilization: number;
  /** number of jobs simulated (warm-up included) */
  jobs: number;
  /** a policy of the library by name, or one the reader wrote: `(servers, rng) => server index` or
   * { name, choose } (lib/dispatch/user-policy.ts) */
  policy: DispatchPolicyInput;
  /** job-size distribution (default "exponential") */
  sizes?: JobSizeDistribution;
  /** snapshot refresh interval T in mean service times; 0 = live information (default 0) */
  refresh?: number;
  /** share of the first arrivals left out of the statistics (default 0.1) */
  warmupFraction?: number;
  seed: number | string;
  /** keep every job's arrival, size, server, start and completion, and every refresh instant (default false) */
  recordJobs?: boolean;
  /** count arrivals per server per interval on a window of `intervals` intervals from time `from` */
  arrivalWindow?: ArrivalWindow;
  /** sample every server's queue length every `step` on [from, to) */
  queueWindow?: QueueWindow;
  /** every server's exact queue length on [from, to): each arrival and completion in the window (§1.3's sawtooth) */
  queueTrace?: QueueTraceWindow;
  /** herding statistics over the measured jobs: the share of each interval's arrivals sent to its most-fed server
   * (intervals of this length), and queue spread / longest queue sampled every `queueStep` (default 0.25) */
  herding?: { interval: number; queueStep?: number };
}

export interface JobRecords {
  /** per job, in arrival order */
  arrival: Float64Array;
  size: Float64Array;
  server: Int32Array;
  start: Float64Array;
  completion: Float64Array;
  /** every snapshot refresh instant (empty for live information) */
  refreshTimes: number[];
}

export interface HerdingStats {
  /** per interval, the share of its (measured) arrivals sent to the most-fed server, averaged over intervals */
  topServerShare: number;
  /** longest − shortest queue, averaged over samples every queueStep from the first measured arrival to the last */
  queueSpread: number;
  /** the longest queue seen at those samples */
  longestQueue: number;
  /** stale information: the share of measured arrivals sent to a server the current snapshot showed shortest (any of
   * the tied ones); NaN with live information */
  snapshotShortestShare: number;
  /** stale information: servers tied shortest in a snapshot, averaged over the snapshots from the first measured arrival */
  shortestTies: number;
}

export interface DispatchRun {
  servers: number;
  utilization: number;
  jobs: number;
  /** the library's policy id, or the display name of the reader's policy */
  policy: string;
  sizes: JobSizeDistribution;
  refresh: number;
  warmupFraction: number;
  seed: number | string;
  /** jobs 0 … warmupJobs−1 (by arrival) are excluded from the statistics */
  warmupJobs: number;
  /** response times (completion − arrival) of the measured jobs, in mean service times */
  responseTimes: Float64Array;
  mean: number;
  p99: number;
  /** snapshot refreshes in the run */
  refreshes: number;
  /** per-job records (recordJobs) */
  records?: JobRecords;
  arrivalCounts?: ReturnType<ArrivalCounter["result"]>;
  queueSamples?: ReturnType<QueueSampler["result"]>;
  queueTrace?: ReturnType<QueueTracer["result"]>;
  herding?: HerdingStats;
}

type Resolved = Required<Omit<DispatchOptions, "arrivalWindow" | "queueWindow" | "queueTrace" | "herding" | "policy">> &
  Pick<DispatchOptions, "arrivalWindow" | "queueWindow" | "queueTrace" | "herding"> & { policy: DispatchPolicy | UserPolicy };

/** Checks and fills in defaults; every bad value throws a ParameterError naming it. */
export function resolveDispatchOptions(o: DispatchOptions): Resolved {
  if (o === null || typeof o !== "object") throw new TypeError("simulateDispatch: options object required");
  return {
    servers: checkInteger("servers", o.servers ?? 16, { min: 1 }),
    utilization: checkNumber("utilization", o.utilization, { above: 0, below: 1 }),
    jobs: checkInteger("jobs", o.jobs, { min: 1 }),
    policy: isUserPolicy(o.policy) ? resolveUserPolicy(o.policy) : checkOneOf("policy", o.policy, DISPATCH_POLICIES),
    sizes: checkOneOf("sizes", o.sizes ?? "exponential", JOB_SIZE_DISTRIBUTIONS),
    refresh: checkNumber("refresh", o.refresh ?? 0, { min: 0 }),
    warmupFraction: checkNumber("warmupFraction", o.warmupFraction ?? 0.1, { min: 0, below: 1 }),
    seed: o.seed,
    recordJobs: o.recordJobs ?? false,
    arrivalWindow: o.arrivalWindow,
    queueWindow: o.queueWindow,
    queueTrace: o.queueTrace,
    herding: o.herding && { interval: checkNumber("herding.interval", o.herding.interval, { above: 0 }), queueStep: checkNumber("herding.queueStep", o.herding.queueStep ?? 0.25, { above: 0 }) },
  };
}

export function simulateDispatch(options: DispatchOptions): DispatchRun {
  const o = resolveDispatchOptions(options);
  const policy = o.policy;
  // a reader's policy runs under its time limit (lib/dispatch/user-policy.ts)
  return typeof policy === "string" ? simulate(o) : withTimeLimit(policy, (watch) => simulate(o, watch));
}

function simulate(o: Resolved, watch?: RunWatch): DispatchRun {
  const N = o.servers;
  const jobs = o.jobs;
  const root = rng(o.seed);
  // Separate streams: every policy sees the same arrivals and sizes for a given seed (common random numbers); the
  // session keeps them (job-stream.ts).
  const choice = root.fork("dispatch");
  const meanGap = 1 / (o.utilization * N);
  const stream = jobStream(o.seed, o.sizes, meanGap, jobs);
  const arrivalTimes = stream.arrival;
  const sizes = stream.size;
  const warmupJobs = Math.min(jobs - 1, Math.floor(o.warmupFraction * jobs));

  const records: JobRecords | undefined = o.recordJobs
    ? { arrival: new Float64Array(jobs), size: new Float64Array(jobs), server: new Int32Array(jobs), start: new Float64Array(jobs), completion: new Float64Array(jobs), refreshTimes: [] }
    : undefined;
  const responseTimes = new Float64Array(jobs - warmupJobs);
  const arrivals = o.arrivalWindow ? new ArrivalCounter(N, o.arrivalWindow) : undefined;
  const window = o.queueWindow ? new QueueSampler(N, o.queueWindow) : undefined;
  const trace = o.queueTrace ? new QueueTracer(N, o.queueTrace, o.utilization * N) : undefined;
  const meter = o.herding ? new HerdingMeter(N, o.herding.interval, o.herding.queueStep ?? 0.25) : undefined;
  const stale = o.refresh > 0;
  // Queue lengths are kept only when something reads them.
  const user = typeof o.policy === "string" ? null : o.policy;
  const countsKept = user !== null || o.policy === "jsq" || o.policy === "powerOfTwo" || window !== undefined || meter !== undefined || trace !== undefined;
  const state = new ServerState(N, user === null ? (o.policy as DispatchPolicy) : "random", stale, countsKept, choice);
  // a reader's policy reads the same state through a small object, and draws from the same stream
  const runner = user === null ? null : new UserPolicyRunner(user, state, stale, choice, o.seed);
  if (watch && runner) watch.runner = runner;
  let nextRefresh = o.refresh;
  let refreshes = 0;
  if (stale) {
    refreshes = 1;
    records?.refreshTimes.push(0);
    window?.refreshAt(0);
    trace?.refreshAt(0);
  }

  let t = 0;
  let sum = 0;
  for (let i = 0; i < jobs; i++) {
    t = arrivalTimes[i];
    const x = sizes[i];
    trace?.beforeArrival(t, state.system);
    if (stale && t >= nextRefresh) {
      const r = Math.floor(t / o.refresh) * o.refresh;
      // samples before r first: the refresh drops the jobs done by r
      window?.sampleBefore(r, state.system);
      meter?.sampleBefore(r, state.system);
      state.refresh(r);
      meter?.refreshAt(r, state.system);
      runner?.refreshedAt(r);
      refreshes++;
      records?.refreshTimes.push(r);
      window?.refreshAt(r);
      trace?.refreshAt(r);
      nextRefresh = r + o.refresh;
    }
    window?.sampleBefore(t, state.system);
    if (meter) {
      if (i === warmupJobs) meter.startAt(t);
      meter.sampleBefore(t, state.system);
    }
    const s = runner === null ? state.choose(t) : runner.choose(t, i);
    const freeAt = state.lastCompletion[s];
    const done = state.admit(s, t, x);
    if (i >= warmupJobs) {
      responseTimes[i - warmupJobs] = done - t;
      sum += done - t;
      meter?.arrival(t, s);
    }
    arrivals?.arrival(t, s);
    trace?.arrival(t, s, done);
    if (records) {
      records.arrival[i] = t;
      records.size[i] = x;
      records.server[i] = s;
      records.start[i] = freeAt > t ? freeAt : t;
      records.completion[i] = done;
    }
  }

  trace?.end(state.system);
  return {
    servers: N,
    utilization: o.utilization,
    jobs,
    policy: user === null ? (o.policy as DispatchPolicy) : user.name,
    sizes: o.sizes,
    refresh: o.refresh,
    warmupFraction: o.warmupFraction,
    seed: o.seed,
    warmupJobs,
    responseTimes,
    mean: sum / responseTimes.length,
    p99: quantile(responseTimes, 0.99),
    refreshes,
    records,
    arrivalCounts: arrivals?.result(),
    queueSamples: window?.result(),
    queueTrace: trace?.result(),
    herding: meter?.result(),
  };
}

export interface SeedResult {
  seed: number | string;
  mean: number;
  p99: number;
}

export interface DispatchSummary {
  /** the library's policy id, or the display name of the reader's policy */
  policy: string;
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
    policy: isUserPolicy(options.policy) ? resolveUserPolicy(options.policy).name : checkOneOf("policy", options.policy, DISPATCH_POLICIES),
    sizes: options.sizes ?? "exponential",
    refresh: options.refresh ?? 0,
    mean: mean(means),
    p99: mean(p99s),
    meanSd: standardDeviation(means),
    p99Sd: standardDeviation(p99s),
    perSeed,
  };
}
