// 代码 01: classic load balancing (§1.2–§1.3). Balls into bins, 16 FCFS servers under five dispatch policies, and
// JSQ / power-of-two fed a stale snapshot. Times are in units of the mean service time.
import { checkInteger, checkNonEmpty, checkNumber, checkOneOf } from "../core/errors";
import type { Row } from "../core/table";
import { ballsIntoBins, choiceMaxLoadFormula, randomMaxLoadFormula } from "../dispatch/balls-into-bins";
import { JOB_SIZE_DISTRIBUTIONS, jobSizeMoments } from "../dispatch/job-sizes";
import { DISPATCH_POLICIES, DispatchPolicy, LOAD_AWARE_POLICIES } from "../dispatch/policies";
import { dispatchAcrossSeeds, DispatchSummary, queueLengthTrace, simulateDispatch, topServerShare } from "../dispatch/servers";
import { defineDemo } from "./registry";

const one = (x: number) => x.toFixed(1);

export const ballsIntoBinsDemo = defineDemo({
  id: "01.1",
  section: "§1.2",
  title: "Balls into bins: max load, random vs two-choice",
  defaults: { ns: [1000, 10000, 100000], trials: 20, seed: 1 },
  describe: { ns: "numbers of balls (= bins)", trials: "independent trials averaged per n", seed: "random seed" },
  run(p, { progress }) {
    const ns = checkNonEmpty("ns", p.ns).map((n, i) => checkInteger(`ns[${i}]`, n, { min: 3 }));
    const trials = checkInteger("trials", p.trials, { min: 1 });
    const spread: string[] = [];
    const rows: Row[] = ns.map((n) => {
      progress?.(`balls into bins n = ${n.toLocaleString("en-US")}`);
      const random = ballsIntoBins({ n, d: 1, trials, seed: p.seed });
      const two = ballsIntoBins({ n, d: 2, trials, seed: p.seed });
      spread.push(`n = ${n.toLocaleString("en-US")}: random ${one(random.meanMaxLoad)} ± ${random.sdMaxLoad.toFixed(2)} (range ${random.minMaxLoad}–${random.maxMaxLoad}), two-choice ${one(two.meanMaxLoad)} ± ${two.sdMaxLoad.toFixed(2)} (range ${two.minMaxLoad}–${two.maxMaxLoad})`);
      return { n, random: random.meanMaxLoad, twoChoice: two.meanMaxLoad, randomFormula: randomMaxLoadFormula(n), twoChoiceFormula: choiceMaxLoadFormula(n, 2) };
    });
    return {
      title: this.title,
      columns: [
        { key: "n", label: "n (balls = bins)", format: "int" },
        { key: "random", label: "random, max load", unit: "balls", format: "fixed1" },
        { key: "twoChoice", label: "two-choice, max load", unit: "balls", format: "fixed1" },
        { key: "randomFormula", label: "ln n / ln ln n", unit: "balls", format: "fixed2" },
        { key: "twoChoiceFormula", label: "ln ln n / ln 2", unit: "balls", format: "fixed2" },
      ],
      rows,
      notes: [
        `Max load = balls in the fullest bin, averaged over ${trials} independent trials per n (seed ${String(p.seed)}; trial k of d choices uses stream d<d>/trial<k>). No warm-up: each trial starts from empty bins.`,
        `Spread across trials (mean ± standard deviation): ${spread.join("; ")}.`,
        "The formulas give only the order of growth (constants and lower-order terms omitted): compare how fast each column grows with n.",
      ],
    };
  },
});

function checkQueueParams(p: { servers: number; utilization: number; jobs: number; warmupFraction: number }): void {
  checkInteger("servers", p.servers, { min: 1 });
  checkNumber("utilization", p.utilization, { above: 0, below: 1 });
  checkInteger("jobs", p.jobs, { min: 1 });
  checkNumber("warmupFraction", p.warmupFraction, { min: 0, below: 1 });
}

const warmupNote = (warmupFraction: number, jobs: number) =>
  `Warm-up: the servers start empty; the first ${Math.round(warmupFraction * 100)}% of jobs by arrival (${Math.floor(warmupFraction * jobs).toLocaleString("en-US")} of ${jobs.toLocaleString("en-US")}) are simulated but left out of the statistics.`;

const seedsText = (seed: unknown, seeds: number) => (seeds === 1 ? `seed ${String(seed)}/0` : `seeds ${String(seed)}/0 … ${String(seed)}/${seeds - 1}`);

