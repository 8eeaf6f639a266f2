// §1 dispatch library: queueing theory, invariants of the FCFS simulation, determinism and bad input.
import { describe, expect, it } from "vitest";
import { ParameterError } from "../lib/core/errors";
import { rng } from "../lib/core/rng";
import { mean, quantile } from "../lib/core/stats";
import {
  ballsIntoBins,
  BOUNDED_PARETO,
  BOUNDED_PARETO_LOW,
  boundedParetoTopWorkShare,
  boundedParetoUpperQuantile,
  choiceMaxLoadFormula,
  DISPATCH_POLICIES,
  DispatchOptions,
  DispatchRun,
  dispatchAcrossSeeds,
  erlangArrivalsM1,
  erlangC,
  herdingTrace,
  jsqMeanResponse,
  jobSizeMoments,
  jobSizeSampler,
  maxLoadTrial,
  mg1Mean,
  mm1,
  mmc,
  powerOfDMeanField,
  queueLengthTrace,
  randomMaxLoadFormula,
  simulateDispatch,
} from "../lib/dispatch/index";

/** A run with its per-job records flattened onto it (arrival, size, server, start, completion, refreshTimes). */
type Recorded = DispatchRun & NonNullable<DispatchRun["records"]>;
function recorded(o: DispatchOptions): Recorded {
  const run = simulateDispatch({ ...o, recordJobs: true });
  return Object.assign(run, run.records);
}

/** Erlang C: the M/M/N central-queue mean response time (service mean 1) at utilization rho. */
function mmnMeanResponse(servers: number, rho: number): number {
  const a = rho * servers;
  let term = 1;
  let sum = 1;
  for (let k = 1; k < servers; k++) {
    term *= a / k;
    sum += term;
  }
  const last = ((term * a) / servers) * (servers / (servers - a));
  const waitProbability = last / (sum + last);
  return 1 + waitProbability / (servers - a);
}

describe("balls into bins", () => {
  it("two-choice grows far slower than random from 10^3 to 10^5", () => {
    const r3 = ballsIntoBins({ n: 1000, d: 1, trials: 10, seed: 11 }).meanMaxLoad;
    const r5 = ballsIntoBins({ n: 100000, d: 1, trials: 10, seed: 11 }).meanMaxLoad;
    const t3 = ballsIntoBins({ n: 1000, d: 2, trials: 10, seed: 11 }).meanMaxLoad;
    const t5 = ballsIntoBins({ n: 100000, d: 2, trials: 10, seed: 11 }).meanMaxLoad;
    expect(t5).toBeLessThan(r5 / 1.8);
    expect(r5 - r3).toBeGreaterThan(1.2);
    expect(t5 - t3).toBeLessThan((r5 - r3) / 2.5);
    // two-choice sits near ln ln n / ln 2 (+ a small constant); random well above its asymptotic formula at these n
    expect(Math.abs(t5 - choiceMaxLoadFormula(100000))).toBeLessThan(1);
    expect(r5).toBeGreaterThan(randomMaxLoadFormula(100000));
  });

  it("every ball lands in a bin and the max load is at least the average", () => {
    const loads = new Int32Array(500);
    const max = maxLoadTrial(500, 3, rng(1), loads);
    let total = 0;
    let seenMax = 0;
    for (const x of loads) {
      total += x;
      seenMax = Math.max(seenMax, x);
    }
    expect(total).toBe(500);
    expect(max).toBe(seenMax);
    expect(max).toBeGreaterThanOrEqual(1);
  });

  it("formulas match the lecture's values at n = 10^5 and 10^6", () => {
    expect(randomMaxLoadFormula(100000)).toBeCloseTo(4.71, 2);
    expect(choiceMaxLoadFormula(100000)).toBeCloseTo(3.53, 2);
    expect(randomMaxLoadFormula(1000000)).toBeCloseTo(5.26, 2);
    expect(choiceMaxLoadFormula(1000000)).toBeCloseTo(3.79, 2);
  });

  it("is deterministic per seed", () => {
    const a = ballsIntoBins({ n: 5000, d: 1, trials: 6, seed: "x" });
    const b = ballsIntoBins({ n: 5000, d: 1, trials: 6, seed: "x" });
    const c = ballsIntoBins({ n: 5000, d: 1, trials: 6, seed: "y" });
    expect(a.perTrial).toEqual(b.perTrial);
    expect(c.perTrial).not.toEqual(a.perTrial);
  });
});

describe("job sizes", () => {
  it("both distributions have mean 1; the bounded Pareto stays in its bounds and has the stated variability", () => {
    for (const name of ["exponential", "boundedPareto"] as const) {
      const next = jobSizeSampler(name, rng(`sizes-${name}`));
      const xs = new Float64Array(400000);
      for (let i = 0; i < xs.length; i++) xs[i] = next();
      expect(Math.abs(mean(xs) - 1)).toBeLessThan(0.03);
      if (name === "boundedPareto") {
        let lo = Infinity;
        let hi = -Infinity;
        for (const x of xs) {
          lo = Math.min(lo, x);
          hi = Math.max(hi, x);
        }
        expect(lo).toBeGreaterThanOrEqual(BOUNDED_PARETO_LOW * 0.999999);
        expect(hi).toBeLessThanOrEqual(BOUNDED_PARETO_LOW * BOUNDED_PARETO.range * 1.000001);
        expect(hi).toBeGreaterThan(BOUNDED_PARETO_LOW * BOUNDED_PARETO.range * 0.5);
        const m2 = mean(xs.map((x) => x * x));
        expect(m2).toBeGreaterThan(jobSizeMoments(name).secondMoment * 0.8);
        expect(m2).toBeLessThan(jobSizeMoments(name).secondMoment * 1.2);
        expect(jobSizeMoments(name).scv).toBeGreaterThan(10);
      }
    }
  });
});