export const policiesDemo = defineDemo({
  id: "01.2",
  section: "§1.2",
  title: "Five dispatch policies on 16 FCFS servers",
  defaults: {
    servers: 16,
    utilization: 0.9,
    jobs: 50000,
    policies: ["random", "roundRobin", "jsq", "powerOfTwo", "leastWorkLeft"],
    exponentialSeeds: 1,
    heavyTailSeeds: 8,
    warmupFraction: 0.1,
    seed: 1,
  },
  describe: {
    servers: "number of FCFS servers N",
    utilization: "ρ ∈ (0, 1): arrival rate ρ·N per mean service time",
    jobs: "jobs per run (warm-up included)",
    policies: `dispatch policies (${DISPATCH_POLICIES.join(", ")})`,
    exponentialSeeds: "runs averaged for exponential sizes",
    heavyTailSeeds: "runs averaged for bounded-Pareto sizes (the lecture uses 8)",
    warmupFraction: "share of the first jobs left out of the statistics",
    seed: "base seed",
  },
  run(p, { progress }) {
    checkQueueParams(p);
    const policies = checkNonEmpty("policies", p.policies).map((x, i) => checkOneOf(`policies[${i}]`, x, DISPATCH_POLICIES));
    const seedCounts = {
      exponential: checkInteger("exponentialSeeds", p.exponentialSeeds, { min: 1 }),
      boundedPareto: checkInteger("heavyTailSeeds", p.heavyTailSeeds, { min: 1 }),
    };
    const rows: Row[] = [];
    const spread: string[] = [];
    for (const sizes of JOB_SIZE_DISTRIBUTIONS) {
      const parts: string[] = [];
      for (const policy of policies) {
        progress?.(`${sizes} sizes, ${policy}`);
        const r = dispatchAcrossSeeds({ servers: p.servers, utilization: p.utilization, jobs: p.jobs, policy, sizes, warmupFraction: p.warmupFraction }, p.seed, seedCounts[sizes]);
        rows.push({ sizes, policy, mean: r.mean, p99: r.p99 });
        if (seedCounts[sizes] > 1) parts.push(`${policy} ${one(r.mean)} ± ${one(r.meanSd)} / ${one(r.p99)} ± ${one(r.p99Sd)}`);
      }
      if (parts.length) spread.push(`${sizes} (${seedCounts[sizes]} seeds, mean ± sd across seeds, mean / P99): ${parts.join("; ")}`);
    }
    return {
      title: `${this.title} (ρ = ${p.utilization})`,
      columns: [
        { key: "sizes", label: "job sizes", format: "text" },
        { key: "policy", label: "policy", format: "text" },
        { key: "mean", label: "mean response", unit: "× mean service time", format: "fixed2" },
        { key: "p99", label: "P99 response", unit: "× mean service time", format: "fixed1" },
      ],
      rows,
      notes: [
        `Units: response time (wait + service) in mean service times. ${p.servers} FCFS servers, Poisson arrivals at rate ${p.utilization}·${p.servers} per mean service time, ${p.jobs.toLocaleString("en-US")} jobs per run.`,
        `Sizes: exponential (mean 1, ${seedsText(p.seed, seedCounts.exponential)}); boundedPareto = ${jobSizeMoments("boundedPareto").description} (${seedsText(p.seed, seedCounts.boundedPareto)}). Every policy sees the same arrivals and sizes for a given seed; mean and P99 are averaged over seeds.`,
        warmupNote(p.warmupFraction, p.jobs),
        `Theory: random dispatch makes each server an M/G/1 queue; exponential sizes give 1/(1−ρ) = ${(1 / (1 - p.utilization)).toFixed(1)}.`,
        ...spread,
      ],
    };
  },
});