describe("N FCFS servers: queueing theory", () => {
  it("one server, exponential sizes: M/M/1 mean 1/(1−ρ) and P99 ln(100)/(1−ρ) within 10%", () => {
    const rho = 0.8;
    const run = simulateDispatch({ servers: 1, utilization: rho, jobs: 300000, policy: "random", seed: 2 });
    expect(Math.abs(run.mean - 1 / (1 - rho)) / (1 / (1 - rho))).toBeLessThan(0.1);
    const p99 = Math.log(100) / (1 - rho);
    expect(Math.abs(run.p99 - p99) / p99).toBeLessThan(0.1);
  });

  it("least-work-left is the M/M/16 central queue (Erlang C); JSQ(16) at ρ = 0.9 nearly never queues", () => {
    const bound = mmnMeanResponse(16, 0.9); // ≈ 1.37
    const lwl = simulateDispatch({ servers: 16, utilization: 0.9, jobs: 200000, policy: "leastWorkLeft", seed: 3 });
    expect(Math.abs(lwl.mean - bound) / bound).toBeLessThan(0.06);
    const jsq = simulateDispatch({ servers: 16, utilization: 0.9, jobs: 200000, policy: "jsq", seed: 3 });
    // No policy beats the central queue (JSQ's exact value: the next test)
    expect(jsq.mean).toBeGreaterThan(bound * 0.97);
    const random = simulateDispatch({ servers: 16, utilization: 0.9, jobs: 200000, policy: "random", seed: 3 });
    expect(jsq.mean).toBeLessThan(random.mean / 4);
  });

  it("JSQ(16) at ρ = 0.9: the simulated mean is the Markov chain's exact value, within 4 standard errors of 10 replications", () => {
    // The chain truncated at 5 jobs a server, and at 4: the truncation error shrinks about 4× a level
    // (K = 4, 5, 6, 7 give 1.5602, 1.5735, 1.5769, 1.5777), so the untruncated value lies above K = 5's by less
    // than the step from 4 to 5.
    const exact = jsqMeanResponse(16, 0.9, 5);
    const truncation = exact.mean - jsqMeanResponse(16, 0.9, 4).mean;
    expect(truncation).toBeGreaterThan(0);
    expect(truncation).toBeLessThan(0.02);
    const means = dispatchAcrossSeeds({ servers: 16, utilization: 0.9, jobs: 40000, policy: "jsq" }, 11, 10).perSeed.map((r) => r.mean);
    const m = mean(means);
    const se = Math.sqrt(means.reduce((s, x) => s + (x - m) ** 2, 0) / (means.length - 1) / means.length);
    expect(Math.abs(m - exact.mean)).toBeLessThan(4 * se + truncation);
    // and the test can tell JSQ from the central queue (M/M/16: ≈ 1.37)
    expect(4 * se + truncation).toBeLessThan(exact.mean - mmnMeanResponse(16, 0.9));
  }, 60000);

  it("the JSQ chain: one server is M/M/1/K (mean jobs ρ/(1−ρ) − (K+1)ρ^(K+1)/(1−ρ^(K+1))); never below M/M/N", () => {
    const rho = 0.8;
    const K = 12;
    const exactJobs = rho / (1 - rho) - ((K + 1) * rho ** (K + 1)) / (1 - rho ** (K + 1));
    expect(jsqMeanResponse(1, rho, K).meanJobs).toBeCloseTo(exactJobs, 6);
    expect(jsqMeanResponse(1, rho, K).lostShare).toBeCloseTo(((1 - rho) * rho ** K) / (1 - rho ** (K + 1)), 8);
    for (const n of [2, 4]) expect(jsqMeanResponse(n, 0.7, 8).mean).toBeGreaterThan(mmnMeanResponse(n, 0.7));
  });

  it("heavy tails (8 seeds): round robin is within noise of random; JSQ's P99 far above least-work-left's", () => {
    const base = { servers: 16, utilization: 0.9, jobs: 30000, sizes: "boundedPareto" as const };
    const random = dispatchAcrossSeeds({ ...base, policy: "random" }, 5, 8);
    const rr = dispatchAcrossSeeds({ ...base, policy: "roundRobin" }, 5, 8);
    const paired = random.perSeed.map((r, k) => r.mean - rr.perSeed[k].mean);
    const sd = Math.sqrt(mean(paired.map((d) => (d - mean(paired)) ** 2)) * (8 / 7));
    expect(Math.abs(mean(paired))).toBeLessThan((2.5 * sd) / Math.sqrt(8));
    expect(Math.abs(random.mean - rr.mean)).toBeLessThan(random.meanSd);
    const jsq = dispatchAcrossSeeds({ ...base, policy: "jsq" }, 5, 8);
    const lwl = dispatchAcrossSeeds({ ...base, policy: "leastWorkLeft" }, 5, 8);
    expect(jsq.p99).toBeGreaterThan(1.8 * lwl.p99);
    // and under exponential sizes round robin is clearly better than random
    const expRandom = dispatchAcrossSeeds({ servers: 16, utilization: 0.9, jobs: 30000, policy: "random" }, 5, 4);
    const expRr = dispatchAcrossSeeds({ servers: 16, utilization: 0.9, jobs: 30000, policy: "roundRobin" }, 5, 4);
    expect(expRr.mean).toBeLessThan(0.7 * expRandom.mean);
  });
});

/** Jobs in system on each server just before time t, counting only jobs that arrived before `arrivedBefore`. */
function naiveQueues(run: Recorded, t: number, arrivedBefore: number): number[] {
  const q = new Array<number>(run.servers).fill(0);
  for (let j = 0; j < run.jobs && run.arrival[j] < arrivedBefore; j++) if (run.completion[j] > t) q[run.server[j]]++;
  return q;
}

/** Every violated invariant as a message (one expect per run keeps the test fast). */
function fcfsViolations(run: Recorded): string[] {
  const problems: string[] = [];
  const perServer: number[][] = Array.from({ length: run.servers }, () => []);
  for (let i = 0; i < run.jobs; i++) {
    if (!(run.server[i] >= 0 && run.server[i] < run.servers)) problems.push(`job ${i}: server ${run.server[i]}`);
    else perServer[run.server[i]].push(i);
    if (i > 0 && run.arrival[i] < run.arrival[i - 1]) problems.push(`job ${i}: arrivals out of order`);
  }
  // every job served exactly once: the per-server lists partition the jobs
  const served = perServer.flat().sort((a, b) => a - b);
  if (served.length !== run.jobs || served.some((j, k) => j !== k)) problems.push("jobs not served exactly once");
  for (const list of perServer) {
    let previousCompletion = 0;
    for (const i of list) {
      // FCFS and one job at a time: starts in arrival order, after the previous job leaves, without idling
      if (run.start[i] < run.arrival[i]) problems.push(`job ${i} starts before it arrives`);
      if (run.start[i] < previousCompletion) problems.push(`job ${i} overlaps the previous job on server ${run.server[i]}`);
      if (run.start[i] !== Math.max(run.arrival[i], previousCompletion)) problems.push(`job ${i} waits while its server idles`);
      if (Math.abs(run.completion[i] - run.start[i] - run.size[i]) > 1e-9) problems.push(`job ${i} service ≠ size`);
      previousCompletion = run.completion[i];
    }
  }
  return problems;
}

describe("N FCFS servers: invariants", () => {
  const small = { servers: 5, utilization: 0.85, jobs: 1200 };
  for (const policy of DISPATCH_POLICIES) {
    for (const refresh of [0, 2]) {
      for (const sizes of ["exponential", "boundedPareto"] as const) {
        it(`${policy}, T = ${refresh}, ${sizes}: every job served once, FCFS, one at a time`, () => {
          expect(fcfsViolations(recorded({ ...small, policy, refresh, sizes, seed: `${policy}-${refresh}` }))).toEqual([]);
        });
      }
    }
  }

  it("the invariant check catches overlapping service and lost jobs", () => {
    const run = recorded({ ...small, policy: "jsq", seed: 8 });
    const i = run.jobs - 1;
    const j = Array.from(run.server).findIndex((s, k) => k < i && s === run.server[i] && run.completion[k] > run.start[k]);
    run.start[i] = run.arrival[j]; // overlaps an earlier job on the same server
    run.server[3] = -1;
    const problems = fcfsViolations(run);
    expect(problems.some((m) => m.includes("overlaps") || m.includes("idles"))).toBe(true);
    expect(problems).toContain("jobs not served exactly once");
  });

  it("round robin cycles through the servers", () => {
    const run = recorded({ ...small, policy: "roundRobin", seed: 1 });
    for (let i = 0; i < run.jobs; i++) expect(run.server[i]).toBe(i % small.servers);
  });

  it("live JSQ joins a shortest queue and least-work-left the least remaining work", () => {
    const jsq = recorded({ ...small, policy: "jsq", seed: 4 });
    for (let i = 0; i < jsq.jobs; i++) {
      const q = naiveQueues(jsq, jsq.arrival[i], jsq.arrival[i]);
      expect(q[jsq.server[i]]).toBe(Math.min(...q));
    }
    const lwl = recorded({ ...small, policy: "leastWorkLeft", sizes: "boundedPareto", seed: 4 });
    for (let i = 0; i < lwl.jobs; i++) {
      const work = new Array<number>(small.servers).fill(0);
      for (let j = 0; j < i; j++) work[lwl.server[j]] = Math.max(work[lwl.server[j]], lwl.completion[j] - lwl.arrival[i]);
      expect(work[lwl.server[i]]).toBeCloseTo(Math.min(...work), 9);
    }
  });

  it("stale JSQ joins a shortest queue of the last snapshot, blind to its own dispatches since", () => {
    const T = 3;
    const run = recorded({ ...small, policy: "jsq", refresh: T, seed: 6 });
    let disagreesWithLive = 0;
    for (let i = 0; i < run.jobs; i++) {
      const r = Math.floor(run.arrival[i] / T) * T;
      const snapshot = naiveQueues(run, r, r);
      expect(snapshot[run.server[i]]).toBe(Math.min(...snapshot));
      const live = naiveQueues(run, run.arrival[i], run.arrival[i]);
      if (live[run.server[i]] !== Math.min(...live)) disagreesWithLive++;
    }
    expect(disagreesWithLive).toBeGreaterThan(run.jobs / 10);
    expect(run.refreshTimes.length).toBeGreaterThan(1);
    expect(run.refreshes).toBe(run.refreshTimes.length);
  });

  it("queue-length traces agree with a direct count and show stale JSQ herding", () => {
    const trace = herdingTrace({ policy: "jsq", refresh: 4, utilization: 0.9, from: 100, to: 160, step: 0.5, seed: 1 });
    // the same run with its jobs recorded: the trace sampled as the run went equals a direct count
    const run = recorded({ policy: "jsq", refresh: 4, utilization: 0.9, jobs: trace.run.jobs, warmupFraction: 0, seed: 1 });
    expect(queueLengthTrace(run, { from: 100, to: 160, step: 0.5 })).toEqual({ times: trace.times, lengths: trace.lengths, refreshTimes: trace.refreshTimes });
    for (const k of [0, 17, 60, trace.times.length - 1]) {
      const t = trace.times[k];
      // counted at t: jobs with arrival ≤ t < completion
      expect(trace.lengths.map((row) => row[k])).toEqual(naiveQueues(run, t, t + 1e-12));
    }
    expect(trace.refreshTimes[0]).toBeGreaterThanOrEqual(100);
    const spread = (tr: { lengths: number[][]; times: number[] }) =>
      mean(tr.times.map((_, k) => Math.max(...tr.lengths.map((r) => r[k])) - Math.min(...tr.lengths.map((r) => r[k]))));
    const two = herdingTrace({ policy: "powerOfTwo", refresh: 4, utilization: 0.9, from: 100, to: 160, step: 0.5, seed: 1 });
    expect(spread(trace)).toBeGreaterThan(2 * spread(two));
  });

  it("a trace window can be cut from any run", () => {
    const run = recorded({ servers: 3, utilization: 0.5, jobs: 400, policy: "random", seed: 9 });
    const tr = queueLengthTrace(run, { from: 10, to: 20, step: 1 });
    expect(tr.times).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    expect(tr.lengths).toHaveLength(3);
  });
});