export const staleInformationDemo = defineDemo({
  id: "01.3",
  section: "§1.3",
  title: "Stale load information: JSQ herds, power-of-two holds",
  defaults: {
    servers: 16,
    utilization: 0.9,
    jobs: 50000,
    refreshIntervals: [0, 0.5, 1, 2, 4, 8],
    policies: ["jsq", "powerOfTwo", "random"],
    seeds: 4,
    warmupFraction: 0.1,
    seed: 1,
  },
  describe: {
    refreshIntervals: "snapshot refresh intervals T (mean service times; 0 = live)",
    policies: "policies compared (random ignores the snapshot: the reference line)",
    seeds: "runs averaged per point",
  },
  run(p, { progress }) {
    checkQueueParams(p);
    const intervals = checkNonEmpty("refreshIntervals", p.refreshIntervals).map((x, i) => checkNumber(`refreshIntervals[${i}]`, x, { min: 0 }));
    const policies = checkNonEmpty("policies", p.policies).map((x, i) => checkOneOf(`policies[${i}]`, x, DISPATCH_POLICIES));
    const seeds = checkInteger("seeds", p.seeds, { min: 1 });
    const blind = new Map<DispatchPolicy, DispatchSummary>();
    const rows: Row[] = [];
    for (const refresh of intervals) {
      for (const policy of policies) {
        progress?.(`T = ${refresh}, ${policy}`);
        const usesView = LOAD_AWARE_POLICIES.includes(policy);
        let r = usesView ? undefined : blind.get(policy);
        if (!r) {
          r = dispatchAcrossSeeds({ servers: p.servers, utilization: p.utilization, jobs: p.jobs, policy, refresh: usesView ? refresh : 0, warmupFraction: p.warmupFraction }, p.seed, seeds);
          if (!usesView) blind.set(policy, r);
        }
        rows.push({ refresh, policy, mean: r.mean, p99: r.p99 });
      }
    }
    return {
      title: `${this.title} (ρ = ${p.utilization}, ${p.servers} servers)`,
      columns: [
        { key: "refresh", label: "refresh interval T", unit: "× mean service time", format: "text" },
        { key: "policy", label: "policy", format: "text" },
        { key: "mean", label: "mean response", unit: "× mean service time", format: "fixed2" },
        { key: "p99", label: "P99 response", unit: "× mean service time", format: "fixed1" },
      ],
      rows,
      notes: [
        `Units: response time and T in mean service times. Exponential sizes, ${p.servers} FCFS servers, Poisson arrivals at ρ = ${p.utilization}, ${p.jobs.toLocaleString("en-US")} jobs per run, averaged over ${seedsText(p.seed, seeds)}.`,
        "The dispatcher sees queue lengths (jobs in system) from a snapshot taken at times 0, T, 2T, … (T = 0: live); it does not count its own dispatches since the snapshot — that is what makes JSQ herd. Ties are broken at random. Random ignores the snapshot: the same reference value in every row.",
        warmupNote(p.warmupFraction, p.jobs),
      ],
    };
  },
});

export const herdingDemo = defineDemo({
  id: "01.4",
  section: "§1.3",
  title: "Herding: how concentrated dispatching gets with a stale snapshot",
  defaults: { servers: 16, utilization: 0.9, jobs: 20000, refresh: 4, policies: ["random", "jsq", "powerOfTwo"], warmupFraction: 0.1, seed: 1 },
  describe: { refresh: "snapshot refresh interval T (mean service times)", policies: "policies compared" },
  run(p, { progress }) {
    checkQueueParams(p);
    const refresh = checkNumber("refresh", p.refresh, { above: 0 });
    const policies = checkNonEmpty("policies", p.policies).map((x, i) => checkOneOf(`policies[${i}]`, x, DISPATCH_POLICIES));
    const rows: Row[] = policies.map((policy) => {
      progress?.(`herding: ${policy}`);
      const run = simulateDispatch({ servers: p.servers, utilization: p.utilization, jobs: p.jobs, policy, refresh, warmupFraction: p.warmupFraction, seed: `${String(p.seed)}/0` });
      const from = run.arrival[run.warmupJobs];
      const to = run.arrival[run.jobs - 1];
      const trace = queueLengthTrace(run, { from, to, step: 0.25 });
      let spread = 0;
      let longest = 0;
      for (let k = 0; k < trace.times.length; k++) {
        let lo = Infinity;
        let hi = -Infinity;
        for (const row of trace.lengths) {
          lo = Math.min(lo, row[k]);
          hi = Math.max(hi, row[k]);
        }
        spread += hi - lo;
        longest = Math.max(longest, hi);
      }
      return { policy, mean: run.mean, topServerShare: topServerShare(run, refresh), queueSpread: spread / trace.times.length, longestQueue: longest };
    });
    return {
      title: `${this.title} (T = ${refresh}, ρ = ${p.utilization}, ${p.servers} servers)`,
      columns: [
        { key: "policy", label: "policy", format: "text" },
        { key: "mean", label: "mean response", unit: "× mean service time", format: "fixed2" },
        { key: "topServerShare", label: "arrivals to the busiest-fed server per interval", format: "percent0" },
        { key: "queueSpread", label: "longest − shortest queue, time average", unit: "jobs", format: "fixed1" },
        { key: "longestQueue", label: "longest queue seen", unit: "jobs", format: "int" },
      ],
      rows,
      notes: [
        `Units: times in mean service times, queues in jobs (waiting + in service). Exponential sizes, ${p.jobs.toLocaleString("en-US")} jobs, seed ${String(p.seed)}/0; every policy sees the same arrivals and sizes.`,
        `Share: for each refresh interval of length T, the fraction of its arrivals sent to the server that received the most; even spreading would give about 1/${p.servers} plus noise.`,
        `${warmupNote(p.warmupFraction, p.jobs)} Queue lengths are sampled every 0.25 from the first measured arrival to the last arrival.`,
        "For the queue-length time series itself use herdingTrace({ policy, refresh, utilization, from, to, seed }).",
      ],
    };
  },
});

export const classicDispatchDemos = [ballsIntoBinsDemo, policiesDemo, staleInformationDemo, herdingDemo];