describe("determinism and bad input", () => {
  it("same seed, same numbers; another seed, other numbers; policies share arrivals and sizes", () => {
    const a = recorded({ servers: 8, utilization: 0.9, jobs: 5000, policy: "powerOfTwo", refresh: 1, seed: 42 });
    const b = recorded({ servers: 8, utilization: 0.9, jobs: 5000, policy: "powerOfTwo", refresh: 1, seed: 42 });
    const c = simulateDispatch({ servers: 8, utilization: 0.9, jobs: 5000, policy: "powerOfTwo", refresh: 1, seed: 43 });
    expect(Array.from(b.completion)).toEqual(Array.from(a.completion));
    expect(Array.from(b.server)).toEqual(Array.from(a.server));
    expect(c.mean).not.toBe(a.mean);
    const d = recorded({ servers: 8, utilization: 0.9, jobs: 5000, policy: "jsq", seed: 42 });
    expect(Array.from(d.arrival)).toEqual(Array.from(a.arrival));
    expect(Array.from(d.size)).toEqual(Array.from(a.size));
  });

  const base = { servers: 4, utilization: 0.5, jobs: 100, policy: "random" as const, seed: 1 };
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ["ρ = 1", { utilization: 1 }, "utilization"],
    ["ρ > 1", { utilization: 1.3 }, "utilization"],
    ["ρ = 0", { utilization: 0 }, "utilization"],
    ["no jobs", { jobs: 0 }, "jobs"],
    ["no servers", { servers: 0 }, "servers"],
    ["fractional servers", { servers: 2.5 }, "servers"],
    ["unknown policy", { policy: "leastConnections" }, "policy"],
    ["unknown distribution", { sizes: "weibull" }, "sizes"],
    ["negative T", { refresh: -1 }, "refresh"],
    ["warm-up 100%", { warmupFraction: 1 }, "warmupFraction"],
  ];
  for (const [name, patch, parameter] of cases) {
    it(`rejects ${name} with a ParameterError naming ${parameter}`, () => {
      let error: unknown;
      try {
        simulateDispatch({ ...base, ...patch } as never);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ParameterError);
      expect((error as ParameterError).parameter).toBe(parameter);
      expect((error as Error).message).toMatch(new RegExp(`^参数 ${parameter.replace(/[.[\]]/g, "\\$&")}：应为`));
    });
  }

  it("rejects bad balls-into-bins input", () => {
    expect(() => ballsIntoBins({ n: 0, d: 1, seed: 1 })).toThrow(ParameterError);
    expect(() => ballsIntoBins({ n: 10, d: 0, seed: 1 })).toThrow(/参数 d：应为 ≥ 1 的整数/);
    expect(() => ballsIntoBins({ n: 10, d: 2, trials: 0, seed: 1 })).toThrow(/trials/);
    expect(() => randomMaxLoadFormula(2)).toThrow(ParameterError);
    expect(() => jobSizeSampler("pareto" as never, rng(1))).toThrow(/参数 sizes：应为以下之一："exponential"、"boundedPareto"/);
    expect(() => queueLengthTrace(recorded(base), { from: 5, to: 5, step: 1 })).toThrow(/to/);
    expect(() => queueLengthTrace(simulateDispatch(base), { from: 0, to: 5, step: 1 })).toThrow(/recordJobs/);
    expect(quantile([1], 0.5)).toBe(1);
  });
});

describe("exact queueing results (theory.ts)", () => {
  it("M/M/1: 1/(1−ρ) = 10 and P99 ln(100)/(1−ρ) at ρ = 0.9", () => {
    expect(mm1(0.9).mean).toBeCloseTo(10, 12);
    expect(mm1(0.9).quantile).toBeCloseTo(Math.log(100) * 10, 10);
  });
  it("E16/M/1 (round robin over 16 servers): σ solves its fixed point, mean 5.48 at ρ = 0.9 (random ÷ round robin = 1.82)", () => {
    const r = erlangArrivalsM1(16, 0.9);
    expect(r.sigma).toBeCloseTo(Math.pow((16 * 0.9) / (16 * 0.9 + 1 - r.sigma), 16), 12);
    expect(r.sigma).toBeGreaterThan(0);
    expect(r.sigma).toBeLessThan(1);
    expect(r.mean).toBeCloseTo(5.4796, 3);
    expect(mm1(0.9).mean / r.mean).toBeCloseTo(1.825, 3);
    // one server: Erlang-1 gaps are Poisson, so E1/M/1 = M/M/1
    expect(erlangArrivalsM1(1, 0.7).mean).toBeCloseTo(mm1(0.7).mean, 9);
  });
  it("M/M/c: Erlang C as computed independently; M/M/1 as the one-server case; the P99 solves its tail equation", () => {
    expect(mmc(16, 0.9).mean).toBeCloseTo(mmnMeanResponse(16, 0.9), 12);
    expect(mmc(16, 0.9).mean).toBeCloseTo(1.3696, 3);
    expect(mmc(1, 0.8).mean).toBeCloseTo(mm1(0.8).mean, 9);
    expect(mmc(1, 0.8).quantile).toBeCloseTo(mm1(0.8).quantile, 6);
    expect(erlangC(1, 0.5)).toBeCloseTo(0.5, 12);
  });
  it("Pollaczek–Khinchine with exponential sizes is M/M/1; with the bounded Pareto it is 92.3 at ρ = 0.9", () => {
    expect(mg1Mean(0.9, 2)).toBeCloseTo(10, 12);
    expect(mg1Mean(0.9, jobSizeMoments("boundedPareto").secondMoment)).toBeCloseTo(92.33, 1);
  });
  it("power of d as N → ∞: d = 1 is M/M/1, d = 2 at ρ = 0.9 is 2.61, and more choices help less and less", () => {
    expect(powerOfDMeanField(1, 0.9)).toBeCloseTo(10, 12);
    expect(powerOfDMeanField(2, 0.9)).toBeCloseTo(2.614, 3);
    expect(powerOfDMeanField(3, 0.9)).toBeLessThan(powerOfDMeanField(2, 0.9));
    expect(powerOfDMeanField(2, 0.9) - powerOfDMeanField(3, 0.9)).toBeLessThan(10 - powerOfDMeanField(2, 0.9));
  });
  it("bad input names the parameter", () => {
    expect(() => mm1(1)).toThrow(/参数 utilization/);
    expect(() => erlangArrivalsM1(0, 0.5)).toThrow(/参数 servers/);
    expect(() => mmc(4, 0.5, 1)).toThrow(/参数 quantile/);
  });
});

describe("the simulation against exact theory (long runs)", () => {
  it("round robin with exponential sizes is E16/M/1; random with bounded-Pareto sizes approaches Pollaczek–Khinchine", () => {
    const rr = dispatchAcrossSeeds({ servers: 16, utilization: 0.9, jobs: 200000, policy: "roundRobin", warmupFraction: 0.1 }, "theory", 2);
    expect(Math.abs(rr.mean / erlangArrivalsM1(16, 0.9).mean - 1)).toBeLessThan(0.04);
    expect(Math.abs(rr.p99 / erlangArrivalsM1(16, 0.9).quantile - 1)).toBeLessThan(0.08);
    const lwl = dispatchAcrossSeeds({ servers: 16, utilization: 0.9, jobs: 200000, policy: "leastWorkLeft", warmupFraction: 0.1 }, "theory", 2);
    expect(Math.abs(lwl.p99 / mmc(16, 0.9).quantile - 1)).toBeLessThan(0.06);
    // heavy tails: long runs with a warm-up; the seed noise is ≈ 15% a run, so 8 runs pin the mean to ≈ ± 5%
    const heavy = dispatchAcrossSeeds({ servers: 16, utilization: 0.9, jobs: 250000, policy: "random", sizes: "boundedPareto", warmupFraction: 0.2 }, "theory", 8);
    const pk = mg1Mean(0.9, jobSizeMoments("boundedPareto").secondMoment);
    expect(Math.abs(heavy.mean / pk - 1)).toBeLessThan(3 * (heavy.meanSd / Math.sqrt(8)) / pk + 0.02);
  });
});

describe("observers: bounded memory, the same numbers as the job records", () => {
  const base = { servers: 8, utilization: 0.85, jobs: 6000, warmupFraction: 0.2, seed: "obs" } as const;
  it("arrival counts per server per interval match the records, and the window costs servers × intervals numbers", () => {
    const window = { from: 50, interval: 3, intervals: 40 };
    const run = recorded({ ...base, policy: "jsq", refresh: 3, arrivalWindow: window });
    const counts = run.arrivalCounts!;
    expect(counts.counts).toHaveLength(8);
    expect(counts.counts[0]).toHaveLength(40);
    expect(counts.starts[1] - counts.starts[0]).toBe(3);
    const direct = Array.from({ length: 8 }, () => new Array<number>(40).fill(0));
    for (let i = 0; i < run.jobs; i++) {
      const k = Math.floor((run.arrival[i] - 50) / 3);
      if (k >= 0 && k < 40) direct[run.server[i]][k]++;
    }
    expect(counts.counts).toEqual(direct);
    const inWindow = Array.from(run.arrival).filter((a) => a >= 50 && a < 50 + 120).length;
    expect(counts.counts.flat().reduce((a, b) => a + b, 0)).toBe(inWindow);
  });
  it("herding statistics (per-interval top share, queue spread, longest queue) match a count from the records", () => {
    for (const policy of ["jsq", "powerOfTwo", "random"] as const) {
      const run = recorded({ ...base, policy, refresh: 2, herding: { interval: 2, queueStep: 0.5 } });
      // top share per interval, from the measured jobs
      const byInterval = new Map<number, number[]>();
      for (let i = run.warmupJobs; i < run.jobs; i++) {
        const k = Math.floor(run.arrival[i] / 2);
        if (!byInterval.has(k)) byInterval.set(k, new Array(8).fill(0));
        byInterval.get(k)![run.server[i]]++;
      }
      const shares = [...byInterval.values()].map((c) => Math.max(...c) / c.reduce((a, b) => a + b, 0));
      expect(run.herding!.topServerShare).toBeCloseTo(mean(shares), 12);
      const trace = queueLengthTrace(run, { from: run.arrival[run.warmupJobs], to: run.arrival[run.jobs - 1], step: 0.5 });
      const spread = trace.times.map((_, k) => Math.max(...trace.lengths.map((r) => r[k])) - Math.min(...trace.lengths.map((r) => r[k])));
      expect(run.herding!.queueSpread).toBeCloseTo(mean(spread), 9);
      expect(run.herding!.longestQueue).toBe(Math.max(...trace.lengths.flat()));
      // the snapshot at r = ⌊t/2⌋·2 holds the jobs that arrived before r and were not done by r
      const snapshot = (r: number) => {
        const n = new Array(8).fill(0);
        for (let i = 0; i < run.jobs && run.arrival[i] < r; i++) if (run.completion[i] > r) n[run.server[i]]++;
        return n;
      };
      const memo = new Map<number, number[]>();
      const shortestAt = (r: number) => {
        if (!memo.has(r)) {
          const n = snapshot(r);
          memo.set(r, n.map((x) => (x === Math.min(...n) ? 1 : 0)));
        }
        return memo.get(r)!;
      };
      let hits = 0;
      const counted: number[] = [];
      for (let i = run.warmupJobs; i < run.jobs; i++) {
        const r = Math.floor(run.arrival[i] / 2) * 2;
        hits += shortestAt(r)[run.server[i]];
        if (i > run.warmupJobs && r !== Math.floor(run.arrival[i - 1] / 2) * 2) counted.push(shortestAt(r).reduce((a, b) => a + b, 0));
      }
      expect(run.herding!.snapshotShortestShare).toBeCloseTo(hits / (run.jobs - run.warmupJobs), 12);
      expect(run.herding!.shortestTies).toBeCloseTo(mean(counted), 12);
      if (policy === "jsq") expect(run.herding!.snapshotShortestShare).toBe(1);
      else expect(run.herding!.snapshotShortestShare).toBeLessThan(1);
    }
    const live = recorded({ ...base, policy: "jsq", herding: { interval: 2 } });
    expect(live.herding!.snapshotShortestShare).toBeNaN();
  });
  it("observing does not change the run", () => {
    const plain = simulateDispatch({ ...base, policy: "leastWorkLeft", refresh: 1 });
    const watched = simulateDispatch({ ...base, policy: "leastWorkLeft", refresh: 1, herding: { interval: 1 }, arrivalWindow: { from: 0, interval: 1, intervals: 10 }, queueWindow: { from: 10, to: 20, step: 1 } });
    expect(Array.from(watched.responseTimes)).toEqual(Array.from(plain.responseTimes));
  });
  it("a window too large is refused, naming the option", () => {
    expect(() => simulateDispatch({ ...base, policy: "random", arrivalWindow: { from: 0, interval: 1, intervals: 1e7 } })).toThrow(/参数 arrivalWindow\.intervals/);
  });
});

describe("balls into bins, one byte per bin", () => {
  it("gives exactly the answers of the Int32 trial (same draws)", () => {
    for (const d of [1, 2, 4]) {
      const fast = ballsIntoBins({ n: 3000, d, trials: 4, seed: "bytes" }).perTrial;
      const slow = [0, 1, 2, 3].map((k) => maxLoadTrial(3000, d, rng("bytes").fork(`d${d}/trial${k}`)));
      expect(fast).toEqual(slow);
    }
  });
});

describe("the bounded Pareto's shape, exactly", () => {
  it("the largest 1% carry about a third of the work; the analytic shares and median match a large sample", () => {
    expect(boundedParetoTopWorkShare(0.01)).toBeGreaterThan(0.28);
    expect(boundedParetoTopWorkShare(0.01)).toBeLessThan(0.36);
    expect(boundedParetoTopWorkShare(1)).toBeCloseTo(1, 9);
    const next = jobSizeSampler("boundedPareto", rng("shape"));
    const xs = Float64Array.from({ length: 400000 }, () => next()).sort().reverse();
    const total = xs.reduce((a, b) => a + b, 0);
    const top = (q: number) => xs.subarray(0, Math.round(q * xs.length)).reduce((a, b) => a + b, 0) / total;
    expect(Math.abs(top(0.1) - boundedParetoTopWorkShare(0.1))).toBeLessThan(0.03);
    expect(xs[xs.length >> 1]).toBeCloseTo(boundedParetoUpperQuantile(0.5), 2);
  });
});
